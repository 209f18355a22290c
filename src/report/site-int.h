#ifndef LR_REPORT_SITE_INT_H
#define LR_REPORT_SITE_INT_H

/*
 * What the site's figures share (site-plot.c draws, the others say what):
 * the issue page with its route grid and distributions (site-issue.c,
 * site-grid.c, site-dist.c), and on a run's page each arm over the blocks,
 * the requests in flight over each collected pass and the executions' logs
 * (site-arms.c, site-dist.c, site-logs.c). Every figure is inline SVG
 * drawn here, read without a script, every string escaped as it is written.
 */

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"
#include "serving/passes.h"

struct lr_store;
struct lr_report_run;
struct lr_serving_report;

/* ---- site-plot.c: a figure's frame, axes, lines and key ---- */

/*
 * A figure: w x h pixels, its plot inside margins l, r, t, b; the data from
 * x0 to x1 and y0 to y1, with a tick every xstep and ystep (lr_plot_range
 * makes them round). ncat > 0: x is categories 1..ncat (blocks), one tick
 * each, x0 and x1 ignored. ypct: y ticks are shares written as percentages.
 * The key's rows go below the x axis: b holds 46 px and 18 px a row (lr_plot_size).
 */
struct lr_plot {
	double w, h, l, r, t, b;
	double x0, x1, xstep, y0, y1, ystep;
	int ncat, ypct;
	const char *title, *xlabel, *ylabel;
};

/* The plot's height and bottom margin for 'rows' rows of key under a plot 'height' px tall (t, w, l, r set). */
void lr_plot_size(struct lr_plot *p, double height, int rows);

/*
 * [*lo, *hi] widened to multiples of a round step (1, 2 or 5 times a power
 * of ten, at least 'least') that gives at most 'most' intervals; *step is
 * that step. An empty range is widened around its value first.
 */
void lr_plot_range(double *lo, double *hi, int most, double least, double *step);

/* The pixel column of x, the pixel row of y. */
double lr_plot_x(const struct lr_plot *p, double x);
double lr_plot_y(const struct lr_plot *p, double y);

/* <svg> with its title and caption, the frame, the grid, the ticks and the axes' names. */
void lr_plot_open(FILE *f, const struct lr_plot *p);
void lr_plot_close(FILE *f);

/*
 * Series number 'style' (its colour, dash and marker shape: told apart
 * without colour): through the points (x[i], y[i]), NAN ones left out; as
 * steps (each value held to the next x) when 'step', with markers when
 * 'markers'.
 */
void lr_plot_line(FILE *f, const struct lr_plot *p, int style, const double *x, const double *y, size_t n, int step,
		  int markers);

/* Row 'row' of the key: a piece of series 'style''s line (with its marker when 'marker') and the words. */
void lr_plot_key(FILE *f, const struct lr_plot *p, int row, int style, int marker, const char *text);

/*
 * SVG text at (x, y), 'size' px, anchored 'anchor' (start, middle, end), cut
 * with an ellipsis where it would be wider than 'maxw' px; 'attrs' are
 * labrun's own further attributes ("" for none).
 */
void lr_plot_text(FILE *f, double x, double y, int size, const char *anchor, double maxw, const char *attrs,
		  const char *text);

/* An estimate of the width of 'text' at 'size' px, on the generous side, for laying figures out. */
double lr_plot_text_width(const char *text, int size);

/* ---- site-issue.c, site-grid.c: the issue pages ---- */

/*
 * The name of the issue page of 'ref' ("issue-270.html"; buf of 1024 bytes):
 * lower-case letters, digits and '-' as they are, any other byte as _XX, so
 * two refs never share a page.
 */
const char *lr_site_issue_page(char *buf, size_t len, const char *ref);

/* The runs of the site that are evidence for issue 'ref', oldest first, each with a few words on it. */
struct lr_site_issue {
	const char *ref;
	const int64_t *ids;
	const char *const *what; /* "experiment serving-sim, passed" */
	int n;
};

/* The page of issue i (lr_site_issue_page) into dir: its runs, and the serving evidence they hold, drawn. */
LR_MUST_CHECK int lr_site_issue_write(struct lr_store *st, const char *dir, const struct lr_site_issue *i);

/*
 * The route matrix of 'sv' as a grid (a row per matrix row, a column per
 * route, a mark per check in each cell, each cell a link to "#cell-R-K"),
 * and its key; lr_site_cells, a section per cell, id "cell-R-K", with its
 * sentence and its failing cases, read from the store.
 */
void lr_site_grid(FILE *f, const struct lr_serving_report *sv);
LR_MUST_CHECK int lr_site_cells(FILE *f, struct lr_store *st, const struct lr_serving_report *sv);

/* ---- site-dist.c: what 'labrun collect' timed ---- */

/*
 * A route's values of one metric, as they come: every one until 'most' of
 * them are held (0: LR_SITE_POOL_MOST); then every 'stride'-th in arrival
 * order, the stride doubled each time that many are held again, so an issue
 * of many long passes costs a few MiB, not a double per token. 'seen'
 * counts them all. Zeroed to begin; v.v is the caller's to free.
 */
#define LR_SITE_POOL_MOST ((size_t)1 << 20)
struct lr_site_pool {
	struct lr_values v;
	size_t seen, stride, most;
};
LR_MUST_CHECK int lr_site_pool_add(struct lr_site_pool *p, double x);

/*
 * The CDF of TTFT, ITL and E2EL per route, pooled over every pass of runs
 * runs[0..n), a figure per metric with a line per route of sv (nothing when
 * no pass was collected).
 */
LR_MUST_CHECK int lr_site_distributions(FILE *f, struct lr_store *st, const int64_t *runs, int n,
					const struct lr_serving_report *sv);

/* Requests in flight over each pass of run 'run': the client's count and the server's gauges (nothing without passes). */
LR_MUST_CHECK int lr_site_occupancy(FILE *f, struct lr_store *st, int64_t run);

/* ---- site-arms.c, site-logs.c: an experiment run's page ---- */

/* Each arm's per-block value in each condition of rr, with its drift, a figure per condition. */
LR_MUST_CHECK int lr_site_arm_blocks(FILE *f, struct lr_store *st, const struct lr_report_run *rr);

/*
 * The executions of experiment run 'run' with links to their stdout and
 * stderr, copied by 'save' (lr_site_opts' object) into DIR/logs/SHA256.txt;
 * *n gets how many were listed (0: nothing written).
 */
LR_MUST_CHECK int lr_site_exec_logs(FILE *f, struct lr_store *st, int64_t run, const char *dir,
				    int (*save)(struct lr_store *, const char *, const char *), int *n);

/*
 * A log (object 'sha') in the site: copied by 'save' into DIR/logs/SHA.txt
 * once, then "<a>name</a> SIZE", or "name empty" ('sized'; else the name
 * alone, linked when not empty); "name not in this store" when its bytes
 * are nowhere to be had; its hash when 'save' is NULL.
 */
LR_MUST_CHECK int lr_site_log_link(FILE *f, struct lr_store *st, const char *dir,
				   int (*save)(struct lr_store *, const char *, const char *), const char *name,
				   const char *sha, int sized);

#endif
