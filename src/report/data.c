/*
 * The report as data: 'report --format csv' and '--format json' (and a
 * crate's report.json). Each carries every number the Markdown shows, under
 * keys named for what they hold and in which unit, at full precision: a
 * number of a Markdown table is a JSON or CSV number rounded (docs/labrun.md
 * lists the keys).
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "report/doc.h"
#include "report/report.h"
#include "report/text.h"
#include "record/facts.h"
#include "report/render-int.h"
#include "experiment/report.h"
#include "serving/report.h"

/* ---- CSV -------------------------------------------------------------------------------- */

static void none(struct lr_table *t, int n)
{
	while (n-- > 0)
		lr_table_none(t);
}

/* Cells a and b at full precision, or none when 'has' is 0. */
static void reals(struct lr_table *t, int has, double a, double b)
{
	if (!has) {
		none(t, 2);
		return;
	}
	lr_table_real(t, a, 3);
	lr_table_real(t, b, 3);
}

static void csv_row(struct lr_table *t, const struct lr_report_run *rr, const struct lr_report_table *tb,
		    const struct lr_report_row *w)
{
	const char *arm = rr->arm[tb->arm];
	int cmd = rr->design.target == LR_TARGET_COMMAND, has = w->has, k = has && w->p.k;
	double effect = 0, lo = 0, hi = 0;
	char verdict[256];

	if (has)
		lr_report_pct(rr, w, &effect, &lo, &hi);
	lr_table_int(t, rr->run.id);
	lr_table_text(t, rr->design.name);
	lr_table_text(t, rr->arm[0]);
	lr_table_text(t, arm);
	/* a command experiment's condition goes in the model column (its sizes are 0) */
	lr_table_text(t, cmd ? w->label : w->model);
	lr_table_int(t, w->layers);
	lr_table_int(t, w->tokens);
	lr_table_text(t, w->status);
	/* numbers that read back to the same double; for a metric run the *_ms pair is an alias of the medians */
	reals(t, has, w->median_a_ms, w->median_b_ms);
	if (has)
		lr_table_real(t, 1 - w->p.ratio, 3);
	else
		lr_table_none(t);
	reals(t, k, 1 - w->p.hi, 1 - w->p.lo);
	lr_table_int(t, w->blocks);
	lr_table_int(t, w->flagged);
	lr_table_text(t, has ? lr_report_verdict(verdict, sizeof verdict, rr, w, arm) : w->status);
	lr_table_text(t, w->failure ? w->failure : "");
	lr_table_text(t, lr_report_unit(rr));
	reals(t, has, w->median_a_ms, w->median_b_ms);
	lr_table_text(t, cmd ? "change" : "reduction");
	if (has)
		lr_table_real(t, effect, 1);
	else
		lr_table_none(t);
	reals(t, k, lo, hi);
	reals(t, has, w->drift_a * 100, w->drift_b * 100);
	if (has)
		lr_table_int(t, w->drifted);
	else
		lr_table_none(t);
	lr_table_real(t, rr->design.margin * 100, 1);
	if (lr_report_has_floor(rr)) {
		lr_table_int(t, rr->aa_run);
		reals(t, 1, (rr->aa_lo - 1) * 100, (rr->aa_hi - 1) * 100);
	} else {
		none(t, 3);
	}
	lr_table_text(t, lr_report_verdict_kind(rr, w));
}

/* Where the report's tables go: CSV sections (each its header, an empty line between), or one tidy table. */
struct csv_out {
	FILE *f;
	int tidy;
	int tables; /* written so far */
};

/* Write t (released either way) as the next section, or its cells as tidy records of table 'name'. */
static int csv_table(struct csv_out *o, const char *name, struct lr_table *t)
{
	int rc = lr_table_error(t);

	if (!rc && o->tidy)
		rc = lr_render_table_tidy(o->f, name, t, !o->tables);
	else if (!rc) {
		if (o->tables)
			fputc('\n', o->f);
		rc = lr_render_table_csv(o->f, t, 1);
	}
	o->tables++;
	lr_table_release(t);
	return rc;
}

/* One of the serving tables every format shows, as the next section. */
static int csv_section(struct csv_out *o, const char *name,
		       int (*build)(struct lr_table *, const struct lr_serving_report *),
		       const struct lr_serving_report *sv)
{
	struct lr_table t;
	int rc = build(&t, sv);

	if (rc) {
		lr_table_release(&t);
		return rc;
	}
	return csv_table(o, name, &t);
}

static int csv_cells(struct csv_out *o, const struct lr_serving_report *sv)
{
	static const struct lr_column cols[] = {
		{ "run", "", LR_COL_NUMBER },
		{ "condition", "", LR_COL_NUMBER },
		{ "row", "", 0 },
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
		{ "not_collected", "", LR_COL_NUMBER },
		{ "cell", "", 0 },
	};
	struct lr_table t;
	char cell[256];

	lr_table_init(&t, cols, sizeof cols / sizeof cols[0]);
	for (int r = 0; r < sv->nrows; r++)
		for (int k = 0; k < sv->nroutes; k++) {
			const struct lr_serving_cell *c = &sv->cells[r * sv->nroutes + k];
			const long long v[] = { c->sets,
						c->cases,
						c->within.comparisons,
						c->within.failing,
						c->within.exact,
						c->within.compared,
						c->cross.comparisons,
						c->cross.failing,
						c->cross.exact,
						c->cross.compared,
						c->gated,
						c->strict,
						c->formats,
						c->eos,
						c->gate_total,
						c->not_collected };

			lr_table_int(&t, sv->rows[r].run);
			lr_table_int(&t, sv->rows[r].cond);
			lr_table_text(&t, sv->rows[r].label);
			lr_table_text(&t, sv->routes[k]);
			for (size_t j = 0; j < sizeof v / sizeof *v; j++)
				lr_table_int(&t, v[j]);
			lr_table_text(&t, lr_render_cell_text(cell, sizeof cell, c));
		}
	return csv_table(o, "cells", &t);
}

/* The design's tables, or ('metrics') the further metrics' (none when there are none). */
static int csv_tables(struct csv_out *o, const struct lr_report *rep, int metrics)
{
	struct lr_table t;

	if (!lr_render_csv_fill(&t, rep, metrics, csv_row) && metrics) {
		lr_table_release(&t);
		return 0;
	}
	return csv_table(o, metrics ? "metrics" : "conditions", &t);
}

static int csv_sections(struct csv_out *o, const struct lr_report *rep, const struct lr_serving_report *sv)
{
	int rc;

	if ((rc = csv_tables(o, rep, 0)) || !sv->nrows || (rc = csv_cells(o, sv)))
		return rc;
	/* the per-route timing, then the collected passes and their latency, with the Markdown's column keys */
	if ((rc = csv_section(o, "routes", lr_render_route_stats, sv)) || !sv->npasses ||
	    (rc = csv_section(o, "passes", lr_render_passes, sv)))
		return rc;
	if ((rc = csv_section(o, "latency", lr_render_latency, sv)))
		return rc;
	return csv_section(o, "occupancy", lr_render_occupancy, sv);
}

int lr_render_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, int tidy)
{
	struct csv_out o = { f, tidy, 0 };
	int rc = csv_sections(&o, rep, sv);

	return rc ? rc : csv_tables(&o, rep, 1); /* last: the sections before keep their places */
}

/* ---- JSON ------------------------------------------------------------------------------- */

static json_t *json_kv(const struct lr_kvlist *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

static json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *json_sources(const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	json_t *files;

	/* outside git, null unless --source files (a crate of an older format: null) */
	if (!r->source.present && (!r->nfiles || (rr->format && rr->format < LR_REPORT_FORMAT_TREND)))
		return json_null();
	files = json_array();
	for (size_t i = 0; i < r->nfiles; i++)
		json_array_append_new(
			files,
			json_pack("{s:s, s:s, s:o}", "path", r->files[i].path, "status", r->files[i].status, "sha256",
				  r->files[i].has_content ? json_string(r->files[i].sha256) : json_null()));
	if (!r->source.present) /* --source files outside any git work tree */
		return json_pack("{s:n, s:n, s:n, s:n, s:o}", "head", "branch", "dirty", "diff_sha256", "files", files);
	return json_pack("{s:o, s:o, s:b, s:s, s:o}", "head", json_str_or_null(r->source.head), "branch",
			 json_str_or_null(r->source.branch), "dirty", r->source.dirty, "diff_sha256",
			 r->source.diff_sha256, "files", files);
}

static json_t *json_design(const struct lr_report_run *rr)
{
	const struct lr_stored_design *d = &rr->design;

	return json_pack("{s:s, s:i, s:i, s:f, s:f, s:o, s:s, s:s, s:o, s:b}", "order", lr_exp_order_name(d->order),
			 "blocks", d->blocks, "warmup", d->warmup, "margin", d->margin, "margin_pct", d->margin * 100,
			 "seed", d->seed <= INT64_MAX ? json_integer((json_int_t)d->seed) : json_null(), "target",
			 lr_exp_target_name(d->target), "backend", lr_run_backend(&rr->run, d->backend), "metric",
			 d->metric[0]
				 ? json_pack("{s:s, s:s}", "name", d->metric, "better", rr->higher ? "higher" : "lower")
				 : json_null(),
			 "exploratory", lr_report_exploratory(rr));
}

static json_t *json_floor(const struct lr_report_run *rr)
{
	char text[512];
	json_t *o = json_pack("{s:b, s:s}", "qualifies", lr_report_has_floor(rr), "text",
			      lr_report_floor_text(text, sizeof text, rr));

	json_object_set_new(o, "run", rr->aa_run ? json_integer(rr->aa_run) : json_null());
	if (rr->aa_run)
		json_object_set_new(o, "experiment", json_string(rr->aa_name));
	if (rr->aa_run && rr->aa_width > 0) {
		json_object_set_new(o, "interval", json_pack("[f, f]", rr->aa_lo, rr->aa_hi));
		json_object_set_new(o, "interval_pct",
				    json_pack("[f, f]", (rr->aa_lo - 1) * 100, (rr->aa_hi - 1) * 100));
		json_object_set_new(o, "width_pct", json_real(rr->aa_width * 100));
		json_object_set_new(o, "excludes_1", json_boolean(rr->aa_excludes_1));
	}
	return o;
}

/* v[0..n) as a JSON array of numbers. */
static json_t *json_reals(const double *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *json_row(const struct lr_report_run *rr, const struct lr_report_table *tb, const struct lr_report_row *w)
{
	json_t *jw = json_pack("{s:i, s:s, s:s, s:I, s:I, s:s, s:i, s:i, s:s}", "condition", w->cond, "label", w->label,
			       "model", w->model, "layers", (json_int_t)w->layers, "tokens", (json_int_t)w->tokens,
			       "status", w->status, "blocks", w->blocks, "flagged", w->flagged, "verdict_kind",
			       lr_report_verdict_kind(rr, w));
	int cmd = rr->design.target == LR_TARGET_COMMAND;
	double effect, lo, hi;
	char verdict[256];

	if (w->has) {
		lr_report_pct(rr, w, &effect, &lo, &hi);
		if (rr->design.metric[0]) {
			json_object_set_new(jw, "baseline_median", json_real(w->median_a_ms));
			json_object_set_new(jw, "arm_median", json_real(w->median_b_ms));
		}
		/* for a metric run these two are aliases of the two above, kept for older readers */
		json_object_set_new(jw, "baseline_median_ms", json_real(w->median_a_ms));
		json_object_set_new(jw, "arm_median_ms", json_real(w->median_b_ms));
		json_object_set_new(jw, "ratio", json_real(w->p.ratio));
		json_object_set_new(jw, "interval", w->p.k ? json_pack("[f, f]", w->p.lo, w->p.hi) : json_null());
		json_object_set_new(jw, cmd ? "change_pct" : "reduction_pct", json_real(effect));
		json_object_set_new(jw, "interval_pct", w->p.k ? json_pack("[f, f]", lo, hi) : json_null());
		json_object_set_new(jw, "per_block",
				    json_pack("{s:o, s:o, s:o}", "baseline", json_reals(w->block_a, w->blocks), "arm",
					      json_reals(w->block_b, w->blocks), "ratio",
					      json_reals(w->block_ratio, w->blocks)));
		json_object_set_new(jw, "drift_baseline_pct", json_real(w->drift_a * 100));
		json_object_set_new(jw, "drift_arm_pct", json_real(w->drift_b * 100));
		json_object_set_new(jw, "drifted", json_boolean(w->drifted));
		json_object_set_new(jw, "sign_disagrees", json_boolean(lr_report_sign_disagrees(w)));
		json_object_set_new(jw, "verdict",
				    json_string(lr_report_verdict(verdict, sizeof verdict, rr, w, rr->arm[tb->arm])));
	}
	lr_render_json_row_forms(jw, rr, w);
	if (w->failure)
		json_object_set_new(jw, "failure", json_string(w->failure));
	return jw;
}

/* The design the run registered before its first block (docs/schema.md, "Design entries"), what changed since its experiment's earlier run. */
static json_t *json_prereg(const struct lr_prereg *p)
{
	const struct lr_design_reg *g = &p->reg;
	json_t *o =
		json_pack("{s:I, s:s, s:s, s:s, s:b}", "ledger_entry", (json_int_t)g->seq, "entry_digest", g->digest,
			  "design_digest", g->content, "appended_at", g->appended_at, "signed", g->is_signed);

	json_object_set_new(o, "design_head",
			    g->head_seq ? json_pack("{s:I, s:s, s:s}", "ledger_entry", (json_int_t)g->head_seq,
						    "sha256", g->head_sha256, "written_at", g->head_at)
					: json_null());
	json_object_set_new(o, "changed_since",
			    p->earlier ? json_pack("{s:I, s:s}", "run", (json_int_t)p->earlier, "changes", p->changes)
				       : json_null());
	return o;
}

static json_t *json_run(const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	json_t *jr, *tables = json_array(), *failed = json_array(), *argv = json_loads(r->argv_json, 0, NULL);

	jr = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "run", (json_int_t)r->id, "uuid", r->uuid, "experiment",
		       rr->design.name, "title", rr->design.title, "status", lr_status_name(r->status),
		       "definition_sha256", rr->design.sha256);
	json_object_set_new(jr, "definition",
			    json_pack("{s:s, s:s}", "path", rr->design.path, "sha256", rr->design.sha256));
	json_object_set_new(jr, "command", argv ? argv : json_string(r->argv_json));
	json_object_set_new(jr, "cwd", json_string(r->cwd));
	json_object_set_new(jr, "started_at", json_str_or_null(r->started_at));
	json_object_set_new(jr, "ended_at", json_str_or_null(r->ended_at));
	json_object_set_new(jr, "replay_of", r->replay_of ? json_integer(r->replay_of) : json_null());
	json_object_set_new(jr, "sources", json_sources(rr));
	json_object_set_new(jr, "host",
			    json_pack("{s:o, s:o, s:I, s:o, s:o}", "hostname", json_str_or_null(r->host.hostname),
				      "cpu_model", json_str_or_null(r->host.cpu_model), "cores",
				      (json_int_t)r->host.cores, "os", json_str_or_null(r->host.os), "kernel",
				      json_str_or_null(r->host.kernel)));
	json_object_set_new(jr, "binding", json_kv(&r->binding));
	json_object_set_new(jr, "geometry", json_kv(&r->geometry));
	json_object_set_new(jr, "tool_versions", json_kv(&r->tools));
	json_object_set_new(jr, "design", json_design(rr));
	if (rr->prereg.reg.seq) /* runs from before registration have no member, as their crates were written */
		json_object_set_new(jr, "registration", json_prereg(&rr->prereg));
	json_object_set_new(
		jr, "parity",
		json_pack("{s:i, s:i, s:i}", "passed", rr->passed, "failed", rr->failed, "missing", rr->missing));
	json_object_set_new(jr, "noise_floor", json_floor(rr));
	json_object_set_new(jr, "cleanup", lr_render_cleanup_json(&r->left));
	json_object_set_new(jr, "tables", lr_render_json_tables(rr, json_row, tables));
	for (int c = 0; c < rr->nconds; c++)
		if (strcmp(rr->conds[c].status, "passed"))
			json_array_append_new(failed,
					      json_pack("{s:i, s:s, s:s, s:o}", "condition", rr->conds[c].idx, "label",
							rr->ntables ? rr->tables[0].rows[c].label : rr->conds[c].model,
							"status", rr->conds[c].status, "failure",
							json_str_or_null(rr->conds[c].failure)));
	json_object_set_new(jr, "failed_or_missing", failed);
	lr_render_json_metrics(jr, rr, json_row);
	return jr;
}

static json_t *json_dist(const struct lr_serving_dist *d)
{
	return d->n ? json_pack("{s:I, s:f, s:f}", "n", (json_int_t)d->n, "median", d->median, "p90", d->p90)
		    : json_null();
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

static json_t *json_cell(const char *route, const struct lr_serving_cell *c)
{
	char cell[256];

	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:o, s:o, s:I, s:b, s:I, s:I, s:I, s:I, s:s}", "route", route,
			 "declared", c->declared, "sets", (json_int_t)c->sets, "responses", (json_int_t)c->cases,
			 "not_collected", (json_int_t)c->not_collected, "within_route", json_parity(&c->within),
			 "cross_route", json_parity(&c->cross), "referenced", (json_int_t)c->referenced, "gated",
			 c->gated, "strict", (json_int_t)c->strict, "formats", (json_int_t)c->formats, "eos",
			 (json_int_t)c->eos, "gate_total", (json_int_t)c->gate_total, "cell",
			 lr_render_cell_text(cell, sizeof cell, c));
}

static json_t *json_dist4(const struct lr_dist4 *d)
{
	return d->n ? json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)d->n, "mean", d->mean, "median",
				d->median, "p90", d->p90, "p99", d->p99)
		    : json_pack("{s:i}", "n", 0);
}

static json_t *json_passes(const struct lr_serving_report *sv)
{
	json_t *a = json_array();

	for (int i = 0; i < sv->npasses; i++) {
		const struct lr_pass_stats *p = &sv->passes[i];
		json_t *occ = json_array(), *o;

		for (int k = 0; k <= p->peak; k++)
			json_array_append_new(occ, json_real(p->occupancy[k] * 100));
		o = json_pack("{s:I, s:I, s:s, s:i, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:i, s:o, s:b}", "run",
			      (json_int_t)p->run, "set", (json_int_t)p->set, "route", p->route, "condition", p->cond,
			      "requests", (json_int_t)p->requests, "completed", (json_int_t)p->completed, "failed",
			      (json_int_t)p->failed, "unsent", (json_int_t)p->unsent, "duration_s", p->duration_s,
			      "request_rate", p->request_rate, "output_rate", p->output_rate, "total_rate",
			      p->total_rate, "concurrency", p->concurrency, "rate",
			      p->rate > 0 ? json_real(p->rate) : json_null(), "cancelled", p->cancelled);
		json_object_set_new(o, "peak", json_integer(p->peak));
		if (p->slo_ms[0] > 0 || p->slo_ms[1] > 0 || p->slo_ms[2] > 0) {
			json_object_set_new(o, "goodput", json_real(p->goodput));
			json_object_set_new(o, "good", json_integer(p->good));
			json_object_set_new(o, "slo_ms",
					    json_pack("{s:o, s:o, s:o}", "ttft",
						      p->slo_ms[0] > 0 ? json_real(p->slo_ms[0]) : json_null(), "tpot",
						      p->slo_ms[1] > 0 ? json_real(p->slo_ms[1]) : json_null(), "e2el",
						      p->slo_ms[2] > 0 ? json_real(p->slo_ms[2]) : json_null()));
		}
		json_object_set_new(o, "mean_inflight", json_real(p->mean_inflight));
		/* a rate with no cap on the concurrency: no level asked, none to reach */
		json_object_set_new(o, "at_level_pct", p->level_asked ? json_real(p->at_level * 100) : json_null());
		json_object_set_new(o, "reached", p->level_asked ? json_boolean(p->reached) : json_null());
		json_object_set_new(o, "occupancy_pct", occ);
		json_object_set_new(o, "gauge_samples", json_integer(p->gauge_samples));
		if (p->gauge_occupancy) {
			json_t *g = json_array();

			for (int k = 0; k <= p->gauge_peak; k++)
				json_array_append_new(g, json_real(p->gauge_occupancy[k] * 100));
			json_object_set_new(o, "gauge_occupancy_pct", g);
			json_object_set_new(o, "gauge_peak", json_integer(p->gauge_peak));
			json_object_set_new(o, "gauge_waiting_peak", json_real(p->gauge_waiting_peak));
		}
		json_object_set_new(o, "ttft_ms", json_dist4(&p->ttft_ms));
		json_object_set_new(o, "tpot_ms", json_dist4(&p->tpot_ms));
		json_object_set_new(o, "itl_ms", json_dist4(&p->itl_ms));
		json_object_set_new(o, "e2el_ms", json_dist4(&p->e2el_ms));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *json_serving(const struct lr_serving_report *sv)
{
	json_t *o = json_object(), *routes = json_array(), *rows = json_array(), *failing = json_array(),
	       *stats = json_array();
	char text[512];

	for (int k = 0; k < sv->nroutes; k++) {
		json_array_append_new(routes, json_string(sv->routes[k]));
		json_array_append_new(stats, json_pack("{s:s, s:o, s:o, s:o}", "route", sv->routes[k], "latency_ms",
						       json_dist(&sv->stats[k].latency_ms), "ttft_ms",
						       json_dist(&sv->stats[k].ttft_ms), "tokens_per_s",
						       json_dist(&sv->stats[k].tokens_per_s)));
	}
	for (int r = 0; r < sv->nrows; r++) {
		json_t *cells = json_array();

		for (int k = 0; k < sv->nroutes; k++)
			json_array_append_new(cells, json_cell(sv->routes[k], &sv->cells[r * sv->nroutes + k]));
		json_array_append_new(rows, json_pack("{s:s, s:I, s:i, s:o}", "label", sv->rows[r].label, "run",
						      (json_int_t)sv->rows[r].run, "condition", sv->rows[r].cond,
						      "cells", cells));
	}
	for (size_t i = 0; i < sv->failing.n; i++)
		json_array_append_new(failing, json_string(sv->failing.v[i]));
	json_object_set_new(o, "routes", routes);
	json_object_set_new(o, "rows", rows);
	json_object_set_new(o, "cells",
			    json_pack("{s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:s}", "total", sv->ncells, "collected",
				      sv->collected, "uncollected", sv->uncollected, "undeclared", sv->undeclared,
				      "within_route", json_tally(&sv->within, "exact"), "cross_route",
				      json_tally(&sv->cross, "exact"), "gates", json_tally(&sv->gates, "passing"),
				      "sentence", lr_render_cells_text(text, sizeof text, sv)));
	json_object_set_new(o, "failing", failing);
	json_object_set_new(o, "failing_compared", json_integer(sv->failing_compared));
	json_object_set_new(o, "failing_gated", json_integer(sv->failing_gated));
	json_object_set_new(o, "route_stats", stats);
	if (sv->npasses)
		json_object_set_new(o, "passes", lr_render_passes_checks_json(json_passes(sv), sv, o));
	return o;
}

json_t *lr_render_report_data(const struct lr_report *rep, const struct lr_serving_report *sv,
			      const struct lr_report_label *l)
{
	json_t *root = json_object(), *runs = json_array();
	struct lr_doc d;

	json_object_set_new(root, "report", json_string(l->title));
	json_object_set_new(root, "format", json_integer(rep->format ? rep->format : LR_REPORT_DATA_FORMAT));
	json_object_set_new(root, "labrun_version", json_string(l->version ? l->version : PACKAGE_VERSION));
	if (rep->head.seq)
		json_object_set_new(root, "ledger_head",
				    json_pack("{s:I,s:s,s:o}", "seq", (json_int_t)rep->head.seq, "digest",
					      rep->head.digest, "statement", json_loads(rep->head_statement, 0, NULL)));
	for (int i = 0; i < rep->nruns; i++)
		json_array_append_new(runs, json_run(&rep->runs[i]));
	json_object_set_new(root, "runs", runs);
	if (sv->nrows)
		json_object_set_new(root, "serving", json_serving(sv));
	if (rep->nrecords)
		json_object_set_new(root, "records", lr_render_records_json(rep));
	lr_doc_init(&d);
	lr_render_report_doc(&d, rep, sv, l, 0);
	if (lr_doc_error(&d) || json_object_set_new(root, "document", lr_doc_json(&d))) {
		json_decref(root);
		root = NULL;
	}
	lr_doc_release(&d);
	return root;
}

int lr_render_json(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title)
{
	json_t *root = lr_render_report_data(rep, sv, &(struct lr_report_label){ title, NULL });

	if (!root)
		return lr_error_set(LR_ENOMEM, "out of memory");
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER); /* reals in 17 digits: they read back exactly */
	fputc('\n', f);
	json_decref(root);
	return 0;
}
