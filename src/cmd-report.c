#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "error.h"
#include "record.h"
#include "report.h"

static const char usage[] =
	"usage: labrun report (--issue REF | --run ID | --experiment NAME) [--format md|csv|json] [-o FILE]\n"
	"\n"
	"Regenerate the comparison tables of experiment runs from the store alone: for every\n"
	"matching run (oldest first), one table per arm against the baseline with a row per\n"
	"condition (medians, the paired reduction, its 95% interval, blocks, flagged\n"
	"repetitions, verdict), parity counts with every failed or missing condition named,\n"
	"the exact command, source hashes, binding, geometry and tool versions. The same store\n"
	"gives the same bytes. Markdown is GitHub-flavoured, ready for an issue comment.\n"
	"\n"
	"  --issue REF        runs that are evidence for REF (270, owner/repo#827)\n"
	"  --run ID           one run\n"
	"  --experiment NAME  runs of one experiment\n"
	"  --format F         md (default), csv or json\n"
	"  -o FILE            write to FILE (replaced atomically) instead of standard output\n";

static void kv_line(FILE *f, const char *title, const struct lr_kvlist *l)
{
	size_t i;

	fprintf(f, "* %s: ", title);
	if (!l->n)
		fputs("none", f);
	for (i = 0; i < l->n; i++)
		fprintf(f, "%s`%s=%s`", i ? ", " : "", l->v[i].key, l->v[i].value);
	fputc('\n', f);
}

static void md_run(FILE *f, const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	const struct lr_expdef *d = &rr->def;
	char *cmd = cmd_argv_text(r->argv_json), verdict[160];
	int t, i, listed = 0;

	fprintf(f, "## %s, run %lld (%s)\n\n", d->name, (long long)r->id, lr_status_name(r->status));
	if (d->title[0])
		fprintf(f, "%s\n\n", d->title);
	fprintf(f, "* Command: `%s` (in `%s`, started %s)\n", cmd ? cmd : r->argv_json, r->cwd, r->started_at);
	if (r->replay_of)
		fprintf(f, "* Replay of run %lld\n", (long long)r->replay_of);
	fprintf(f, "* Definition: `%s`, sha256 `%s`\n", d->path, d->sha256);
	if (r->source.present)
		fprintf(f, "* Sources: HEAD `%s`%s%s%s, dirty: %s, diff sha256 `%s`\n",
			r->source.head ? r->source.head : "(no commit)", r->source.branch ? " (branch `" : "",
			r->source.branch ? r->source.branch : "", r->source.branch ? "`)" : "",
			r->source.dirty ? "yes" : "no", r->source.diff_sha256);
	else
		fprintf(f, "* Sources: not inside a git work tree\n");
	for (i = 0; (size_t)i < r->nfiles; i++)
		fprintf(f, "  * `%s` %s `%s`\n", r->files[i].path, r->files[i].status,
			r->files[i].has_content ? r->files[i].sha256 : "(deleted)");
	fprintf(f, "* Host: %s, %s, %lld CPUs, %s, kernel %s\n", r->host.hostname,
		r->host.cpu_model ? r->host.cpu_model : "unknown CPU", (long long)r->host.cores,
		r->host.os ? r->host.os : "unknown OS", r->host.kernel);
	kv_line(f, "Binding", &r->binding);
	kv_line(f, "Geometry", &r->geometry);
	kv_line(f, "Tool versions", &r->tools);
	fprintf(f, "* Design: %s, %d timed blocks after %d warm-up, practical margin %g%%, seed %llu, target %s, backend %s\n",
		d->order == LR_ORDER_ABBA ? "ABBA" : "random", d->blocks, d->warmup, d->margin * 100,
		(unsigned long long)d->seed, d->target == LR_TARGET_ENCODE ? "encode" : "import", d->backend);
	fprintf(f, "* Parity: %d passed, %d failed, %d missing\n", rr->passed, rr->failed, rr->missing);
	for (t = 0; t < rr->ntables; t++) {
		const struct lr_report_table *tb = &rr->tables[t];
		const char *an = rr->arm[0], *bn = rr->arm[tb->arm];

		fprintf(f, "\n### %s (%s) vs %s (%s), run %lld\n\n", bn, rr->kernel[tb->arm], an, rr->kernel[0],
			(long long)r->id);
		fprintf(f, "| Shape layers/input | %s median ms | %s median ms | Reduction | 95%% interval | blocks | flagged reps | verdict |\n",
			an, bn);
		fprintf(f, "|---|---:|---:|---:|---|---:|---:|---|\n");
		for (i = 0; i < tb->nrows; i++) {
			const struct lr_report_row *w = &tb->rows[i];

			fprintf(f, "| %s %lld/%lld | ", w->model, (long long)w->layers, (long long)w->tokens);
			if (!w->has) {
				fprintf(f, "- | - | - | - | %d | %d | %s |\n", w->blocks, w->flagged, w->status);
				continue;
			}
			fprintf(f, "%.3f | %.3f | %.1f%% | ", w->median_a_ms, w->median_b_ms, (1 - w->p.ratio) * 100);
			if (w->p.k)
				fprintf(f, "[%.1f%%, %.1f%%]", (1 - w->p.hi) * 100, (1 - w->p.lo) * 100);
			else
				fputs("none: too few blocks", f);
			fprintf(f, " | %d | %d | %s |\n", w->blocks, w->flagged,
				lr_verdict_text(verdict, sizeof verdict, &w->p, d->margin, bn));
		}
	}
	fprintf(f, "\nFailed or missing conditions:");
	for (i = 0; i < rr->nconds; i++)
		if (strcmp(rr->conds[i].status, "passed")) {
			fprintf(f, "\n* %s %lld/%lld: %s: %s", rr->conds[i].model, (long long)rr->conds[i].layers,
				(long long)rr->conds[i].tokens, rr->conds[i].status,
				rr->conds[i].failure ? rr->conds[i].failure : "");
			listed++;
		}
	fprintf(f, "%s\n\n", listed ? "" : " none.");
	free(cmd);
}

static void write_md(FILE *f, const struct lr_report *rep, const char *title)
{
	int i;

	fprintf(f, "# labrun report: %s\n\n", title);
	fprintf(f, "Regenerated from the store by labrun %s: every figure is recomputed from the stored\n"
		   "repetitions of the runs named in each heading. Times are measured wall-clock time per\n"
		   "execution (median over the timed blocks); reduction = 1 - exp(median over blocks of\n"
		   "ln((B1+B2)/(A1+A2))); the 95%% interval is the sign-test interval of the block ratios.\n\n",
		PACKAGE_VERSION);
	for (i = 0; i < rep->nruns; i++)
		md_run(f, &rep->runs[i]);
}

static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_csv(FILE *f, const struct lr_report *rep)
{
	char verdict[160];
	int i, t, k;

	fputs("run,experiment,baseline,arm,model,layers,tokens,status,baseline_median_ms,arm_median_ms,"
	      "reduction,interval_lo,interval_hi,blocks,flagged,verdict\r\n", f);
	for (i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];

		for (t = 0; t < rr->ntables; t++)
			for (k = 0; k < rr->tables[t].nrows; k++) {
				const struct lr_report_row *w = &rr->tables[t].rows[k];

				fprintf(f, "%lld,", (long long)rr->run.id);
				csv_str(f, rr->def.name);
				fputc(',', f);
				csv_str(f, rr->arm[0]);
				fputc(',', f);
				csv_str(f, rr->arm[rr->tables[t].arm]);
				fprintf(f, ",%s,%lld,%lld,%s,", w->model, (long long)w->layers, (long long)w->tokens, w->status);
				if (w->has)
					fprintf(f, "%.6f,%.6f,%.6f,%s%.6f,%s%.6f,", w->median_a_ms, w->median_b_ms, 1 - w->p.ratio,
						"", w->p.k ? 1 - w->p.hi : 0, "", w->p.k ? 1 - w->p.lo : 0);
				else
					fputs(",,,,,", f);
				fprintf(f, "%d,%d,", w->blocks, w->flagged);
				csv_str(f, w->has ? lr_verdict_text(verdict, sizeof verdict, &w->p, rr->def.margin,
								      rr->arm[rr->tables[t].arm])
						  : w->status);
				fputs("\r\n", f);
			}
	}
}

static void write_json(FILE *f, const struct lr_report *rep, const char *title)
{
	json_t *root = json_object(), *runs = json_array();
	char verdict[160];
	int i, t, k;

	json_object_set_new(root, "report", json_string(title));
	json_object_set_new(root, "labrun_version", json_string(PACKAGE_VERSION));
	for (i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];
		json_t *jr = json_object(), *tables = json_array();

		json_object_set_new(jr, "run", json_integer(rr->run.id));
		json_object_set_new(jr, "uuid", json_string(rr->run.uuid));
		json_object_set_new(jr, "experiment", json_string(rr->def.name));
		json_object_set_new(jr, "status", json_string(lr_status_name(rr->run.status)));
		json_object_set_new(jr, "definition_sha256", json_string(rr->def.sha256));
		json_object_set_new(jr, "parity", json_pack("{s:i, s:i, s:i}", "passed", rr->passed, "failed", rr->failed,
							  "missing", rr->missing));
		for (t = 0; t < rr->ntables; t++) {
			json_t *rows = json_array();

			for (k = 0; k < rr->tables[t].nrows; k++) {
				const struct lr_report_row *w = &rr->tables[t].rows[k];
				json_t *jw = json_pack("{s:i, s:s, s:I, s:I, s:s, s:i, s:i}", "condition", w->cond, "model",
						       w->model, "layers", (json_int_t)w->layers, "tokens",
						       (json_int_t)w->tokens, "status", w->status, "blocks", w->blocks,
						       "flagged", w->flagged);

				if (w->has) {
					json_object_set_new(jw, "baseline_median_ms", json_real(w->median_a_ms));
					json_object_set_new(jw, "arm_median_ms", json_real(w->median_b_ms));
					json_object_set_new(jw, "ratio", json_real(w->p.ratio));
					json_object_set_new(jw, "interval", w->p.k ? json_pack("[f, f]", w->p.lo, w->p.hi) : json_null());
					json_object_set_new(jw, "verdict",
							    json_string(lr_verdict_text(verdict, sizeof verdict, &w->p, rr->def.margin,
											rr->arm[rr->tables[t].arm])));
				}
				json_array_append_new(rows, jw);
			}
			json_array_append_new(tables, json_pack("{s:s, s:s, s:o}", "baseline", rr->arm[0], "arm",
								rr->arm[rr->tables[t].arm], "rows", rows));
		}
		json_object_set_new(jr, "tables", tables);
		json_array_append_new(runs, jr);
	}
	json_object_set_new(root, "runs", runs);
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
}

int cmd_report(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "issue", required_argument, NULL, 'i' },
		{ "run", required_argument, NULL, 'r' },
		{ "experiment", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lr_run_filter flt = { NULL, NULL, -1, 0 };
	const char *format = "md", *out = NULL, *run_ref = NULL;
	struct lr_store *st = NULL;
	struct lr_report rep;
	char issue[256], title[320], *tmp = NULL;
	int64_t run_id = 0;
	int c, rc = 0, selectors = 0;
	FILE *f = stdout;

	memset(&rep, 0, sizeof rep);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (lr_issue_normalize(optarg, issue, sizeof issue))
				return cmd_fail(LR_EINVAL);
			flt.issue = issue;
			selectors++;
			break;
		case 'r':
			run_ref = optarg;
			selectors++;
			break;
		case 'e':
			flt.experiment = optarg;
			selectors++;
			break;
		case 'f':
			if (strcmp(optarg, "md") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return cmd_usage_error("report", "invalid --format '%s': expected md, csv or json", optarg);
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("report", argv, c);
		}
	}
	if (optind < argc)
		return cmd_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (selectors != 1)
		return cmd_usage_error("report", "give exactly one of --issue, --run and --experiment");
	if ((rc = cmd_open_store(&st, g, 0)))
		return rc;
	if (run_ref && (rc = lr_store_run_resolve(st, run_ref, &run_id)))
		goto out;
	if (flt.issue)
		snprintf(title, sizeof title, "issue %s", flt.issue);
	else if (flt.experiment)
		snprintf(title, sizeof title, "experiment %s", flt.experiment);
	else
		snprintf(title, sizeof title, "run %lld", (long long)run_id);
	if ((rc = lr_report_build(st, &flt, run_id, &rep))) {
		if (rc == LR_ENOTFOUND) {
			lr_error_set(LR_ENOTFOUND, "cannot report on %s: no experiment runs match", title);
			lr_error_hint("'labrun list' shows the runs; reports cover runs of 'labrun run'");
		}
		goto out;
	}
	if (out) {
		if (asprintf(&tmp, "%s.tmp-%ld", out, (long)getpid()) < 0 || !(f = fopen(tmp, "w"))) {
			rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
			f = stdout;
			goto out;
		}
	}
	if (!strcmp(format, "csv"))
		write_csv(f, &rep);
	else if (!strcmp(format, "json"))
		write_json(f, &rep, title);
	else
		write_md(f, &rep, title);
	if (out) {
		if (fclose(f) != 0 || rename(tmp, out) != 0)
			rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
		f = stdout;
	}
out:
	if (f != stdout)
		fclose(f);
	if (tmp && rc)
		unlink(tmp);
	free(tmp);
	lr_report_release(&rep);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
