/*
 * The serving evidence as every format shows it: a cell's text, the matrix,
 * the per-route timing table and the sentence that accounts for every cell,
 * with the prose around them (render.c's Markdown, data.c's CSV and JSON,
 * html.c's page and outcome.c's 'run' printout use them).
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "report/doc.h"
#include "report/report.h"
#include "report/text.h"
#include "serving/report.h"

const char *lr_render_cell_text(char *buf, size_t len, const struct lr_serving_cell *c)
{
	int off = 0;

	if (!c->declared)
		return snprintf(buf, len, "-"), buf;
	if (!c->sets)
		return snprintf(buf, len, "uncollected"), buf;
	if (c->within.comparisons)
		off = snprintf(buf, len, "%lld/%lld exact", (long long)c->within.exact, (long long)c->within.compared);
	if (c->cross.comparisons && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, "%scross-route %lld/%lld exact", off ? ", " : "",
				(long long)c->cross.exact, (long long)c->cross.compared);
	if (!off && c->referenced)
		off = snprintf(buf, len, "%lld responses, the reference of %lld comparison%s", (long long)c->cases,
			       (long long)c->referenced, c->referenced == 1 ? "" : "s");
	if (!off)
		off = snprintf(buf, len, "%lld responses, not compared", (long long)c->cases);
	if (c->not_collected && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, ", %lld not collected", (long long)c->not_collected);
	if (c->gated && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - (size_t)off, "; strict %lld/%lld, formats %lld/%lld, EOS %lld/%lld",
			 (long long)c->strict, (long long)c->gate_total, (long long)c->formats,
			 (long long)c->gate_total, (long long)c->eos, (long long)c->gate_total);
	return buf;
}

int lr_render_matrix(struct lr_table *t, const struct lr_serving_report *sv)
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
			lr_table_text(t, lr_render_cell_text(cell, sizeof cell, &sv->cells[r * sv->nroutes + k]));
	}
	return lr_table_error(t);
}

void lr_render_matrix_release(struct lr_table *t)
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

int lr_render_route_stats(struct lr_table *t, const struct lr_serving_report *sv)
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

const char *lr_render_cells_text(char *buf, size_t len, const struct lr_serving_report *sv)
{
	lr_fmt_cut(
		buf, len,
		"%d cells: %d collected, %d uncollected; of the collected, within-route parity %d exact, "
		"%d failing, %d never compared; cross-route parity %d exact, %d failing, %d never compared; gates %d "
		"passing, %d failing, %d never scored",
		sv->ncells, sv->collected, sv->uncollected, sv->within.exact, sv->within.failing, sv->within.unchecked,
		sv->cross.exact, sv->cross.failing, sv->cross.unchecked, sv->gates.exact, sv->gates.failing,
		sv->gates.unchecked);
	if (sv->undeclared) {
		size_t n = strlen(buf);

		lr_fmt_cut(buf + n, len - n,
			   " (%d place%s of the grid marked - hold a route the row's run never declared: no cell)",
			   sv->undeclared, sv->undeclared == 1 ? "" : "s");
	}
	return buf;
}

const char lr_render_cells_intro[] =
	"Cells: within-route parity, exact/total over a route's repeated executions compared with its first; "
	"cross-route parity, exact/total over its comparisons with another route (reference_route, or "
	"labrun compare); then the scores of its latest frozen quality gate. Exact means equal token arrays "
	"and equal texts; a comparison also fails when a finish reason differs.";

const char lr_render_cells_outro[] =
	"Paired route comparisons are the experiment tables above: with the method's 95% interval from 6 "
	"paired blocks, otherwise \"N timed batches, no interval\".";

/* A pass's name in every table: its run and set, and its condition's label when it has one. */
static const char *pass_label(char *buf, size_t len, const struct lr_serving_report *sv, const struct lr_pass_stats *p)
{
	(void)sv;
	snprintf(buf, len, "run %lld, set %lld", (long long)p->run, (long long)p->set);
	return buf;
}

/* A table with a row (or rows) per collected pass: 'row' adds a pass's, its label given. */
static int pass_table(struct lr_table *t, const struct lr_column *cols, int ncols, const struct lr_serving_report *sv,
		      void (*row)(struct lr_table *, const char *, const struct lr_pass_stats *))
{
	char label[96];

	lr_table_init(t, cols, ncols);
	for (int i = 0; i < sv->npasses; i++)
		row(t, pass_label(label, sizeof label, sv, &sv->passes[i]), &sv->passes[i]);
	return lr_table_error(t);
}

static void pass_row(struct lr_table *t, const char *label, const struct lr_pass_stats *p)
{
	lr_table_text(t, label);
	lr_table_text(t, p->route);
	lr_table_int(t, p->requests);
	lr_table_int(t, p->completed);
	lr_table_int(t, p->failed);
	lr_table_int(t, p->unsent);
	lr_table_real(t, p->duration_s, 3);
	lr_table_real(t, p->request_rate, 2);
	lr_table_real(t, p->output_rate, 1);
	lr_table_real(t, p->total_rate, 1);
	if (p->slo_ms[0] > 0 || p->slo_ms[1] > 0 || p->slo_ms[2] > 0)
		lr_table_real(t, p->goodput, 2);
	else
		lr_table_none(t);
	if (!p->level_asked) {
		lr_table_none(t);
		lr_table_int(t, p->peak);
		lr_table_real(t, p->mean_inflight, 2);
		lr_table_none(t);
		lr_table_none(t);
	} else {
		lr_table_int(t, p->concurrency);
		lr_table_int(t, p->peak);
		lr_table_real(t, p->mean_inflight, 2);
		lr_table_real(t, p->at_level * 100, 1);
		lr_table_text(t, p->reached ? "yes" : "NEVER");
	}
	lr_table_text(t, p->valid ? "VALID" : "INVALID");
}

int lr_render_passes(struct lr_table *t, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "pass", "Pass", 0 },
		{ "route", "Route", 0 },
		{ "requests", "requests", LR_COL_NUMBER },
		{ "completed", "completed", LR_COL_NUMBER },
		{ "failed", "failed", LR_COL_NUMBER },
		{ "unsent", "not sent", LR_COL_NUMBER },
		{ "duration_s", "duration s", LR_COL_NUMBER },
		{ "request_rate", "req/s", LR_COL_NUMBER },
		{ "output_rate", "output tok/s", LR_COL_NUMBER },
		{ "total_rate", "total tok/s", LR_COL_NUMBER },
		{ "goodput", "goodput req/s", LR_COL_NUMBER },
		{ "concurrency", "concurrency asked", LR_COL_NUMBER },
		{ "peak", "peak in flight", LR_COL_NUMBER },
		{ "mean_inflight", "mean in flight", LR_COL_NUMBER },
		{ "at_level_pct", "% of time at asked", LR_COL_NUMBER },
		{ "reached", "reached", 0 },
		{ "verdict", "verdict", 0 },
	};

	return pass_table(t, cols, sizeof cols / sizeof cols[0], sv, pass_row);
}

/* A pass's share of time at 0..peak requests in flight, as one source saw it: a row each. */
static void occupancy_rows(struct lr_table *t, const char *label, const char *source, const double *share, int peak)
{
	for (int k = 0; k <= peak; k++) {
		lr_table_text(t, label);
		lr_table_text(t, source);
		lr_table_int(t, k);
		lr_table_real(t, share[k] * 100, 1);
	}
}

static void occupancy_row(struct lr_table *t, const char *label, const struct lr_pass_stats *p)
{
	occupancy_rows(t, label, "client", p->occupancy, p->peak);
	if (p->gauge_occupancy)
		occupancy_rows(t, label, "server gauge", p->gauge_occupancy, p->gauge_peak);
}

int lr_render_occupancy(struct lr_table *t, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "pass", "Pass", 0 },
		{ "source", "source", 0 },
		{ "in_flight", "requests in flight", LR_COL_NUMBER },
		{ "time_pct", "% of the time", LR_COL_NUMBER },
	};

	return pass_table(t, cols, sizeof cols / sizeof cols[0], sv, occupancy_row);
}

static void latency_row(struct lr_table *t, const char *label, const struct lr_pass_stats *p)
{
	const struct lr_dist4 *d[] = { &p->ttft_ms,       &p->tpot_ms,       &p->itl_ms, &p->e2el_ms,
				       &p->sched_ttft_ms, &p->sched_e2el_ms, &p->lag_ms };
	static const char *const names[] = { "TTFT", "TPOT", "ITL", "E2EL", "TTFT_sched", "E2EL_sched", "lag" };

	for (int m = 0; m < (p->has_checks ? 7 : 4); m++) {
		lr_table_text(t, label);
		lr_table_text(t, names[m]);
		lr_table_int(t, d[m]->n);
		if (!d[m]->n) {
			for (int k = 0; k < 4; k++)
				lr_table_none(t);
			continue;
		}
		lr_table_real(t, d[m]->mean, 3);
		lr_table_real(t, d[m]->median, 3);
		lr_table_real(t, d[m]->p90, 3);
		lr_table_real(t, d[m]->p99, 3);
	}
}

int lr_render_latency(struct lr_table *t, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "pass", "Pass", 0 },
		{ "metric", "metric", 0 },
		{ "n", "n", LR_COL_NUMBER },
		{ "mean_ms", "mean ms", LR_COL_NUMBER },
		{ "median_ms", "median ms", LR_COL_NUMBER },
		{ "p90_ms", "p90 ms", LR_COL_NUMBER },
		{ "p99_ms", "p99 ms", LR_COL_NUMBER },
	};

	return pass_table(t, cols, sizeof cols / sizeof cols[0], sv, latency_row);
}

const char lr_render_passes_intro[] =
	"Collected passes (labrun collect), recomputed from every request's row as vLLM's bench serve defines "
	"the figures: throughput over the pass, from its first request sent to its last ended; TTFT from sending "
	"to the first content event; TPOT = (E2EL - TTFT) / (output tokens - 1); ITL the gaps between content "
	"events; E2EL from sending to the stream's end; TTFT_sched and E2EL_sched the same from the time each "
	"request was due (its arrival in the schedule), lag from due to sent. Requests in flight come from the client's own "
	"timestamps: a pass that never had the asked concurrency in flight says NEVER (a pass at a rate with no "
	"concurrency cap has no level to reach: '-'). The lane occupancy is the "
	"share of each pass with k requests in flight: as the client saw them (source client), and, where the "
	"server's running gauge was sampled (--metrics-url), as the server said, each sample held until the next "
	"(source server gauge, over the sampled span).";

/* One table of the serving evidence, or why it is missing; a matrix's columns are its own (freed here). */
static void doc_table(struct lr_doc *d, int (*build)(struct lr_table *, const struct lr_serving_report *),
		      const struct lr_serving_report *sv)
{
	struct lr_table t = { 0 };
	int rc = build(&t, sv);
	const struct lr_column *cols = t.cols;

	lr_doc_table(d, rc, &t);
	if (build == lr_render_matrix)
		free((void *)cols);
}

void lr_render_serving_doc(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_doc_block *b;
	char text[512];

	lr_doc_add(&lr_doc_heading(d, 2)->text, "Serving evidence");
	lr_doc_add(&lr_doc_prose(d)->text, lr_render_cells_intro);
	doc_table(d, lr_render_matrix, sv);
	lr_doc_addf(&lr_doc_prose(d)->text, "%s.", lr_render_cells_text(text, sizeof text, sv));
	b = lr_doc_facts(d);
	lr_doc_add(&b->text, "Failing and missing cases");
	for (size_t i = 0; i < sv->failing.n; i++)
		lr_doc_add(lr_doc_item(d, b, 0), sv->failing.v[i]);
	lr_doc_add(&lr_doc_prose(d)->text, "Per route, over all its responses (median and p90):");
	doc_table(d, lr_render_route_stats, sv);
	lr_doc_add(&lr_doc_prose(d)->text, lr_render_cells_outro);
	if (!sv->npasses)
		return;
	lr_doc_add(&lr_doc_prose(d)->text, lr_render_passes_intro);
	doc_table(d, lr_render_passes, sv);
	doc_table(d, lr_render_latency, sv);
	doc_table(d, lr_render_occupancy, sv);
	lr_render_validity_doc(d, sv);
}

void lr_render_validity_doc(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_doc_block *b = lr_doc_facts(d);

	lr_doc_add(&b->text, "Validity of each collected pass (LoadGen's rules, Little's law, TEST06)");
	for (int i = 0; i < sv->npasses; i++) {
		const struct lr_pass_stats *p = &sv->passes[i];
		struct lr_buf *it = lr_doc_item(d, b, 0);

		lr_doc_addf(it, "run %lld, set %lld (%s): %s%s%s; Little's law: %.3g in flight against %.3g",
			    (long long)p->run, (long long)p->set, p->route, p->valid ? "VALID" : "INVALID",
			    p->valid ? "" : ": ", p->invalid, p->little_n, p->little_xr);
		if (!isnan(p->gauge_mean))
			lr_doc_addf(it, "; the server's gauge: %.3g in flight%s", p->gauge_mean,
				    p->little_gauge
					    ? " (FLAG: beyond 25%% of the client's: a client stall, lost requests, "
					      "or a server that counts less of each request)"
					    : "");
		if (p->gauge_failed)
			lr_doc_addf(it, "; gauges: %lld failed scrape(s), %.3f s of gaps (never the last value held)",
				    (long long)p->gauge_failed, p->gauge_gap_s);
	}
	if (!sv->cuts.n)
		return;
	b = lr_doc_facts(d);
	lr_doc_add(&b->text, "Cut streams: the tokens each kept, and the survivors, against the reference");
	for (size_t i = 0; i < sv->cuts.n; i++)
		lr_doc_add(lr_doc_item(d, b, 0), sv->cuts.v[i]);
}

/* How many of run 'run''s collected passes are INVALID, of *n, and their routes (each once) into routes. */
int lr_render_invalid_passes(const struct lr_serving_report *sv, int64_t run, int *n, char *routes, size_t len)
{
	int bad = 0;

	*n = 0;
	routes[0] = '\0';
	for (int i = 0; sv && i < sv->npasses; i++) {
		const struct lr_pass_stats *p = &sv->passes[i];
		const char *at = strstr(routes, p->route);
		size_t rl = strlen(p->route), used = strlen(routes);

		if (p->run != run)
			continue;
		(*n)++;
		if (p->valid)
			continue;
		bad++;
		while (at && !((at == routes || at[-1] == ' ') && (at[rl] == ',' || !at[rl])))
			at = strstr(at + 1, p->route);
		if (!at && used + rl + 3 < len)
			snprintf(routes + used, len - used, "%s%s", used ? ", " : "", p->route);
	}
	return bad;
}

void lr_render_invalid_note(struct lr_doc *d, int64_t run, const struct lr_serving_report *sv)
{
	char routes[256];
	int n, bad = lr_render_invalid_passes(sv, run, &n, routes, sizeof routes);

	if (bad)
		lr_doc_addf(&lr_doc_note(d)->text,
			    "%d of the %d passes of run %lld are INVALID (%s): the paired comparison above includes "
			    "them; each pass's failed rules are listed with the serving evidence.",
			    bad, n, (long long)run, routes);
}

static json_t *dist4(const struct lr_dist4 *d)
{
	return d->n ? json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)d->n, "mean", d->mean, "median",
				d->median, "p90", d->p90, "p99", d->p99)
		    : json_pack("{s:i}", "n", 0);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *lr_render_passes_checks_json(json_t *passes, const struct lr_serving_report *sv, json_t *serving)
{
	json_t *cuts = json_array();

	for (int i = 0; i < sv->npasses; i++) {
		const struct lr_pass_stats *p = &sv->passes[i];
		json_t *o = json_array_get(passes, (size_t)i);

		json_object_set_new(o, "verdict", json_string(p->valid ? "VALID" : "INVALID"));
		json_object_set_new(o, "invalid", p->valid ? json_null() : json_string(p->invalid));
		json_object_set_new(o, "little_n", json_real(p->little_n));
		json_object_set_new(o, "little_xr", json_real(p->little_xr));
		json_object_set_new(o, "gauge_inflight", real_or_null(p->gauge_mean));
		json_object_set_new(o, "gauge_little_flag", json_boolean(p->little_gauge));
		json_object_set_new(o, "ttft_at", real_or_null(p->ttft_at));
		json_object_set_new(o, "tpot_at", real_or_null(p->tpot_at));
		json_object_set_new(o, "usage_differs", json_integer(p->usage_differs));
		json_object_set_new(o, "first_late", json_integer(p->first_late));
		json_object_set_new(o, "gauge_failed", json_integer(p->gauge_failed));
		json_object_set_new(o, "gauge_gap_s", json_real(p->gauge_gap_s));
		if (p->has_checks) {
			json_object_set_new(o, "ttft_sched_ms", dist4(&p->sched_ttft_ms));
			json_object_set_new(o, "e2el_sched_ms", dist4(&p->sched_e2el_ms));
			json_object_set_new(o, "lag_ms", dist4(&p->lag_ms));
		}
	}
	for (size_t i = 0; i < sv->cuts.n; i++)
		json_array_append_new(cuts, json_string(sv->cuts.v[i]));
	json_object_set_new(serving, "cuts", cuts);
	return passes;
}
