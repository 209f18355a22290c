#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lr_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
	out->ratio = exp(lr_median(d, (size_t)n)); /* sorts d */
	out->k = lr_sign_test_k(n, 0.05);
	if (out->k) {
		out->lo = exp(d[out->k - 1]);
		out->hi = exp(d[n - out->k]);
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
	case LR_VERDICT_DETECTABLE:
		snprintf(buf, len, "detectable, below the practical margin");
		break;
	case LR_VERDICT_EQUIVALENT:
		snprintf(buf, len, "equivalent within +-%g%%", margin * 100);
		break;
	default:
		snprintf(buf, len, "inconclusive: add blocks");
		break;
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
	default:
		return lr_verdict_text(buf, len, p, margin, b_name);
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
