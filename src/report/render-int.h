#ifndef LR_REPORT_RENDER_INT_H
#define LR_REPORT_RENDER_INT_H

/*
 * What the report's writers share among themselves: render.c (Markdown and
 * the dispatch by format), data.c (CSV and JSON) and serving.c (the serving
 * matrix and its sentence, declared in report.h); site*.c, the pages of the
 * static site.
 */

#include <stdio.h>

#include "base/list.h"
#include "base/model.h"
#include "experiment/compare.h"
#include "experiment/report.h"
#include "serving/report.h"

/* The report as data: CSV sections, or one JSON document. */
LR_MUST_CHECK int lr_render_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv);
LR_MUST_CHECK int lr_render_json(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv,
				 const char *title);

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
