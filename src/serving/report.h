#ifndef LR_SERVING_REPORT_H
#define LR_SERVING_REPORT_H

/*
 * The serving part of a report: a matrix with a row per run or command
 * experiment condition and a column per route, each cell holding its
 * within-route parity (exact/total over the comparisons whose candidate it
 * is) and its gate scores; the combination count; every failing or missing
 * case by id; and per route the median and p90 of latency, TTFT and
 * tokens/s. Recomputed from the stored rows. Nothing here prints.
 */

#include "base/error.h"
#include <stdint.h>

#include "base/model.h"
#include "serving/passes.h"
#include "store/store.h"

#define LR_SERVING_MAXROUTES 32

struct lr_serving_row {
	int64_t run;
	int cond;        /* -1: responses ingested by hand */
	char label[256]; /* "run 7", or "run 7: model=qwen3-4b batch=4" */
};

/* The comparisons of one kind whose candidate is a cell. */
struct lr_serving_parity {
	int comparisons, failing; /* how many; those not all exact (or with a finish reason differing) */
	int64_t exact, compared;  /* cases, summed over them */
};

struct lr_serving_cell {
	int64_t sets, cases;             /* collected: sets > 0 */
	struct lr_serving_parity within; /* kind 'within-route': a route's later sets against its first */
	struct lr_serving_parity cross;  /* kind 'cross-route': against another route (a reference) */
	int64_t referenced;              /* cross-route comparisons that took it as their reference */
	int gated;                       /* a gate scored it (the latest is shown) */
	int64_t strict, formats, eos, gate_total;
	int64_t not_collected; /* requests 'labrun collect' sent or meant to send that did not complete */
	int declared;          /* the row's run meant to collect the route: an arm names it, or a set of it is stored */
};

/* Collected cells by one check: all exact (or a passing gate), failing, never checked. */
struct lr_serving_tally {
	int exact, failing, unchecked;
};

struct lr_serving_dist {
	int64_t n;
	double median, p90;
};

struct lr_serving_route_stats {
	struct lr_serving_dist latency_ms, ttft_ms, tokens_per_s;
};

/*
 * One entry of 'failing' in its parts, for a report to group: the cell (its
 * row and route), what found it, the case, and what is wrong with it.
 */
struct lr_serving_failure {
	int row, route;
	char *check;   /* "gate", "collect", "within-route comparison against R of run N", ...; "" for a cell's own */
	char *case_id; /* NULL for a cell's own (uncollected, never compared) */
	char *what;    /* "format fails; no EOS;", "tokens differ at position 2;", "uncollected: ..." */
};

struct lr_serving_report {
	char routes[LR_SERVING_MAXROUTES][128];
	int nroutes;
	struct lr_serving_row *rows;
	int nrows;
	struct lr_serving_cell *cells; /* nrows x nroutes, row-major */
	/*
	 * Every cell once: ncells = collected + uncollected; each tally adds up
	 * to 'collected' (a cell without responses is checked by nothing). A row
	 * and route whose run never declared the route (no arm names it, no set of
	 * it is stored: a record run with one route beside others) is no cell:
	 * 'undeclared' counts those places of the grid.
	 */
	int ncells, collected, uncollected, undeclared;
	struct lr_serving_tally within, cross, gates;
	struct lr_strlist failing;            /* every failing or missing case, and every uncollected cell, in words */
	struct lr_serving_failure *failures;  /* the same, failing.n of them, in parts */
	int failing_compared, failing_gated;  /* of those, cases a comparison or a gate found */
	int not_collected;                    /* and requests 'labrun collect' did not complete */
	struct lr_serving_route_stats *stats; /* per route */
	struct lr_pass_stats *passes;         /* every pass 'labrun collect' made (serving/passes.h) */
	int npasses;
	struct lr_strlist
		cuts; /* fault evidence: each cut stream's tokens and each cut pass's survivors against the reference */
};

/*
 * Build it over runs[0..n): the routes in the order given (every route found,
 * in order of appearance, when nroutes is 0). nrows is 0 when no run holds
 * responses. Release with lr_serving_report_release() either way.
 */
LR_MUST_CHECK int lr_serving_report_build(struct lr_store *st, const int64_t *runs, int nruns,
					  const char *const *routes, int nroutes, struct lr_serving_report *r);
void lr_serving_report_release(struct lr_serving_report *r);

#endif
