/*
 * The report as an issue comment reads it, after its title, method and
 * ledger head (render.c): a summary first, then the detail in folded sections.
 * The summary is what a reader decides on: the sentence that accounts for
 * every serving cell, each experiment run's verdict tables and failed
 * conditions, the route matrix and the failing cases grouped, and the
 * recorded runs with their checks. The detail is
 * what the figures rest on: each run's command, sources and host (without
 * the recording machine's paths, docs/design.md), the per-route timing,
 * every failing case one a line, and the tables of every collected pass.
 * Markdown cuts the folds that do not fit an issue comment (lr_doc_fit).
 */
#include "config.h"
#include "base/system.h"

#include "experiment/report.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "serving/report.h"

/* A folded table of the serving evidence: "WHAT (N rows)", the paragraphs before and after it, the table. */
static void fold_table(struct lr_doc *d, const char *what, const char *before, const char *after,
		       int (*build)(struct lr_table *, const struct lr_serving_report *),
		       const struct lr_serving_report *sv)
{
	struct lr_table t = { 0 };
	int rc = build(&t, sv);
	struct lr_doc_block *b = lr_doc_fold(d);

	lr_doc_add(&b->text, what);
	if (!rc)
		lr_doc_addf(&b->text, " (%zu row%s)", t.nrows, t.nrows == 1 ? "" : "s");
	if (before)
		lr_doc_add(&lr_doc_prose(d)->text, before);
	lr_doc_table(d, rc, &t);
	if (after)
		lr_doc_add(&lr_doc_prose(d)->text, after);
	lr_doc_fold_end(d);
}

/* The passes' verdicts in a sentence, every INVALID pass named with its failed rules (the whole list is folded). */
static void validity_summary(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_doc_block *b = NULL;
	int bad = 0;

	for (int i = 0; i < sv->npasses; i++)
		bad += !sv->passes[i].valid;
	lr_doc_addf(&lr_doc_prose(d)->text, "Validity: %d of %d collected passes VALID%s", sv->npasses - bad,
		    sv->npasses, bad ? "; the INVALID ones and the rules each failed:" : ".");
	for (int i = 0; bad && i < sv->npasses; i++) {
		const struct lr_pass_stats *p = &sv->passes[i];

		if (p->valid)
			continue;
		if (!b)
			b = lr_doc_facts(d);
		lr_doc_addf(lr_doc_item(d, b, 0), "run %lld, set %lld (%s): %s", (long long)p->run, (long long)p->set,
			    p->route, p->invalid);
	}
}

/* The serving evidence's summary: the matrix, what fails in it, and which passes were valid. */
static void serving_summary(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_table t = { 0 };
	int rc;
	const struct lr_column *cols;

	lr_doc_add(&lr_doc_heading(d, 2)->text, "Serving evidence");
	lr_doc_add(&lr_doc_prose(d)->text, lr_render_cells_intro);
	rc = lr_render_matrix(&t, sv);
	cols = t.cols;
	lr_doc_table(d, rc, &t);
	free((void *)cols); /* the matrix's own, copied by the document */
	lr_render_failing_doc(d, sv);
	if (sv->npasses)
		validity_summary(d, sv);
}

/* The serving evidence's detail, each part folded. */
static void serving_detail(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_doc_block *b;

	fold_table(d, "Per route: latency, TTFT and tokens/s, median and p90",
		   "Per route, over all its responses (median and p90):", lr_render_cells_outro, lr_render_route_stats,
		   sv);
	if (sv->failing.n) {
		lr_doc_addf(&lr_doc_fold(d)->text, "Every failing and missing case, one a line (%zu)", sv->failing.n);
		b = lr_doc_facts(d);
		for (size_t i = 0; i < sv->failing.n; i++)
			lr_doc_add(lr_doc_item(d, b, 0), sv->failing.v[i]);
		lr_doc_fold_end(d);
	}
	if (!sv->npasses)
		return;
	fold_table(d, "Collected passes: throughput and the concurrency self-check", lr_render_passes_intro, NULL,
		   lr_render_passes, sv);
	fold_table(d, "Collected passes: TTFT, TPOT, ITL and E2EL", NULL, NULL, lr_render_latency, sv);
	fold_table(d, "Collected passes: share of time at each number of requests in flight", NULL, NULL,
		   lr_render_occupancy, sv);
	lr_doc_addf(&lr_doc_fold(d)->text, "Validity of each collected pass (%d)%s", sv->npasses,
		    sv->cuts.n ? ", and the cut streams" : "");
	lr_render_validity_doc(d, sv);
	lr_doc_fold_end(d);
}

void lr_render_report_doc(struct lr_doc *d, const struct lr_report *rep, const struct lr_serving_report *sv,
			  const struct lr_report_label *l, int charts)
{
	char text[512];

	lr_render_head_doc(d, rep, l);
	if (sv->nrows)
		lr_doc_addf(&lr_doc_prose(d)->text, "Serving evidence: %s.",
			    lr_render_cells_text(text, sizeof text, sv));
	for (int i = 0; i < rep->nruns; i++) {
		lr_render_run_head_doc(d, &rep->runs[i]);
		lr_render_tables_doc(d, &rep->runs[i], charts);
		lr_render_invalid_note(d, rep->runs[i].run.id, sv);
		lr_render_metrics_doc(d, &rep->runs[i]);
		lr_render_run_failed_doc(d, &rep->runs[i]);
	}
	if (sv->nrows)
		serving_summary(d, sv);
	lr_render_records_doc(d, rep);
	for (int i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];

		lr_doc_addf(&lr_doc_fold(d)->text,
			    "Run %lld (%s): command, definition, sources, host, binding and design",
			    (long long)rr->run.id, rr->design.name);
		lr_render_run_facts_doc(d, rr, 1);
		lr_doc_fold_end(d);
	}
	if (sv->nrows)
		serving_detail(d, sv);
}

void lr_render_report_fit(struct lr_doc *d, size_t max_chars)
{
	struct lr_buf where = LR_BUF_INIT;

	lr_doc_add(&where, "The whole report: ");
	lr_doc_code(&where, "labrun report --format json");
	lr_doc_add(&where, ", the crate ");
	lr_doc_code(&where, "labrun manifest");
	lr_doc_add(&where, " writes (its report.json and site) and the site ");
	lr_doc_code(&where, "labrun site");
	lr_doc_add(&where, " builds.");
	if (where.failed)
		d->failed = 1;
	else
		lr_doc_fit(d, max_chars, &where);
	lr_buf_release(&where);
}
