#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "base/stats.h"

/*
 * Move the k-th smallest of v[0..n) to v[k], smaller ones before it and
 * larger ones after (Hoare's selection, median-of-three pivots): O(n) on
 * average, where sorting a million repetitions to read three of them took
 * most of a report's time. NaNs are not expected (times are positive).
 */
static void select_kth(double *v, int64_t n, int64_t k)
{
	int64_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], t;
		double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		int64_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i], v[i] = v[j], v[j] = t;
				i++;
				j--;
			}
		}
		/* v[lo..j] <= pivot <= v[i..hi]; what lies between equals the pivot */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

double lr_select(double *v, size_t n, size_t k)
{
	select_kth(v, (int64_t)n, (int64_t)k);
	return v[k];
}

double lr_median(double *v, size_t n)
{
	double upper, lower;
	size_t i;

	if (!n)
		return 0;
	upper = lr_select(v, n, n / 2);
	if (n % 2)
		return upper;
	/* the lower middle is the largest of the half before it */
	for (lower = v[0], i = 1; i < n / 2; i++)
		if (v[i] > lower)
			lower = v[i];
	return (lower + upper) / 2;
}

int lr_sign_test_k(int n, double alpha)
{
	/*
	 * In log space: 0.5^n underflows from n = 1,075, which once made every
	 * k valid and the interval a single point. P(X = j) = exp(log C(n, j)
	 * - n log 2); terms far below alpha underflow to 0 harmlessly.
	 */
	double lognf = lgamma(n + 1.0), log2n = n * log(2.0), cdf = 0;
	int k;

	/* cdf runs over P(X <= k - 1); stop before it passes alpha / 2 */
	for (k = 1; k <= n / 2; k++) {
		int j = k - 1;

		cdf += exp(lognf - lgamma(j + 1.0) - lgamma(n - j + 1.0) - log2n);
		if (cdf > alpha / 2)
			return k - 1;
	}
	return n / 2;
}

int lr_paired_estimate(const double *a1, const double *a2, const double *b1, const double *b2, int n,
		       struct lr_paired *out)
{
	double *d;
	int i;

	out->n = n;
	out->k = 0;
	if (n < 1)
		return lr_error_set(LR_EINVAL, "a paired estimate needs at least one block");
	d = malloc((size_t)n * sizeof *d);
	if (!d)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (!(a1[i] > 0 && a2[i] > 0 && b1[i] > 0 && b2[i] > 0)) {
			free(d);
			return lr_error_set(LR_EINVAL, "block %d has a time that is not positive", i);
		}
		d[i] = log((b1[i] + b2[i]) / (a1[i] + a2[i]));
	}
	out->ratio = exp(lr_median(d, (size_t)n)); /* reorders d */
	out->k = lr_sign_test_k(n, 0.05);
	if (out->k) {
		out->lo = exp(lr_select(d, (size_t)n, (size_t)(out->k - 1)));
		out->hi = exp(lr_select(d, (size_t)n, (size_t)(n - out->k)));
	} else {
		out->lo = 0;
		out->hi = INFINITY;
	}
	free(d);
	return 0;
}

int lr_paired_from_reps(const double *a, const double *b, int blocks, struct lr_paired *out)
{
	double *v = malloc((size_t)(blocks > 0 ? blocks : 1) * 4 * sizeof *v);
	int i, rc;

	if (!v)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < blocks; i++) {
		v[i] = a[2 * i];
		v[blocks + i] = a[2 * i + 1];
		v[2 * blocks + i] = b[2 * i];
		v[3 * blocks + i] = b[2 * i + 1];
	}
	rc = lr_paired_estimate(v, v + blocks, v + 2 * blocks, v + 3 * blocks, blocks, out);
	free(v);
	return rc;
}

enum lr_verdict lr_verdict_of(const struct lr_paired *p, double margin)
{
	int inside = p->lo >= 1 - margin && p->hi <= 1 + margin;

	if (p->hi < 1 - margin)
		return LR_VERDICT_FASTER;
	if (p->lo > 1 + margin)
		return LR_VERDICT_SLOWER;
	if (inside)
		return p->hi < 1 || p->lo > 1 ? LR_VERDICT_DETECTABLE : LR_VERDICT_EQUIVALENT;
	if (p->hi < 1)
		return LR_VERDICT_FASTER_DIRECTION;
	if (p->lo > 1)
		return LR_VERDICT_SLOWER_DIRECTION;
	return LR_VERDICT_INCONCLUSIVE;
}

const char *lr_verdict_text(char *buf, size_t len, const struct lr_paired *p, double margin, const char *b_name)
{
	switch (lr_verdict_of(p, margin)) {
	case LR_VERDICT_FASTER:
		/* faster by 1 - ratio; the interval's ends swap */
		snprintf(buf, len, "%s is %.1f%% faster [%.1f%%, %.1f%%]", b_name, (1 - p->ratio) * 100,
			 (1 - p->hi) * 100, (1 - p->lo) * 100);
		break;
	case LR_VERDICT_SLOWER:
		snprintf(buf, len, "%s is %.1f%% slower [%.1f%%, %.1f%%]", b_name, (p->ratio - 1) * 100,
			 (p->lo - 1) * 100, (p->hi - 1) * 100);
		break;
	case LR_VERDICT_FASTER_DIRECTION:
		snprintf(buf, len, "%s is faster [%.1f%%, %.1f%%], not shown beyond the %g%% margin", b_name,
			 (1 - p->hi) * 100, (1 - p->lo) * 100, margin * 100);
		break;
	case LR_VERDICT_SLOWER_DIRECTION:
		snprintf(buf, len, "%s is slower [%.1f%%, %.1f%%], not shown beyond the %g%% margin", b_name,
			 (p->lo - 1) * 100, (p->hi - 1) * 100, margin * 100);
		break;
	case LR_VERDICT_DETECTABLE: snprintf(buf, len, "detectable, below the practical margin"); break;
	case LR_VERDICT_EQUIVALENT: snprintf(buf, len, "equivalent within +-%g%%", margin * 100); break;
	default: snprintf(buf, len, "inconclusive: add blocks"); break;
	}
	return buf;
}

const char *lr_verdict_metric_text(char *buf, size_t len, const struct lr_paired *p, double margin, const char *b_name,
				   const char *metric)
{
	if (!metric || !*metric)
		return lr_verdict_text(buf, len, p, margin, b_name);
	switch (lr_verdict_of(p, margin)) {
	case LR_VERDICT_FASTER: /* ratio below 1: lower */
		snprintf(buf, len, "%s has %.1f%% lower %s [%.1f%%, %.1f%%]", b_name, (1 - p->ratio) * 100, metric,
			 (1 - p->hi) * 100, (1 - p->lo) * 100);
		return buf;
	case LR_VERDICT_SLOWER:
		snprintf(buf, len, "%s has %.1f%% higher %s [%.1f%%, %.1f%%]", b_name, (p->ratio - 1) * 100, metric,
			 (p->lo - 1) * 100, (p->hi - 1) * 100);
		return buf;
	case LR_VERDICT_FASTER_DIRECTION:
		snprintf(buf, len, "%s has lower %s [%.1f%%, %.1f%%], not shown beyond the %g%% margin", b_name, metric,
			 (1 - p->hi) * 100, (1 - p->lo) * 100, margin * 100);
		return buf;
	case LR_VERDICT_SLOWER_DIRECTION:
		snprintf(buf, len, "%s has higher %s [%.1f%%, %.1f%%], not shown beyond the %g%% margin", b_name,
			 metric, (p->lo - 1) * 100, (p->hi - 1) * 100, margin * 100);
		return buf;
	default: return lr_verdict_text(buf, len, p, margin, b_name);
	}
}

double lr_drift(const double *t, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, slope;
	int i;

	if (n < 3)
		return 0;
	for (i = 0; i < n; i++) {
		double y = log(t[i]);

		sx += i;
		sy += y;
		sxx += (double)i * i;
		sxy += i * y;
	}
	slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	return exp(slope * (n - 1)) - 1;
}

/*
 * P(at most 'inv' inversions) in a random permutation of n: the distribution
 * of inversions is the product over j = 1..n of uniform(0..j-1), convolved
 * one factor at a time with a running sum. -1 when out of memory.
 */
static double inversions_cdf(int n, int64_t inv)
{
	int64_t most = (int64_t)n * (n - 1) / 2, len = 1, k;
	double *p = calloc((size_t)most + 1, sizeof *p), *q = calloc((size_t)most + 1, sizeof *q), *t, cdf = 0;

	if (!p || !q) {
		free(p);
		free(q);
		return -1;
	}
	p[0] = 1;
	for (int j = 2; j <= n; j++) {
		double run = 0;

		for (k = 0; k < len + j - 1; k++) { /* q[k] = (p[k - j + 1] + ... + p[k]) / j */
			run += k < len ? p[k] : 0;
			run -= k - j >= 0 ? p[k - j] : 0;
			q[k] = run / j;
		}
		len += j - 1;
		t = p, p = q, q = t;
	}
	for (k = 0; k <= inv && k < len; k++)
		cdf += p[k];
	free(p);
	free(q);
	return cdf;
}

/* Kendall's S of y over its index: concordant minus discordant pairs. */
static int64_t kendall_s(const double *y, int n)
{
	int64_t s = 0;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	return s;
}

/* Sen's slope of y over x (x increasing): the median of the pairwise slopes; NAN when out of memory. */
static double sen_slope(const double *x, const double *y, int n)
{
	int64_t pairs = (int64_t)n * (n - 1) / 2, k = 0;
	double *slope = malloc((size_t)pairs * sizeof *slope), med;

	if (!slope)
		return NAN;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			slope[k++] = (y[j] - y[i]) / (x[j] - x[i]);
	med = lr_median(slope, (size_t)pairs);
	free(slope);
	return med;
}

/* Two-sided p of Kendall's S = s over n points with no trend. -1 when out of memory. */
static double kendall_p(int64_t s, int n)
{
	int64_t pairs = (int64_t)n * (n - 1) / 2, a = s < 0 ? -s : s;
	double p;

	if (n <= 200) { /* |S| >= a: at most (pairs - a) / 2 inversions, either way */
		if ((p = inversions_cdf(n, (pairs - a) / 2)) < 0)
			return -1;
		p *= 2;
	} else { /* the normal approximation, with a continuity correction */
		p = erfc((a - 1) / sqrt((double)n * (n - 1) * (2.0 * n + 5) / 18) / sqrt(2));
	}
	return p > 1 ? 1 : p;
}

int lr_ratio_trend(const double *ratio, int n, struct lr_trend *out)
{
	int m = n > LR_TREND_POINTS ? LR_TREND_POINTS : n, rc = 0;
	double *x = malloc((size_t)(m > 0 ? m : 1) * sizeof *x), *y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);

	memset(out, 0, sizeof *out);
	out->p = 1;
	if (!x || !y) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if (n < 3)
		goto out;
	for (int b = 0; b < m; b++) { /* point b: the mean ln ratio of blocks [from, to), at their centre */
		int64_t from = (int64_t)b * n / m, to = (int64_t)(b + 1) * n / m;

		y[b] = 0;
		for (int64_t i = from; i < to; i++)
			y[b] += log(ratio[i]) / (double)(to - from);
		x[b] = (double)(from + to - 1) / 2;
	}
	out->n = n;
	out->change = exp(sen_slope(x, y, m) * (n - 1)) - 1;
	out->tau = (double)kendall_s(y, m) / ((double)m * (m - 1) / 2);
	out->p = kendall_p(kendall_s(y, m), m);
	if (isnan(out->change) || out->p < 0)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	out->flagged = !rc && out->p <= LR_TREND_ALPHA;
out:
	free(x);
	free(y);
	return rc;
}
