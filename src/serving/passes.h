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

#include "store/collect.h"
#include "store/store.h"

struct lr_dist4 {
	int64_t n;
	double mean, median, p90, p99; /* linear interpolation between ranks, as NumPy's percentile */
};

/*
 * A pass's validity rules, in the manner of MLPerf LoadGen (docs/serving.md):
 * each 0 when not declared. Always checked besides: every request sent
 * completed, the concurrency asked was reached (a pass without a rate),
 * Little's law holds, and every stream agrees with itself (TEST06).
 */
struct lr_valid_rules {
	double min_duration_s;   /* the pass lasts this long at least */
	int64_t min_requests;    /* requests sent at least */
	double ttft_ms, tpot_ms; /* TTFT and TPOT at the percentile at most */
	double percentile;       /* of the limits: 99 unless declared */
	int linear;              /* 0: nearest-rank, LoadGen's sorted[floor(n p)]; 1: NumPy's linear */
	int early;               /* LoadGen's early stopping on the TTFT and TPOT limits (confidence 0.99) */
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
	int level_asked;      /* 0: a rate drove the pass with no cap on its concurrency, no level to reach */
	double mean_inflight; /* time-weighted over the pass */
	double at_level;      /* share of the pass with the requested concurrency in flight */
	int reached;          /* the requested level was reached at all */
	double *occupancy;    /* [0..peak]: share of the pass with k requests in flight (malloc'd) */
	/* the same from the server's own gauge of running requests, when it was sampled (--metrics-url) */
	int64_t gauge_samples;
	int gauge_peak; /* the running gauge's largest value */
	double gauge_waiting_peak;
	double *gauge_occupancy; /* [0..gauge_peak]: share of the sampled span with k running (malloc'd) */
	int64_t gauge_failed;    /* scrapes that failed: gaps, never the previous value held */
	double gauge_gap_s;      /* the time from each failed scrape to the next answer */
	double gauge_mean;       /* running + waiting, time-weighted over the answered span; NAN: none */
	/* the client checked against itself (TEST06) and its schedule */
	struct lr_dist4 sched_ttft_ms, sched_e2el_ms, lag_ms; /* from the scheduled time; the send lag */
	int64_t usage_differs; /* completed streams whose usage.completion_tokens is not the tokens received */
	int64_t first_late;    /* completed streams whose timed first event did not carry the first token */
	int has_checks;        /* the rows hold the checks (a pass stored since migration 24) */
	/* the verdict (lr_pass_verdict): rules in, figures and failed rules out */
	struct lr_valid_rules rules;
	double ttft_at, tpot_at;      /* TTFT and TPOT at the rules' percentile, in its convention; NAN: none */
	int64_t ttft_over, tpot_over; /* requests over the TTFT and TPOT limits (early stopping's t) */
	double little_n, little_xr;   /* time-weighted in flight; completion rate x mean E2EL */
	int little_gauge;             /* a flag: the server's gauge_mean is beyond 25% of little_xr */
	int valid;
	char invalid[1024]; /* every failed rule, "; " between them */
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
	struct lr_values ttft, tpot, itl, e2el, sttft, se2el, lag;
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
 * (validity.c) Goodput's SLOs as vLLM's bench serve takes them, "ttft:MS tpot:MS e2el:MS"
 * (any of them, blanks or commas between): into slo_ms; LR_EINVAL naming
 * the part that is not one.
 */
LR_MUST_CHECK int lr_pass_slos(const char *text, double slo_ms[3]);

/* ---- validity (validity.c) ---- */

/*
 * Validity rules as collect --validity and a definition's 'validity' take
 * them: "duration:S requests:N ttft:MS tpot:MS percentile:P
 * convention:nearest-rank|linear" (any of them, blanks or commas between);
 * LR_EINVAL naming the part that is not one.
 */
LR_MUST_CHECK int lr_valid_rules_parse(const char *text, struct lr_valid_rules *r);
/* How many of v are over 'limit' (0: no limit, none). */
int64_t lr_valid_over(const struct lr_values *v, double limit);
/*
 * LoadGen's early stopping: with t of the queries over the limit of the
 * p-th percentile, the queries needed at least, h + t for the smallest h
 * with I(p; h, t + 1) <= 1 - confidence (the regularized incomplete beta,
 * P(Binomial(h + t, p) >= h)); 0 when none can do (t beyond the cap).
 */
int64_t lr_valid_early_needed(int64_t t, double p, double confidence);
/* The sorted v's p-th percentile in the rules' convention; NAN when empty. */
double lr_valid_percentile(const struct lr_valid_rules *r, const struct lr_values *v);
/* The verdict of p (its figures computed, gauges included): p->valid, p->failed, the Little's-law figures. */
void lr_pass_verdict(struct lr_pass_stats *p);
/* The gauges' figures of p from samples[0..n) in time order (a failed scrape a gap). */
LR_MUST_CHECK int lr_pass_gauges(struct lr_pass_stats *p, const struct lr_gauge_sample *g, size_t n);

#endif
