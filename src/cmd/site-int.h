#ifndef LR_CMD_SITE_INT_H
#define LR_CMD_SITE_INT_H

/*
 * What the files of 'labrun site' share: site.c (the runs, their pages and
 * data) and site-page.c (the page frame, the index, the diff page, the style
 * and the script).
 */

#include <stdio.h>

#include "base/list.h"
#include "base/model.h"
#include "experiment/compare.h"

/* A page's head, up to and including <body>: its title, the style sheet and the script. */
void cmd_site_head(FILE *f, const char *title);

struct lr_store;
/* The failing cases of run 'run''s comparisons (the first fifty), token by token (site-cases.c). */
int cmd_site_failing_cases(FILE *f, struct lr_store *st, int64_t run);

/* One row of the index for run r. */
void cmd_site_index_row(FILE *f, const struct lr_run *r);

/* What differs between runs a and b (cmp, from lr_compare_runs), one row each. */
void cmd_site_drift_table(FILE *f, const struct lr_comparison *cmp, int64_t a, int64_t b);

/*
 * The index pages around 'rows' (one per run, oldest first), newest first
 * and CMD_SITE_PAGE_ROWS a page; data/index.js, every row for the filter;
 * diff.html, site.css, site.js and the marker; into dir. 'trust' is what
 * the ledger says of the runs' signers, for every index page.
 */
#define CMD_SITE_PAGE_ROWS 500
int cmd_site_files(const char *dir, const struct lr_strlist *rows, const char *trust);

#endif
