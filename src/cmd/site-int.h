#ifndef LR_CMD_SITE_INT_H
#define LR_CMD_SITE_INT_H

/*
 * What the files of 'labrun site' share: site.c (the runs, their pages and
 * data) and site-page.c (the page frame, the index, the diff page, the style
 * and the script).
 */

#include <stdio.h>

#include "base/model.h"
#include "experiment/compare.h"

/* A page's head, up to and including <body>: its title, the style sheet and the script. */
void cmd_site_head(FILE *f, const char *title);

/* One row of the index for run r. */
void cmd_site_index_row(FILE *f, const struct lr_run *r);

/* What differs between runs a and b (cmp, from lr_compare_runs), one row each. */
void cmd_site_drift_table(FILE *f, const struct lr_comparison *cmp, int64_t a, int64_t b);

/* index.html around the 'rows' of n runs, diff.html, site.css, site.js and the marker, into dir. */
int cmd_site_files(const char *dir, const char *rows, size_t len, int n);

#endif
