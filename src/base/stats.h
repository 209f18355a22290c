#ifndef LR_STATS_H
#define LR_STATS_H

/*
 * The statistics of docs/method.md: paired blocks, their
 * log-ratio estimator, a distribution-free interval, verdicts against a
 * practical margin, and a drift check. Pure functions: no printing, no I/O.
 */

#include "base/error.h"
#include <stddef.h>

/* The median of v[0..n) (v is reordered); 0 when n is 0. */
double lr_median(double *v, size_t n);

/* The k-th smallest of v[0..n) (k from 0), in O(n): v is reordered, smaller ones before v[k]. */
double lr_select(double *v, size_t n, size_t k);

/*
 * The sign-test order statistic for a two-sided (1 - alpha) interval of the
 * median of n values: the largest k with P(Binom(n, 1/2) <= k - 1) <= alpha/2,
 * so the interval is [x(k), x(n+1-k)] of the sorted values. 0 when no such k
 * exists (n <= 5 at alpha = 0.05: such samples can never reach 95%).
 * n = 10 -> 2, n = 20 -> 6, n = 30 -> 10.
 */
LR_MUST_CHECK int lr_sign_test_k(int n, double alpha);

/* A paired comparison of arm B against arm A over n blocks. */
struct lr_paired {
	int n;         /* blocks */
	double ratio;  /* exp(median d_i): B's time over A's */
	double lo, hi; /* 95% interval of the ratio; 0 and +inf when none exists */
	int k;         /* sign-test order statistic used (0: no interval) */
};

/*
 * Per block i, d_i = ln((b1[i] + b2[i]) / (a1[i] + a2[i])) (the ABBA or BAAB
 * block's two repetitions of each arm); ratio = exp(median d_i), interval
 * from the sign test at 95%. Times must be positive. 0, or LR_EINVAL.
 */
LR_MUST_CHECK int lr_paired_estimate(const double *a1, const double *a2, const double *b1, const double *b2, int n,
				     struct lr_paired *out);

/*
 * The same from two arms' repetitions in block order, two per block
 * (a[2i] and a[2i+1] are arm A's in block i): any number of blocks.
 */
LR_MUST_CHECK int lr_paired_from_reps(const double *a, const double *b, int blocks, struct lr_paired *out);

/* The fewest blocks whose sign-test interval can reach 95% (docs/method.md). */
#define LR_MIN_BLOCKS 6

enum lr_verdict {
	LR_VERDICT_FASTER,           /* interval entirely below 1 - margin */
	LR_VERDICT_SLOWER,           /* interval entirely above 1 + margin */
	LR_VERDICT_FASTER_DIRECTION, /* below 1, crosses 1 - margin: a direction, no size beyond the margin */
	LR_VERDICT_SLOWER_DIRECTION, /* above 1, crosses 1 + margin: the same, the other way */
	LR_VERDICT_DETECTABLE,       /* excludes 1, inside +-margin */
	LR_VERDICT_EQUIVALENT,       /* contains 1, inside +-margin */
	LR_VERDICT_INCONCLUSIVE,     /* contains 1 and reaches past the margin, or no interval: add blocks */
};

/* The verdict for B against A with practical margin 'margin' (0.02 for 2%). */
enum lr_verdict lr_verdict_of(const struct lr_paired *p, double margin);

/*
 * The verdict in the method file's words, e.g. "B is 26.9% faster [25.1%, 28.3%]",
 * "B is faster [0.5%, 4.0%], not shown beyond the 2% margin",
 * "detectable, below the practical margin", "equivalent within +-2%",
 * "inconclusive: add blocks". Writes into buf; returns buf.
 */
const char *lr_verdict_text(char *buf, size_t len, const struct lr_paired *p, double margin, const char *b_name);

/*
 * The verdict for a metric other than time, in its own words: "B has 17.2%
 * lower throughput [15.0%, 19.1%]", "B has 3.1% higher throughput [...]",
 * "B has lower throughput [0.5%, 4.0%], not shown beyond the 2% margin";
 * the other verdicts as lr_verdict_text. 'higher' says higher is better,
 * which decides nothing but is kept with the figure: the words say which
 * way it moved, never "faster". With metric NULL or "", lr_verdict_text.
 */
const char *lr_verdict_metric_text(char *buf, size_t len, const struct lr_paired *p, double margin, const char *b_name,
				   const char *metric);

/*
 * Drift over a run: the least-squares slope of ln(t[i]) over i, as the
 * relative change from the first to the last of n values (exp(slope*(n-1)) - 1).
 * 0 when n < 3.
 */
double lr_drift(const double *t, int n);

/*
 * The trend of the block ratios themselves over the block index, the one
 * drift the paired design does not cancel (docs/method.md, "Drift"): ABBA
 * cancels a drift both arms share, not a change in B/A itself. Kendall's
 * rank correlation of ln ratio[i] with i, its two-sided p exact under
 * exchangeable blocks (from the distribution of inversions) up to 200
 * blocks, from the normal approximation beyond; the size is Sen's slope
 * (the median of the pairwise slopes) as the relative change from the first
 * block to the last. Flagged when p <= LR_TREND_ALPHA. Beyond LR_TREND_POINTS
 * blocks, both run on the means of that many runs of consecutive blocks (the
 * pairs grow as the square of the points).
 */
struct lr_trend {
	int n;         /* blocks; 0: fewer than 3, no test */
	double tau;    /* Kendall's tau of ln ratio over the block index */
	double p;      /* two-sided p of no trend; 1 when not tested */
	double change; /* exp(Sen's slope * (n - 1)) - 1: the ratio's change over the blocks */
	int flagged;   /* p <= LR_TREND_ALPHA */
};

/* The false-alarm rate per row the trend rule allows (docs/method.md says why 2%). */
#define LR_TREND_ALPHA  0.02
#define LR_TREND_POINTS 1000

/* The trend of ratio[0..n) (positive values, in block order); 0, or LR_ENOMEM. */
LR_MUST_CHECK int lr_ratio_trend(const double *ratio, int n, struct lr_trend *out);

#endif
