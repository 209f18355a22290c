#ifndef LR_SERVING_PASSES_H
#define LR_SERVING_PASSES_H

/*
 * The figures of each pass 'labrun collect' made, recomputed from its
 * request rows as vLLM's 'bench serve' defines them (docs/serving.md):
 * request and token throughput over the pass, TTFT, TPOT, ITL and E2EL
 * with mean, median, p90 and p99; and the concurrency self-check from the
 * client's own timestamps: the peak and time-weighted mean of requests in
 * flight, the share of the pass at the requested level, and the
 * time-weighted histogram of requests in flight (the lane occupancy the
 * client saw). Nothing here prints.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct lr_dist4 {
	int64_t n;
	double mean, median, p90, p99; /* linear interpolation between ranks, as NumPy's percentile */
};

struct lr_pass_stats {
	int64_t run, set;
	char route[128];
	int cond, concurrency, cancelled;
	double rate; /* asked for; 0: all at once */
	int64_t requests, completed, failed, unsent;
	double duration_s;                            /* from the first request sent to the last ended */
	double request_rate, output_rate, total_rate; /* completed requests, output and all tokens, per second */
	double slo_ms[3]; /* goodput's SLOs: TTFT, TPOT, E2EL; 0: none (set before lr_pass_begin) */
	int64_t good;     /* completed requests that met every SLO given */
	double goodput;   /* good requests per second; 0 without SLOs */
	struct lr_dist4 ttft_ms, tpot_ms, itl_ms, e2el_ms;
	int peak;             /* requests in flight at most */
	double mean_inflight; /* time-weighted over the pass */
	double at_level;      /* share of the pass with the requested concurrency in flight */
	int reached;          /* the requested level was reached at all */
	double *occupancy;    /* [0..peak]: share of the pass with k requests in flight (malloc'd) */
	/* the same from the server's own gauge of running requests, when it was sampled (--metrics-url) */
	int64_t gauge_samples;
	int gauge_peak; /* the running gauge's largest value */
	double gauge_waiting_peak;
	double *gauge_occupancy; /* [0..gauge_peak]: share of the sampled span with k running (malloc'd) */
};

/*
 * One pass's figures from its requests, one at a time: begin with p's
 * settings filled in (concurrency), add each request, end (which computes
 * p and frees what the accumulator holds, whatever 'rc' says; returns rc or
 * its own error). p->occupancy is malloc'd (lr_pass_stats_free).
 */
struct lr_collect_row;
struct lr_values {
	double *v;
	size_t n, cap;
};
/* Append x (LR_ENOMEM when it cannot grow); sort ascending. */
LR_MUST_CHECK int lr_values_push(struct lr_values *s, double x);
void lr_values_sort(struct lr_values *s);
/* The p-th percentile (0..100) of sorted s, between ranks as NumPy's default does; NAN when s is empty. */
double lr_values_percentile(const struct lr_values *s, double p);

struct lr_pass_acc {
	struct lr_pass_stats *p;
	struct lr_values ttft, tpot, itl, e2el;
	struct lr_values edges; /* sent (+) and end (-) times, an end just after a start at the same time */
	double first, last;
	int64_t out_tokens, all_tokens;
};
void lr_pass_begin(struct lr_pass_acc *a, struct lr_pass_stats *p);
LR_MUST_CHECK int lr_pass_add(struct lr_pass_acc *a, const struct lr_collect_row *r);
LR_MUST_CHECK int lr_pass_end(struct lr_pass_acc *a, int rc);

/* Every pass of runs[0..n), by run and set; *out malloc'd (lr_pass_stats_free). */
LR_MUST_CHECK int lr_pass_stats_build(struct lr_store *st, const int64_t *runs, int n, struct lr_pass_stats **out,
				      int *nout);
void lr_pass_stats_free(struct lr_pass_stats *p, int n);

/*
 * Goodput's SLOs as vLLM's bench serve takes them, "ttft:MS tpot:MS e2el:MS"
 * (any of them, blanks or commas between): into slo_ms; LR_EINVAL naming
 * the part that is not one.
 */
LR_MUST_CHECK int lr_pass_slos(const char *text, double slo_ms[3]);

#endif
