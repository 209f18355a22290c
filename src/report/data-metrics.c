/*
 * The report's tables as data beyond the design's columns (data.c writes
 * the rest): each table's JSON object with the range form and, for a
 * further metric, its name, unit, direction and 'exploratory'; the means of
 * the mean form; and the CSV's columns, its rows with the trend's columns,
 * the forms' and the further metrics'. data.c hands in its own row writers, so each row has the
 * design's fields whichever table it is of.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "experiment/report.h"
#include "report/render-int.h"

void lr_render_json_row_forms(json_t *jw, const struct lr_report_run *rr, const struct lr_report_row *w)
{
	if (w->has) /* the block ratios' trend (docs/method.md, "Drift") */
		json_object_set_new(jw, "ratio_trend",
				    json_pack("{s:f, s:f, s:f, s:b}", "change_pct", w->trend.change * 100, "tau",
					      w->trend.tau, "p", w->trend.p, "qualified", lr_report_qualified(rr, w)));
	if (!w->has || !(rr->forms & LR_FORM_MEAN))
		return;
	json_object_set_new(jw, "baseline_mean", json_real(w->mean_a));
	json_object_set_new(jw, "arm_mean", json_real(w->mean_b));
}

/* The range form of table tb: the least and greatest paired ratio over its conditions, as the note says it. */
static json_t *json_range(const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	double lo = 0, hi = 0;
	int n = lr_report_range(tb, &lo, &hi);
	json_t *o = json_pack("{s:i}", "conditions", n);

	if (!n)
		return o;
	json_object_set_new(o, "ratio", json_pack("[f, f]", lo, hi));
	if (rr->design.target == LR_TARGET_COMMAND)
		json_object_set_new(o, "change_pct", json_pack("[f, f]", (lo - 1) * 100, (hi - 1) * 100));
	else
		json_object_set_new(o, "reduction_pct", json_pack("[f, f]", (1 - hi) * 100, (1 - lo) * 100));
	return o;
}

json_t *lr_render_json_tables(const struct lr_report_run *rr, lr_render_json_row_fn row, json_t *into)
{
	for (int t = 0; t < rr->ntables; t++) {
		const struct lr_report_table *tb = &rr->tables[t];
		json_t *rows = json_array(), *o;

		for (int k = 0; k < tb->nrows; k++)
			json_array_append_new(rows, row(rr, tb, &tb->rows[k]));
		o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "baseline", rr->arm[0], "arm", rr->arm[tb->arm],
			      "baseline_kernel", rr->kernel[0], "arm_kernel", rr->kernel[tb->arm], "unit",
			      lr_report_unit(rr));
		if (rr->exploratory_metric) {
			json_object_set_new(o, "metric", json_string(rr->design.metric));
			json_object_set_new(o, "better", json_string(rr->higher ? "higher" : "lower"));
			json_object_set_new(o, "exploratory", json_true());
		}
		if (rr->forms & LR_FORM_RANGE)
			json_object_set_new(o, "range", json_range(rr, tb));
		json_object_set_new(o, "rows", rows);
		json_array_append_new(into, o);
	}
	return into;
}

void lr_render_json_metrics(json_t *jr, const struct lr_report_run *rr, lr_render_json_row_fn row)
{
	json_t *tables, *unstored;

	if (!rr->nmetrics && !rr->unstored.n)
		return; /* a run without them reads as it always did */
	tables = json_array();
	unstored = json_array();
	for (int m = 0; m < rr->nmetrics; m++)
		lr_render_json_tables(&rr->metrics[m], row, tables);
	for (size_t i = 0; i < rr->unstored.n; i++)
		json_array_append_new(unstored, json_string(rr->unstored.v[i]));
	json_object_set_new(jr, "metric_tables", tables);
	json_object_set_new(jr, "metrics_not_written", unstored);
}

/* The columns of release 1 first, in their order; then the ones that carry the rest of each table row. */
static const struct lr_column run_cols[] = {
	{ "run", "", LR_COL_NUMBER },
	{ "experiment", "", 0 },
	{ "baseline", "", 0 },
	{ "arm", "", 0 },
	{ "model", "", 0 },
	{ "layers", "", LR_COL_NUMBER },
	{ "tokens", "", LR_COL_NUMBER },
	{ "status", "", 0 },
	{ "baseline_median_ms", "", LR_COL_NUMBER },
	{ "arm_median_ms", "", LR_COL_NUMBER },
	{ "reduction", "", LR_COL_NUMBER },
	{ "interval_lo", "", LR_COL_NUMBER },
	{ "interval_hi", "", LR_COL_NUMBER },
	{ "blocks", "", LR_COL_NUMBER },
	{ "flagged", "", LR_COL_NUMBER },
	{ "verdict", "", 0 },
	{ "failure", "", 0 },
	{ "unit", "", 0 },
	{ "baseline_median", "", LR_COL_NUMBER },
	{ "arm_median", "", LR_COL_NUMBER },
	{ "effect", "", 0 },
	{ "effect_pct", "", LR_COL_NUMBER },
	{ "interval_lo_pct", "", LR_COL_NUMBER },
	{ "interval_hi_pct", "", LR_COL_NUMBER },
	{ "drift_baseline_pct", "", LR_COL_NUMBER },
	{ "drift_arm_pct", "", LR_COL_NUMBER },
	{ "drifted", "", LR_COL_NUMBER },
	{ "margin_pct", "", LR_COL_NUMBER },
	{ "noise_floor_run", "", LR_COL_NUMBER },
	{ "noise_floor_lo_pct", "", LR_COL_NUMBER },
	{ "noise_floor_hi_pct", "", LR_COL_NUMBER },
	{ "verdict_kind", "", 0 },
	/* the block ratios' trend (docs/method.md, "Drift"), written here */
	{ "trend_pct", "", LR_COL_NUMBER },
	{ "trend_p", "", LR_COL_NUMBER },
	{ "qualified", "", LR_COL_NUMBER },
	/* the forms' columns (data-metrics.c), then a further metric's */
	{ "ratio", "", LR_COL_NUMBER },
	{ "baseline_mean", "", LR_COL_NUMBER },
	{ "arm_mean", "", LR_COL_NUMBER },
	{ "metric", "", 0 },
	{ "better", "", 0 },
	{ "exploratory", "", LR_COL_NUMBER },
};

/* 1 when a run of rep shows the mean or the ratio form: the CSV of its tables has their columns. */
static int csv_forms(const struct lr_report *rep)
{
	for (int i = 0; i < rep->nruns; i++)
		if (rep->runs[i].forms & (LR_FORM_MEAN | LR_FORM_RATIO))
			return 1;
	return 0;
}

/* The cells of the columns after the design's: the forms' (ratio and means), then a further metric's. */
static void csv_extra(struct lr_table *t, const struct lr_report_run *rr, const struct lr_report_row *w, int metric)
{
	if (w->has) {
		lr_table_real(t, w->p.ratio, 3);
		lr_table_real(t, w->mean_a, 3);
		lr_table_real(t, w->mean_b, 3);
	} else {
		for (int k = 0; k < 3; k++)
			lr_table_none(t);
	}
	if (!metric)
		return;
	lr_table_text(t, rr->design.metric);
	lr_table_text(t, rr->higher ? "higher" : "lower");
	lr_table_int(t, 1);
}

/* The block ratios' trend of row w: its change over the blocks, its p, and whether it qualifies the verdict. */
static void csv_trend(struct lr_table *t, const struct lr_report_run *rr, const struct lr_report_row *w)
{
	if (!w->has) {
		for (int k = 0; k < 3; k++)
			lr_table_none(t);
		return;
	}
	lr_table_real(t, w->trend.change * 100, 1);
	lr_table_real(t, w->trend.p, 3);
	lr_table_int(t, lr_report_qualified(rr, w));
}

int lr_render_csv_fill(struct lr_table *t, const struct lr_report *rep, int metrics, lr_render_csv_row_fn row)
{
	int forms = metrics || csv_forms(rep), n = 0, ncols = (int)(sizeof run_cols / sizeof run_cols[0]);

	lr_table_init(t, run_cols, ncols - (metrics ? 0 : 3) - (forms ? 0 : 3));
	for (int i = 0; i < rep->nruns; i++)
		for (int m = metrics ? 0 : -1; m < (metrics ? rep->runs[i].nmetrics : 0); m++) {
			const struct lr_report_run *rr = m < 0 ? &rep->runs[i] : &rep->runs[i].metrics[m];

			for (int k = 0; k < rr->ntables; k++)
				for (int j = 0; j < rr->tables[k].nrows; j++, n++) {
					row(t, rr, &rr->tables[k], &rr->tables[k].rows[j]);
					csv_trend(t, rr, &rr->tables[k].rows[j]);
					if (forms)
						csv_extra(t, rr, &rr->tables[k].rows[j], metrics);
				}
		}
	return n;
}
