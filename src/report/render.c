/*
 * The report's writers, shared by 'report', 'manifest', 'archive' and
 * 'verify' (which compares a crate's report with one recomputed from its
 * rows): Markdown, CSV and JSON from the report model. The HTML page is
 * report-html.c's.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/csv.h"
#include "base/error.h"
#include "report/report.h"
#include "report/text.h"
#include "report/render-int.h"
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

/* A table in Markdown, or why it is missing. */
static void md_or_error(FILE *f, int rc, const struct lr_table *t)
{
	if (rc)
		fprintf(f, "(%s: the table is missing)\n", lr_error_msg());
	else
		lr_render_table_md(f, t);
}

void lr_render_table(struct lr_table *t, struct lr_render_heads *h, const struct lr_report_run *rr,
		      const struct lr_report_table *tb)
{
	const struct lr_stored_design *d = &rr->design;
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm], *metric = d->metric[0] ? d->metric : "wall time ms";
	int i, cmd = d->target == LR_TARGET_COMMAND;
	double effect, lo, hi;
	char cell[3][160];
	const struct lr_column cols[9] = {
		{ "condition", cmd ? "Condition" : "Shape layers/input", 0 },
		{ "baseline_median", h->text[0], LR_COL_NUMBER },
		{ "arm_median", h->text[1], LR_COL_NUMBER },
		{ "change", cmd ? "Change" : "Reduction", LR_COL_NUMBER },
		{ "interval", "95% interval", 0 },
		{ "blocks", "blocks", LR_COL_NUMBER },
		{ "flagged", "flagged reps", LR_COL_NUMBER },
		{ "drift", h->text[2], 0 },
		{ "verdict", "verdict", 0 },
	};

	memcpy(h->cols, cols, sizeof cols);
	snprintf(h->text[0], sizeof h->text[0], "%s median %s", an, cmd ? metric : "ms");
	snprintf(h->text[1], sizeof h->text[1], "%s median %s", bn, cmd ? metric : "ms");
	snprintf(h->text[2], sizeof h->text[2], "drift %s/%s", an, bn);
	lr_table_init(t, h->cols, 9);
	for (i = 0; i < tb->nrows; i++) {
		const struct lr_report_row *w = &tb->rows[i];

		lr_table_text(t, w->label);
		if (!w->has) {
			for (int k = 0; k < 4; k++)
				lr_table_none(t);
			lr_table_int(t, w->blocks);
			lr_table_int(t, w->flagged);
			lr_table_none(t);
			lr_table_text(t, w->status);
			continue;
		}
		lr_table_real(t, w->median_a_ms, 3);
		lr_table_real(t, w->median_b_ms, 3);
		lr_report_pct(rr, w, &effect, &lo, &hi);
		snprintf(cell[0], sizeof cell[0], cmd ? "%+.1f%%%s" : "%.1f%%%s", effect,
			 lr_report_sign_disagrees(w) ? " (a)" : "");
		if (w->p.k)
			snprintf(cell[1], sizeof cell[1], cmd ? "[%+.1f%%, %+.1f%%]" : "[%.1f%%, %.1f%%]", lo, hi);
		else
			snprintf(cell[1], sizeof cell[1], "%d timed batches, no interval", w->blocks);
		snprintf(cell[2], sizeof cell[2], "%+.1f%%/%+.1f%%%s", w->drift_a * 100, w->drift_b * 100,
			 w->drifted ? " DRIFT" : "");
		lr_table_text(t, cell[0]);
		lr_table_text(t, cell[1]);
		lr_table_int(t, w->blocks);
		lr_table_int(t, w->flagged);
		lr_table_text(t, cell[2]);
		lr_table_text(t, lr_report_verdict(cell[0], sizeof cell[0], rr, w, bn));
	}
}

const char lr_render_sign_note[] =
	"(a) The medians and the estimate point different ways here. The medians pool every repetition of "
	"each arm; the estimate is the median of the paired block ratios, which cancels drift between "
	"blocks. For an effect this close to zero the two may differ in sign; the estimate and its "
	"interval are the method's figures.";

int lr_render_sign_noted(const struct lr_report_table *tb)
{
	for (int k = 0; k < tb->nrows; k++)
		if (lr_report_sign_disagrees(&tb->rows[k]))
			return 1;
	return 0;
}

/* One table of a run, in Markdown. */
static void md_table(FILE *f, const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	struct lr_render_heads h;
	struct lr_table t;

	lr_render_table(&t, &h, rr, tb);
	fprintf(f, "\n### %s (%s) vs %s (%s), run %lld\n\n", rr->arm[tb->arm], rr->kernel[tb->arm], rr->arm[0],
		rr->kernel[0], (long long)rr->run.id);
	md_or_error(f, lr_table_error(&t), &t);
	lr_table_release(&t);
	if (lr_render_sign_noted(tb))
		fprintf(f, "\n%s\n", lr_render_sign_note);
}

void lr_render_tables(FILE *f, const struct lr_report_run *rr)
{
	for (int t = 0; t < rr->ntables; t++)
		md_table(f, rr, &rr->tables[t]);
}

static void md_run(FILE *f, const struct lr_report_run *rr)
{
	char floor[512];
	const struct lr_run *r = &rr->run;
	const struct lr_stored_design *d = &rr->design;
	char *cmdline = lr_argv_text(r->argv_json);
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
	fputs("* Noise floor: ", f);
	lr_md_text(f, lr_report_floor_text(floor, sizeof floor, rr), 0);
	fputc('\n', f);
	lr_render_tables(f, rr);
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

/* A cell in words: parity over its comparisons, then its gate. */
static void md_serving(FILE *f, const struct lr_serving_report *sv)
{
	struct lr_table t;
	char text[512];
	size_t i;

	fprintf(f, "## Serving evidence\n\n");
	fprintf(f, "%s\n\n", lr_render_cells_intro);
	md_or_error(f, lr_render_matrix(&t, sv), &t);
	lr_render_matrix_release(&t);
	fprintf(f, "\n%s.\n\nFailing and missing cases:%s\n", lr_render_cells_text(text, sizeof text, sv),
		sv->failing.n ? "" : " none.");
	for (i = 0; i < sv->failing.n; i++) {
		fputs("* ", f);
		lr_md_text(f, sv->failing.v[i], 0);
		fputc('\n', f);
	}
	fprintf(f, "\nPer route, over all its responses (median and p90):\n\n");
	md_or_error(f, lr_render_route_stats(&t, sv), &t);
	lr_table_release(&t);
	fprintf(f, "\n%s\n", lr_render_cells_outro);
	if (!sv->npasses)
		return;
	fprintf(f, "\n%s\n\n", lr_render_passes_intro);
	md_or_error(f, lr_render_passes(&t, sv), &t);
	lr_table_release(&t);
	fputc('\n', f);
	md_or_error(f, lr_render_latency(&t, sv), &t);
	lr_table_release(&t);
	fputc('\n', f);
	md_or_error(f, lr_render_occupancy(&t, sv), &t);
	lr_table_release(&t);
}

/* The method in one paragraph: the same words in every format that has prose. */
const char lr_render_method[] =
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
	fprintf(f, "Regenerated from the store by labrun %s: %s\n\n", PACKAGE_VERSION, lr_render_method);
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

int lr_render_report(FILE *f, const char *format, const struct lr_report *rep, const struct lr_serving_report *sv,
		      const char *title)
{
	if (!strcmp(format, "csv"))
		return lr_render_csv(f, rep, sv);
	if (!strcmp(format, "json"))
		lr_render_json(f, rep, sv, title);
	else
		write_md(f, rep, sv, title);
	return 0;
}

/* 'format' of the report into a new string. */
static int render_text(const char *format, const struct lr_report *rep, const struct lr_serving_report *sv,
		       const char *title, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int rc;

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_render_report(f, format, rep, sv, title);
	if (fclose(f) && !rc)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	return rc;
}

int lr_render_crate_files(struct lr_store *st, const int64_t *ids, int n, const char *title, struct lr_crate_report *out)
{
	struct lr_serving_report sv;
	struct lr_report rep;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&sv, 0, sizeof sv);
	if ((rc = lr_report_build_runs(st, ids, n, &rep)))
		return rc == LR_ENOTFOUND ? 0 : rc;
	if (!(rc = lr_serving_report_build(st, rep.ids, rep.nids, NULL, 0, &sv)) && (rep.nruns || sv.nrows) &&
	    !(rc = render_text("md", &rep, &sv, title, &out->md)))
		rc = render_text("json", &rep, &sv, title, &out->json);
	lr_serving_report_release(&sv);
	lr_report_release(&rep);
	if (rc)
		lr_render_crate_files_release(out);
	return rc;
}

void lr_render_crate_files_release(struct lr_crate_report *f)
{
	free(f->md);
	free(f->json);
	memset(f, 0, sizeof *f);
}
