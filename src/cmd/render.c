/*
 * The report's writers, shared by 'report', 'manifest', 'archive' and
 * 'verify' (which compares a crate's report with one recomputed from its
 * rows): Markdown, CSV and JSON from the report model. The HTML page is
 * report-html.c's.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "cmd/cmd.h"
#include "evidence/manifest.h"
#include "experiment/report.h"
#include "serving/report.h"

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

/* One table of a run: a row per condition, its estimate, interval and verdict. */
static void md_table(FILE *f, const struct lr_report_run *rr, const struct lr_report_table *tb, const char *metric)
{
	const struct lr_run *r = &rr->run;
	const struct lr_stored_design *d = &rr->design;
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm];
	int i, cmd = d->target == LR_TARGET_COMMAND;
	char verdict[160];

	fprintf(f, "\n### %s (%s) vs %s (%s), run %lld\n\n", bn, rr->kernel[tb->arm], an, rr->kernel[0],
		(long long)r->id);
	if (cmd)
		fprintf(f, "| Condition | %s median %s | %s median %s | Change | 95%% interval | blocks | flagged reps | drift %s/%s | verdict |\n",
			an, metric, bn, metric, an, bn);
	else
		fprintf(f, "| Shape layers/input | %s median ms | %s median ms | Reduction | 95%% interval | blocks | flagged reps | drift %s/%s | verdict |\n",
			an, bn, an, bn);
	fprintf(f, "|---|---:|---:|---:|---|---:|---:|---|---|\n");
	for (i = 0; i < tb->nrows; i++) {
		const struct lr_report_row *w = &tb->rows[i];

		fprintf(f, "| %s | ", w->label);
		if (!w->has) {
			fprintf(f, "- | - | - | - | %d | %d | - | %s |\n", w->blocks, w->flagged, w->status);
			continue;
		}
		if (cmd)
			fprintf(f, "%.3f | %.3f | %+.1f%% | ", w->median_a_ms, w->median_b_ms, (w->p.ratio - 1) * 100);
		else
			fprintf(f, "%.3f | %.3f | %.1f%% | ", w->median_a_ms, w->median_b_ms, (1 - w->p.ratio) * 100);
		if (w->p.k && cmd)
			fprintf(f, "[%+.1f%%, %+.1f%%]", (w->p.lo - 1) * 100, (w->p.hi - 1) * 100);
		else if (w->p.k)
			fprintf(f, "[%.1f%%, %.1f%%]", (1 - w->p.hi) * 100, (1 - w->p.lo) * 100);
		else
			fprintf(f, "%d timed batches, no interval", w->blocks);
		fprintf(f, " | %d | %d | %+.1f%%/%+.1f%%%s | %s |\n", w->blocks, w->flagged, w->drift_a * 100,
			w->drift_b * 100, w->drifted ? " DRIFT" : "",
			lr_verdict_metric_text(verdict, sizeof verdict, &w->p, d->margin, bn, d->metric));
	}
}

void cmd_render_tables(FILE *f, const struct lr_report_run *rr)
{
	char metric[96];
	int t;

	snprintf(metric, sizeof metric, "%s", rr->design.metric[0] ? rr->design.metric : "wall time ms");
	for (t = 0; t < rr->ntables; t++)
		md_table(f, rr, &rr->tables[t], metric);
}

static void md_run(FILE *f, const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	const struct lr_stored_design *d = &rr->design;
	char *cmdline = cmd_argv_text(r->argv_json);
	int i, listed = 0;

	fprintf(f, "## %s, run %lld (%s)\n\n", d->name, (long long)r->id, lr_status_name(r->status));
	if (d->title[0])
		fprintf(f, "%s\n\n", d->title);
	fprintf(f, "* Command: `%s` (in `%s`, started %s)\n", cmdline ? cmdline : r->argv_json, r->cwd, r->started_at);
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
		(unsigned long long)d->seed, lr_exp_target_name(d->target), d->backend);
	fprintf(f, "* Parity: %d passed, %d failed, %d missing\n", rr->passed, rr->failed, rr->missing);
	if (rr->aa_run)
		fprintf(f, "* Noise floor: A/A run %lld (%s) on this host, 95%% intervals up to %.1f%% wide; no effect "
			   "smaller than that is claimed from it\n", (long long)rr->aa_run, rr->aa_name, rr->aa_width * 100);
	else
		fprintf(f, "* Noise floor: no A/A run on this host yet (experiments/aa-noise.ini measures it)\n");
	cmd_render_tables(f, rr);
	fprintf(f, "\nFailed or missing conditions:");
	for (i = 0; i < rr->nconds; i++)
		if (strcmp(rr->conds[i].status, "passed")) {
			fprintf(f, "\n* %s: %s: %s", rr->ntables ? rr->tables[0].rows[i].label : rr->conds[i].model,
				rr->conds[i].status, rr->conds[i].failure ? rr->conds[i].failure : "");
			listed++;
		}
	fprintf(f, "%s\n\n", listed ? "" : " none.");
	free(cmdline);
}

/* ---- serving evidence ----------------------------------------------------------- */

static void csv_str(FILE *f, const char *s);

/* A cell in words: parity over its comparisons, then its gate. */
const char *cmd_render_cell_text(char *buf, size_t len, const struct lr_serving_cell *c)
{
	size_t off = 0;

	if (!c->sets)
		return snprintf(buf, len, "uncollected"), buf;
	if (c->comparisons)
		off = (size_t)snprintf(buf, len, "%lld/%lld exact", (long long)c->exact, (long long)c->compared);
	else
		off = (size_t)snprintf(buf, len, "%lld responses, not compared", (long long)c->cases);
	if (c->gated && off < len)
		snprintf(buf + off, len - off, "; strict %lld/%lld, formats %lld/%lld, EOS %lld/%lld", (long long)c->strict,
			 (long long)c->gate_total, (long long)c->formats, (long long)c->gate_total, (long long)c->eos,
			 (long long)c->gate_total);
	return buf;
}

static void dist_md(FILE *f, const struct lr_serving_dist *d)
{
	if (d->n)
		fprintf(f, " %.3f | %.3f |", d->median, d->p90);
	else
		fputs(" - | - |", f);
}

static void md_serving(FILE *f, const struct lr_serving_report *sv)
{
	char cell[256];
	size_t i;
	int r, k;

	fprintf(f, "## Serving evidence\n\n");
	fprintf(f, "Cells: within-route parity, exact/total over every comparison whose candidate is that route there "
		   "(a command experiment's repeated executions against its first, and `labrun compare` against a "
		   "reference); then the scores of its latest frozen quality gate. Exact means equal token arrays "
		   "and equal texts.\n\n| Run / condition |");
	for (k = 0; k < sv->nroutes; k++)
		fprintf(f, " %s |", sv->routes[k]);
	fputs("\n|---|", f);
	for (k = 0; k < sv->nroutes; k++)
		fputs("---|", f);
	fputc('\n', f);
	for (r = 0; r < sv->nrows; r++) {
		fprintf(f, "| %s |", sv->rows[r].label);
		for (k = 0; k < sv->nroutes; k++)
			fprintf(f, " %s |", cmd_render_cell_text(cell, sizeof cell, &sv->cells[r * sv->nroutes + k]));
		fputc('\n', f);
	}
	fprintf(f, "\nWithin-route parity: %d passes, %d failures, %d uncollected of %d combinations", sv->passes,
		sv->failures, sv->uncollected, sv->combinations);
	if (sv->unchecked)
		fprintf(f, " (%d collected but never compared)", sv->unchecked);
	fprintf(f, ".\n\nFailing and missing cases:%s\n", sv->failing.n ? "" : " none.");
	for (i = 0; i < sv->failing.n; i++)
		fprintf(f, "* %s\n", sv->failing.v[i]);
	fprintf(f, "\nPer route, over all its responses (median and p90):\n\n"
		   "| Route | latency ms | p90 | TTFT ms | p90 | tokens/s | p90 | responses timed |\n"
		   "|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (k = 0; k < sv->nroutes; k++) {
		fprintf(f, "| %s |", sv->routes[k]);
		dist_md(f, &sv->stats[k].latency_ms);
		dist_md(f, &sv->stats[k].ttft_ms);
		dist_md(f, &sv->stats[k].tokens_per_s);
		fprintf(f, " %lld |\n", (long long)sv->stats[k].latency_ms.n);
	}
	fputs("\nPaired route comparisons are the experiment tables above: with the method's 95% interval from 6 "
	      "paired blocks, otherwise \"N timed batches, no interval\".\n", f);
}

static void csv_serving(FILE *f, const struct lr_serving_report *sv)
{
	char cell[256];
	int r, k;

	fputs("\r\nrun,condition,row,route,sets,responses,comparisons,exact,compared,gated,strict,formats,eos,gate_total,cell\r\n",
	      f);
	for (r = 0; r < sv->nrows; r++)
		for (k = 0; k < sv->nroutes; k++) {
			const struct lr_serving_cell *c = &sv->cells[r * sv->nroutes + k];

			fprintf(f, "%lld,%d,", (long long)sv->rows[r].run, sv->rows[r].cond);
			csv_str(f, sv->rows[r].label);
			fputc(',', f);
			csv_str(f, sv->routes[k]);
			fprintf(f, ",%lld,%lld,%d,%lld,%lld,%d,%lld,%lld,%lld,%lld,", (long long)c->sets, (long long)c->cases,
				c->comparisons, (long long)c->exact, (long long)c->compared, c->gated, (long long)c->strict,
				(long long)c->formats, (long long)c->eos, (long long)c->gate_total);
			csv_str(f, cmd_render_cell_text(cell, sizeof cell, c));
			fputs("\r\n", f);
		}
}

static json_t *json_dist(const struct lr_serving_dist *d)
{
	return d->n ? json_pack("{s:I, s:f, s:f}", "n", (json_int_t)d->n, "median", d->median, "p90", d->p90) : json_null();
}

static json_t *json_serving(const struct lr_serving_report *sv)
{
	json_t *o = json_object(), *routes = json_array(), *rows = json_array(), *failing = json_array(), *stats = json_array();
	char cell[256];
	size_t i;
	int r, k;

	for (k = 0; k < sv->nroutes; k++) {
		json_array_append_new(routes, json_string(sv->routes[k]));
		json_array_append_new(stats, json_pack("{s:s, s:o, s:o, s:o}", "route", sv->routes[k], "latency_ms",
						       json_dist(&sv->stats[k].latency_ms), "ttft_ms",
						       json_dist(&sv->stats[k].ttft_ms), "tokens_per_s",
						       json_dist(&sv->stats[k].tokens_per_s)));
	}
	for (r = 0; r < sv->nrows; r++) {
		json_t *cells = json_array();

		for (k = 0; k < sv->nroutes; k++) {
			const struct lr_serving_cell *c = &sv->cells[r * sv->nroutes + k];

			json_array_append_new(cells, json_pack("{s:s, s:I, s:I, s:i, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:s}",
							       "route", sv->routes[k], "sets", (json_int_t)c->sets,
							       "responses", (json_int_t)c->cases, "comparisons",
							       c->comparisons, "exact", (json_int_t)c->exact, "compared",
							       (json_int_t)c->compared, "gated", c->gated, "strict",
							       (json_int_t)c->strict, "formats", (json_int_t)c->formats,
							       "eos", (json_int_t)c->eos, "gate_total",
							       (json_int_t)c->gate_total, "cell",
							       cmd_render_cell_text(cell, sizeof cell, c)));
		}
		json_array_append_new(rows, json_pack("{s:s, s:I, s:i, s:o}", "label", sv->rows[r].label, "run",
						      (json_int_t)sv->rows[r].run, "condition", sv->rows[r].cond, "cells",
						      cells));
	}
	for (i = 0; i < sv->failing.n; i++)
		json_array_append_new(failing, json_string(sv->failing.v[i]));
	json_object_set_new(o, "routes", routes);
	json_object_set_new(o, "rows", rows);
	json_object_set_new(o, "combinations", json_pack("{s:i, s:i, s:i, s:i, s:i}", "total", sv->combinations, "passes",
							 sv->passes, "failures", sv->failures, "uncollected",
							 sv->uncollected, "unchecked", sv->unchecked));
	json_object_set_new(o, "failing", failing);
	json_object_set_new(o, "route_stats", stats);
	return o;
}

/* The method in one paragraph: the same words in every format that has prose. */
const char cmd_render_method[] =
	"every figure is recomputed from the stored\n"
	"repetitions of the runs named in each heading. Times are measured wall-clock time per\n"
	"execution (median over the timed blocks); reduction = 1 - exp(median over blocks of\n"
	"ln((B1+B2)/(A1+A2))); the 95% interval is the sign-test interval of the block ratios.\n"
	"Drift is each arm's relative change over the timed blocks (least-squares slope of log time),\n"
	"flagged DRIFT beyond the practical margin.";

static void write_md(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title)
{
	int i;

	fprintf(f, "# labrun report: %s\n\n", title);
	fprintf(f, "Regenerated from the store by labrun %s: %s\n\n", PACKAGE_VERSION, cmd_render_method);
	if (rep->head.seq)
		fprintf(f, "Ledger head: `%lld:%s`; `labrun audit --head %lld:%s` proves a store still holds\n"
			   "every run this report was computed from, unchanged.\n\n",
			(long long)rep->head.seq, rep->head.digest, (long long)rep->head.seq, rep->head.digest);
	if (rep->head_statement)
		fprintf(f, "<details><summary>The signed ledger head: <code>labrun audit --head REPORT.md</code> names every "
			   "run changed, deleted or reordered before it</summary>\n\n```json\n%s\n```\n\n</details>\n\n",
			rep->head_statement);
	for (i = 0; i < rep->nruns; i++)
		md_run(f, &rep->runs[i]);
	if (sv->nrows)
		md_serving(f, sv);
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

static void write_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv)
{
	char verdict[160], n1[LR_DOUBLE_TEXT], n2[LR_DOUBLE_TEXT], n3[LR_DOUBLE_TEXT], n4[LR_DOUBLE_TEXT],
		n5[LR_DOUBLE_TEXT];
	int i, t, k;

	fputs("run,experiment,baseline,arm,model,layers,tokens,status,baseline_median_ms,arm_median_ms,"
	      "reduction,interval_lo,interval_hi,blocks,flagged,verdict,failure\r\n", f);
	for (i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];

		for (t = 0; t < rr->ntables; t++)
			for (k = 0; k < rr->tables[t].nrows; k++) {
				const struct lr_report_row *w = &rr->tables[t].rows[k];

				fprintf(f, "%lld,", (long long)rr->run.id);
				csv_str(f, rr->design.name);
				fputc(',', f);
				csv_str(f, rr->arm[0]);
				fputc(',', f);
				csv_str(f, rr->arm[rr->tables[t].arm]);
				/* a command experiment's condition goes in the model column (its sizes are 0) */
				fputc(',', f);
				csv_str(f, rr->design.target == LR_TARGET_COMMAND ? w->label : w->model);
				fprintf(f, ",%lld,%lld,%s,", (long long)w->layers, (long long)w->tokens, w->status);
				if (w->has) /* numbers that read back to the same double */
					fprintf(f, "%s,%s,%s,%s,%s,", lr_double_text(n1, w->median_a_ms),
						lr_double_text(n2, w->median_b_ms), lr_double_text(n3, 1 - w->p.ratio),
						w->p.k ? lr_double_text(n4, 1 - w->p.hi) : "", w->p.k ? lr_double_text(n5, 1 - w->p.lo) : "");
				else
					fputs(",,,,,", f);
				fprintf(f, "%d,%d,", w->blocks, w->flagged);
				csv_str(f, w->has ? lr_verdict_metric_text(verdict, sizeof verdict, &w->p, rr->design.margin,
									     rr->arm[rr->tables[t].arm], rr->design.metric)
						  : w->status);
				fputc(',', f);
				csv_str(f, w->failure ? w->failure : "");
				fputs("\r\n", f);
			}
	}
	if (sv->nrows)
		csv_serving(f, sv);
}

static void write_json(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title)
{
	json_t *root = json_object(), *runs = json_array();
	char verdict[160];
	int i, t, k;

	json_object_set_new(root, "report", json_string(title));
	json_object_set_new(root, "labrun_version", json_string(PACKAGE_VERSION));
	if (rep->head.seq)
		json_object_set_new(root, "ledger_head",
				    json_pack("{s:I,s:s,s:o}", "seq", (json_int_t)rep->head.seq, "digest", rep->head.digest,
					      "statement", json_loads(rep->head_statement, 0, NULL)));
	for (i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];
		json_t *jr = json_object(), *tables = json_array();

		json_object_set_new(jr, "run", json_integer(rr->run.id));
		json_object_set_new(jr, "uuid", json_string(rr->run.uuid));
		json_object_set_new(jr, "experiment", json_string(rr->design.name));
		json_object_set_new(jr, "status", json_string(lr_status_name(rr->run.status)));
		json_object_set_new(jr, "definition_sha256", json_string(rr->design.sha256));
		json_object_set_new(jr, "parity", json_pack("{s:i, s:i, s:i}", "passed", rr->passed, "failed", rr->failed,
							  "missing", rr->missing));
		for (t = 0; t < rr->ntables; t++) {
			json_t *rows = json_array();

			for (k = 0; k < rr->tables[t].nrows; k++) {
				const struct lr_report_row *w = &rr->tables[t].rows[k];
				json_t *jw = json_pack("{s:i, s:s, s:s, s:I, s:I, s:s, s:i, s:i}", "condition", w->cond, "label",
						       w->label, "model", w->model, "layers", (json_int_t)w->layers, "tokens",
						       (json_int_t)w->tokens, "status", w->status, "blocks", w->blocks,
						       "flagged", w->flagged);

				if (w->has) {
					json_object_set_new(jw, "baseline_median_ms", json_real(w->median_a_ms));
					json_object_set_new(jw, "arm_median_ms", json_real(w->median_b_ms));
					json_object_set_new(jw, "ratio", json_real(w->p.ratio));
					json_object_set_new(jw, "interval", w->p.k ? json_pack("[f, f]", w->p.lo, w->p.hi) : json_null());
					json_object_set_new(jw, "verdict",
							    json_string(lr_verdict_metric_text(verdict, sizeof verdict, &w->p,
											       rr->design.margin,
											       rr->arm[rr->tables[t].arm],
											       rr->design.metric)));
				}
				if (w->failure)
					json_object_set_new(jw, "failure", json_string(w->failure));
				json_array_append_new(rows, jw);
			}
			json_array_append_new(tables, json_pack("{s:s, s:s, s:o}", "baseline", rr->arm[0], "arm",
								rr->arm[rr->tables[t].arm], "rows", rows));
		}
		json_object_set_new(jr, "tables", tables);
		json_array_append_new(runs, jr);
	}
	json_object_set_new(root, "runs", runs);
	if (sv->nrows)
		json_object_set_new(root, "serving", json_serving(sv));
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER); /* reals in 17 digits: they read back exactly */
	fputc('\n', f);
	json_decref(root);
}

void cmd_render_report(FILE *f, const char *format, const struct lr_report *rep, const struct lr_serving_report *sv,
		       const char *title)
{
	if (!strcmp(format, "csv"))
		write_csv(f, rep, sv);
	else if (!strcmp(format, "json"))
		write_json(f, rep, sv, title);
	else
		write_md(f, rep, sv, title);
}

/* 'format' of the report into a new string. */
static int render_text(const char *format, const struct lr_report *rep, const struct lr_serving_report *sv,
		       const char *title, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	cmd_render_report(f, format, rep, sv, title);
	return fclose(f) == 0 ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

int cmd_render_crate_report(struct lr_store *st, const int64_t *ids, int n, const char *title, char **md, char **json)
{
	struct lr_serving_report sv;
	struct lr_report rep;
	int rc;

	*md = *json = NULL;
	memset(&sv, 0, sizeof sv);
	if ((rc = lr_report_build_runs(st, ids, n, &rep)))
		return rc == LR_ENOTFOUND ? 0 : rc;
	if (!(rc = lr_serving_report_build(st, rep.ids, rep.nids, NULL, 0, &sv)) && (rep.nruns || sv.nrows) &&
	    !(rc = render_text("md", &rep, &sv, title, md)))
		rc = render_text("json", &rep, &sv, title, json);
	lr_serving_report_release(&sv);
	lr_report_release(&rep);
	return rc;
}

int cmd_crate_files(struct lr_store *st, const int64_t *ids, int n, const char *title, struct cmd_crate_files *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = cmd_render_crate_report(st, ids, n, title, &out->md, &out->json)))
		return rc;
	if (out->md) {
		out->files[out->n++] = (struct lr_crate_file){ "report.md", out->md };
		out->files[out->n++] = (struct lr_crate_file){ "report.json", out->json };
	}
	return 0;
}

void cmd_crate_files_release(struct cmd_crate_files *f)
{
	free(f->md);
	free(f->json);
	memset(f, 0, sizeof *f);
}
