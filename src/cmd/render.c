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

/* A table in Markdown, or why it is missing. */
static void md_or_error(FILE *f, int rc, const struct lr_table *t)
{
	if (rc)
		fprintf(f, "(%s: the table is missing)\n", lr_error_msg());
	else
		cmd_table_md(f, t);
}

void cmd_render_table(struct lr_table *t, struct cmd_render_heads *h, const struct lr_report_run *rr,
		      const struct lr_report_table *tb)
{
	const struct lr_stored_design *d = &rr->design;
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm], *metric = d->metric[0] ? d->metric : "wall time ms";
	int i, cmd = d->target == LR_TARGET_COMMAND;
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
		if (cmd)
			snprintf(cell[0], sizeof cell[0], "%+.1f%%", (w->p.ratio - 1) * 100);
		else
			snprintf(cell[0], sizeof cell[0], "%.1f%%", (1 - w->p.ratio) * 100);
		if (w->p.k && cmd)
			snprintf(cell[1], sizeof cell[1], "[%+.1f%%, %+.1f%%]", (w->p.lo - 1) * 100, (w->p.hi - 1) * 100);
		else if (w->p.k)
			snprintf(cell[1], sizeof cell[1], "[%.1f%%, %.1f%%]", (1 - w->p.hi) * 100, (1 - w->p.lo) * 100);
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

/* One table of a run, in Markdown. */
static void md_table(FILE *f, const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	struct cmd_render_heads h;
	struct lr_table t;

	cmd_render_table(&t, &h, rr, tb);
	fprintf(f, "\n### %s (%s) vs %s (%s), run %lld\n\n", rr->arm[tb->arm], rr->kernel[tb->arm], rr->arm[0],
		rr->kernel[0], (long long)rr->run.id);
	md_or_error(f, lr_table_error(&t), &t);
	lr_table_release(&t);
}

void cmd_render_tables(FILE *f, const struct lr_report_run *rr)
{
	for (int t = 0; t < rr->ntables; t++)
		md_table(f, rr, &rr->tables[t]);
}

static void md_run(FILE *f, const struct lr_report_run *rr)
{
	char floor[512];
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
	fputs("* Noise floor: ", f);
	cmd_md_text(f, lr_report_floor_text(floor, sizeof floor, rr), 0);
	fputc('\n', f);
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

/* A cell in words: parity over its comparisons, then its gate. */
const char *cmd_render_cell_text(char *buf, size_t len, const struct lr_serving_cell *c)
{
	int off = 0;

	if (!c->sets)
		return snprintf(buf, len, "uncollected"), buf;
	if (c->within.comparisons)
		off = snprintf(buf, len, "%lld/%lld exact", (long long)c->within.exact, (long long)c->within.compared);
	if (c->cross.comparisons && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, "%scross-route %lld/%lld exact", off ? ", " : "",
				(long long)c->cross.exact, (long long)c->cross.compared);
	if (!off)
		off = snprintf(buf, len, "%lld responses, not compared", (long long)c->cases);
	if (c->gated && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off, "; strict %lld/%lld, formats %lld/%lld, EOS %lld/%lld",
			 (long long)c->strict, (long long)c->gate_total, (long long)c->formats, (long long)c->gate_total,
			 (long long)c->eos, (long long)c->gate_total);
	return buf;
}

int cmd_render_matrix(struct lr_table *t, const struct lr_serving_report *sv)
{
	struct lr_column *cols = calloc((size_t)sv->nroutes + 1, sizeof *cols);
	char cell[256];

	if (!cols)
		return lr_error_set(LR_ENOMEM, "out of memory");
	cols[0] = (struct lr_column){ "row", "Run / condition", 0 };
	for (int k = 0; k < sv->nroutes; k++)
		cols[k + 1] = (struct lr_column){ sv->routes[k], sv->routes[k], 0 };
	lr_table_init(t, cols, sv->nroutes + 1);
	for (int r = 0; r < sv->nrows; r++) {
		lr_table_text(t, sv->rows[r].label);
		for (int k = 0; k < sv->nroutes; k++)
			lr_table_text(t, cmd_render_cell_text(cell, sizeof cell, &sv->cells[r * sv->nroutes + k]));
	}
	return lr_table_error(t);
}

void cmd_render_matrix_release(struct lr_table *t)
{
	free((void *)t->cols);
	lr_table_release(t);
}

static void dist_cells(struct lr_table *t, const struct lr_serving_dist *d)
{
	if (d->n) {
		lr_table_real(t, d->median, 3);
		lr_table_real(t, d->p90, 3);
	} else {
		lr_table_none(t);
		lr_table_none(t);
	}
}

int cmd_render_route_stats(struct lr_table *t, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "route", "Route", 0 },
		{ "latency_ms", "latency ms", LR_COL_NUMBER },
		{ "latency_ms_p90", "p90", LR_COL_NUMBER },
		{ "ttft_ms", "TTFT ms", LR_COL_NUMBER },
		{ "ttft_ms_p90", "p90", LR_COL_NUMBER },
		{ "tokens_per_s", "tokens/s", LR_COL_NUMBER },
		{ "tokens_per_s_p90", "p90", LR_COL_NUMBER },
		{ "responses", "responses timed", LR_COL_NUMBER },
	};

	lr_table_init(t, cols, sizeof cols / sizeof cols[0]);
	for (int k = 0; k < sv->nroutes; k++) {
		lr_table_text(t, sv->routes[k]);
		dist_cells(t, &sv->stats[k].latency_ms);
		dist_cells(t, &sv->stats[k].ttft_ms);
		dist_cells(t, &sv->stats[k].tokens_per_s);
		lr_table_int(t, sv->stats[k].latency_ms.n);
	}
	return lr_table_error(t);
}

const char *cmd_render_cells_text(char *buf, size_t len, const struct lr_serving_report *sv)
{
	lr_fmt_cut(buf, len, "%d cells: %d collected, %d uncollected; of the collected, within-route parity %d exact, "
		   "%d failing, %d never compared; cross-route parity %d exact, %d failing, %d never compared; gates %d "
		   "passing, %d failing, %d never scored", sv->ncells, sv->collected, sv->uncollected, sv->within.exact,
		   sv->within.failing, sv->within.unchecked, sv->cross.exact, sv->cross.failing, sv->cross.unchecked,
		   sv->gates.exact, sv->gates.failing, sv->gates.unchecked);
	return buf;
}

const char cmd_render_cells_intro[] =
	"Cells: within-route parity, exact/total over a route's repeated executions compared with its first; "
	"cross-route parity, exact/total over its comparisons with another route (reference_route, or "
	"labrun compare); then the scores of its latest frozen quality gate. Exact means equal token arrays "
	"and equal texts; a comparison also fails when a finish reason differs.";

const char cmd_render_cells_outro[] =
	"Paired route comparisons are the experiment tables above: with the method's 95% interval from 6 "
	"paired blocks, otherwise \"N timed batches, no interval\".";

static void md_serving(FILE *f, const struct lr_serving_report *sv)
{
	struct lr_table t;
	char text[512];
	size_t i;

	fprintf(f, "## Serving evidence\n\n");
	fprintf(f, "%s\n\n", cmd_render_cells_intro);
	md_or_error(f, cmd_render_matrix(&t, sv), &t);
	cmd_render_matrix_release(&t);
	fprintf(f, "\n%s.\n\nFailing and missing cases:%s\n", cmd_render_cells_text(text, sizeof text, sv),
		sv->failing.n ? "" : " none.");
	for (i = 0; i < sv->failing.n; i++) {
		fputs("* ", f);
		cmd_md_text(f, sv->failing.v[i], 0);
		fputc('\n', f);
	}
	fprintf(f, "\nPer route, over all its responses (median and p90):\n\n");
	md_or_error(f, cmd_render_route_stats(&t, sv), &t);
	lr_table_release(&t);
	fprintf(f, "\n%s\n", cmd_render_cells_outro);
}

static int csv_serving(FILE *f, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "run", "", LR_COL_NUMBER },	    { "condition", "", LR_COL_NUMBER }, { "row", "", 0 },
		{ "route", "", 0 },
		{ "sets", "", LR_COL_NUMBER },
		{ "responses", "", LR_COL_NUMBER },
		{ "within_comparisons", "", LR_COL_NUMBER },
		{ "within_failing", "", LR_COL_NUMBER },
		{ "within_exact", "", LR_COL_NUMBER },
		{ "within_compared", "", LR_COL_NUMBER },
		{ "cross_comparisons", "", LR_COL_NUMBER },
		{ "cross_failing", "", LR_COL_NUMBER },
		{ "cross_exact", "", LR_COL_NUMBER },
		{ "cross_compared", "", LR_COL_NUMBER },
		{ "gated", "", LR_COL_NUMBER },
		{ "strict", "", LR_COL_NUMBER },
		{ "formats", "", LR_COL_NUMBER },
		{ "eos", "", LR_COL_NUMBER },
		{ "gate_total", "", LR_COL_NUMBER },
		{ "cell", "", 0 },
	};
	struct lr_table t;
	char cell[256];
	int r, k, rc;

	lr_table_init(&t, cols, sizeof cols / sizeof cols[0]);
	for (r = 0; r < sv->nrows; r++)
		for (k = 0; k < sv->nroutes; k++) {
			const struct lr_serving_cell *c = &sv->cells[r * sv->nroutes + k];
			const long long v[] = { c->sets, c->cases, c->within.comparisons, c->within.failing,
						c->within.exact, c->within.compared, c->cross.comparisons, c->cross.failing,
						c->cross.exact, c->cross.compared, c->gated, c->strict, c->formats, c->eos,
						c->gate_total };

			lr_table_int(&t, sv->rows[r].run);
			lr_table_int(&t, sv->rows[r].cond);
			lr_table_text(&t, sv->rows[r].label);
			lr_table_text(&t, sv->routes[k]);
			for (size_t j = 0; j < sizeof v / sizeof *v; j++)
				lr_table_int(&t, v[j]);
			lr_table_text(&t, cmd_render_cell_text(cell, sizeof cell, c));
		}
	fputs("\r\n", f);
	if (!(rc = lr_table_error(&t)))
		rc = cmd_table_csv(f, &t, 1);
	lr_table_release(&t);
	return rc;
}

static json_t *json_dist(const struct lr_serving_dist *d)
{
	return d->n ? json_pack("{s:I, s:f, s:f}", "n", (json_int_t)d->n, "median", d->median, "p90", d->p90) : json_null();
}

static json_t *json_parity(const struct lr_serving_parity *p)
{
	return json_pack("{s:i, s:i, s:I, s:I}", "comparisons", p->comparisons, "failing", p->failing, "exact",
			 (json_int_t)p->exact, "compared", (json_int_t)p->compared);
}

static json_t *json_tally(const struct lr_serving_tally *t, const char *pass)
{
	return json_pack("{s:i, s:i, s:i}", pass, t->exact, "failing", t->failing, "unchecked", t->unchecked);
}

static json_t *json_serving(const struct lr_serving_report *sv)
{
	json_t *o = json_object(), *routes = json_array(), *rows = json_array(), *failing = json_array(), *stats = json_array();
	char cell[256], text[512];
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

			json_array_append_new(cells, json_pack("{s:s, s:I, s:I, s:o, s:o, s:b, s:I, s:I, s:I, s:I, s:s}",
							       "route", sv->routes[k], "sets", (json_int_t)c->sets,
							       "responses", (json_int_t)c->cases, "within_route",
							       json_parity(&c->within), "cross_route",
							       json_parity(&c->cross), "gated", c->gated, "strict",
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
	json_object_set_new(o, "cells", json_pack("{s:i, s:i, s:i, s:o, s:o, s:o, s:s}", "total", sv->ncells, "collected",
						  sv->collected, "uncollected", sv->uncollected, "within_route",
						  json_tally(&sv->within, "exact"), "cross_route", json_tally(&sv->cross, "exact"),
						  "gates", json_tally(&sv->gates, "passing"), "sentence",
						  cmd_render_cells_text(text, sizeof text, sv)));
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

static int write_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "run", "", LR_COL_NUMBER },		{ "experiment", "", 0 },	     { "baseline", "", 0 },
		{ "arm", "", 0 },			{ "model", "", 0 },		     { "layers", "", LR_COL_NUMBER },
		{ "tokens", "", LR_COL_NUMBER },	{ "status", "", 0 },		     { "baseline_median_ms", "", LR_COL_NUMBER },
		{ "arm_median_ms", "", LR_COL_NUMBER }, { "reduction", "", LR_COL_NUMBER },	     { "interval_lo", "", LR_COL_NUMBER },
		{ "interval_hi", "", LR_COL_NUMBER },	{ "blocks", "", LR_COL_NUMBER },     { "flagged", "", LR_COL_NUMBER },
		{ "verdict", "", 0 },			{ "failure", "", 0 },
	};
	struct lr_table t;
	char verdict[160];
	int i, k, rc;

	lr_table_init(&t, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];

		for (int n = 0; n < rr->ntables; n++)
			for (k = 0; k < rr->tables[n].nrows; k++) {
				const struct lr_report_row *w = &rr->tables[n].rows[k];
				const char *arm = rr->arm[rr->tables[n].arm];

				lr_table_int(&t, rr->run.id);
				lr_table_text(&t, rr->design.name);
				lr_table_text(&t, rr->arm[0]);
				lr_table_text(&t, arm);
				/* a command experiment's condition goes in the model column (its sizes are 0) */
				lr_table_text(&t, rr->design.target == LR_TARGET_COMMAND ? w->label : w->model);
				lr_table_int(&t, w->layers);
				lr_table_int(&t, w->tokens);
				lr_table_text(&t, w->status);
				if (w->has) { /* numbers that read back to the same double */
					lr_table_real(&t, w->median_a_ms, 3);
					lr_table_real(&t, w->median_b_ms, 3);
					lr_table_real(&t, 1 - w->p.ratio, 3);
					if (w->p.k) {
						lr_table_real(&t, 1 - w->p.hi, 3);
						lr_table_real(&t, 1 - w->p.lo, 3);
					} else {
						lr_table_none(&t);
						lr_table_none(&t);
					}
				} else {
					for (int j = 0; j < 5; j++)
						lr_table_none(&t);
				}
				lr_table_int(&t, w->blocks);
				lr_table_int(&t, w->flagged);
				lr_table_text(&t, w->has ? lr_report_verdict(verdict, sizeof verdict, rr, w, arm) : w->status);
				lr_table_text(&t, w->failure ? w->failure : "");
			}
	}
	if (!(rc = lr_table_error(&t)))
		rc = cmd_table_csv(f, &t, 1);
	lr_table_release(&t);
	if (!rc && sv->nrows)
		rc = csv_serving(f, sv);
	return rc;
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
							    json_string(lr_report_verdict(verdict, sizeof verdict, rr, w,
											  rr->arm[rr->tables[t].arm])));
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

int cmd_render_report(FILE *f, const char *format, const struct lr_report *rep, const struct lr_serving_report *sv,
		      const char *title)
{
	if (!strcmp(format, "csv"))
		return write_csv(f, rep, sv);
	if (!strcmp(format, "json"))
		write_json(f, rep, sv, title);
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
	rc = cmd_render_report(f, format, rep, sv, title);
	if (fclose(f) && !rc)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	return rc;
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
