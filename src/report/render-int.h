#ifndef LR_REPORT_RENDER_INT_H
#define LR_REPORT_RENDER_INT_H

/*
 * What the report's writers share among themselves: render.c (Markdown and
 * the dispatch by format), data.c (CSV and JSON) and serving.c (the serving
 * matrix and its sentence, declared in report.h); site*.c, the pages of the
 * static site.
 */

#include <stdio.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/list.h"
#include "base/table.h"
#include "base/model.h"
#include "experiment/compare.h"
#include "experiment/report.h"
#include "serving/report.h"

/* The report as data: CSV sections, or one JSON document. */
LR_MUST_CHECK int lr_render_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, int tidy);
LR_MUST_CHECK int lr_render_json(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv,
				 const char *title);

/* ---- data-metrics.c: the tables' data beyond the design's columns ---- */

/* data.c's writers of one row of a comparison table, as JSON and as a CSV row. */
typedef json_t *(*lr_render_json_row_fn)(const struct lr_report_run *rr, const struct lr_report_table *tb,
					 const struct lr_report_row *w);
typedef void (*lr_render_csv_row_fn)(struct lr_table *t, const struct lr_report_run *rr,
				     const struct lr_report_table *tb, const struct lr_report_row *w);
/*
 * What the commands of a run left running (its leftovers): "2 left running: pid 7 'sleep 9' (execution
 * 3 of condition 0), ..." (three named at most), for the report's cleanup count; and as data.
 */
void lr_render_cleanup(struct lr_buf *t, const struct lr_leftovers *l);
json_t *lr_render_cleanup_json(const struct lr_leftovers *l);
/* The block ratios' trend of row w, and its means (the mean form), into its JSON object jw. */
void lr_render_json_row_forms(json_t *jw, const struct lr_report_run *rr, const struct lr_report_row *w);
/* rr's tables appended to the array 'into' (returned): each its arms, unit, rows by 'row', range form, metric. */
json_t *lr_render_json_tables(const struct lr_report_run *rr, lr_render_json_row_fn row, json_t *into);
/* rr's further metrics into its JSON object jr: "metric_tables", "metrics_not_written"; nothing when none. */
void lr_render_json_metrics(json_t *jr, const struct lr_report_run *rr, lr_render_json_row_fn row);
/*
 * t, initialised with the CSV's columns, filled with a row per table row:
 * the design's tables, or ('metrics') the further metrics'. 'row' writes
 * the design's columns up to verdict_kind; then come the trend's
 * (trend_pct, trend_p, qualified), ratio, baseline_mean, arm_mean (left out
 * unless a run shows the mean or ratio form, or 'metrics') and metric,
 * better, exploratory (left out unless 'metrics'). Returns how many rows.
 */
int lr_render_csv_fill(struct lr_table *t, const struct lr_report *rep, int metrics, lr_render_csv_row_fn row);

/* ---- the report's parts (render.c; summary.c puts them together, failing.c) ---- */

struct lr_doc;
/* An experiment run's heading and title; its failed or missing conditions. */
void lr_render_run_head_doc(struct lr_doc *d, const struct lr_report_run *rr);
void lr_render_run_failed_doc(struct lr_doc *d, const struct lr_report_run *rr);
/* Its further metrics ([report] metrics, --metric): a table per metric and arm pair, marked exploratory. */
void lr_render_metrics_doc(struct lr_doc *d, const struct lr_report_run *rr);
/*
 * What it rests on, as facts: command, definition, sources, host, binding,
 * geometry, tools, design, parity and noise floor; 'relative': without the
 * recording machine's paths (lr_argv_text_relative, lr_path_relative).
 */
void lr_render_run_facts_doc(struct lr_doc *d, const struct lr_report_run *rr, int relative);

/* The report's first blocks in every layout: its title, the method and the ledger head. */
struct lr_report_label;
void lr_render_head_doc(struct lr_doc *d, const struct lr_report *rep, const struct lr_report_label *l);

/* The serving evidence's failing and missing cases, alike ones on one line (failing.c), as a list of facts. */
void lr_render_failing_doc(struct lr_doc *d, const struct lr_serving_report *sv);

/* ---- the document's writers (doc-write.c, doc-html.c) ---- */

struct lr_buf;
struct lr_doc_block;
/* Inline text as HTML: words escaped, code spans in <code>. */
void lr_doc_html_inline(FILE *f, const struct lr_buf *t);
/* Block b as HTML; 1 when it wrote something. */
int lr_doc_html_block(FILE *f, const struct lr_doc_block *b);

/* ---- the site (site.c, site-page.c, site-cases.c) ---- */

/* A page's head, up to and including <body>: its title, the style sheet and the script. */
void lr_render_site_head(FILE *f, const char *title);

struct lr_store;
/* The failing cases of run 'run''s comparisons (the first fifty), token by token (site-cases.c). */
int lr_render_site_failing_cases(FILE *f, struct lr_store *st, int64_t run);

/* A page's file DIR/name, opened for writing; closed, with any write error said. */
int lr_render_site_create(FILE **f, const char *dir, const char *name);
int lr_render_site_close(FILE *f, const char *name);

/* One "<tr><th>name</th><td>value</td></tr>" ("-" for none), the value escaped. */
void lr_render_site_fact(FILE *f, const char *name, const char *value);

/* One row of the index for run r. */
void lr_render_site_index_row(FILE *f, const struct lr_run *r);

/* What differs between runs a and b (cmp, from lr_compare_runs), one row each. */
void lr_render_site_drift_table(FILE *f, const struct lr_comparison *cmp, int64_t a, int64_t b);

/*
 * The index pages around 'rows' (one per run, oldest first), newest first
 * and LR_RENDER_SITE_PAGE_ROWS a page; data/index.js, every row for the filter;
 * diff.html, site.css and site.js; into dir. 'trust' is what
 * the ledger says of the runs' signers, for every index page; 'issues' the
 * issues they are evidence for (ref, its page, "N runs"), linked from each.
 */
#define LR_RENDER_SITE_PAGE_ROWS 500
int lr_render_site_files(const char *dir, const struct lr_strlist *rows, const char *trust,
			 const struct lr_kvlist *issues);

#endif
