#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/stats.h"

/* The method file's table: n=10 -> [d(2), d(9)], n=20 -> [d(6), d(15)], n=30 -> [d(10), d(21)]. */
static void sign_test_order_statistics_match_the_method(void **state)
{
	(void)state;
	assert_int_equal(lr_sign_test_k(10, 0.05), 2);
	assert_int_equal(lr_sign_test_k(20, 0.05), 6);
	assert_int_equal(lr_sign_test_k(30, 0.05), 10);
	/* n <= 5 can never reach 95%; n = 6 just can */
	for (int n = 1; n <= 5; n++)
		assert_int_equal(lr_sign_test_k(n, 0.05), 0);
	assert_int_equal(lr_sign_test_k(6, 0.05), 1);
}

/*
 * Large n, where 0.5^n underflows (from n = 1,075): the expected k were
 * computed exactly, with integers, as the largest k such that
 * 40 * sum_{i<k} C(n, i) <= 2^n (Python, arbitrary precision; the script is
 * in the comment of issue 11's closing note).
 */
static void sign_test_k_at_any_size(void **state)
{
	static const struct {
		int n, k;
	} exact[] = {
		{ 6, 1 }, { 60, 22 }, { 1074, 505 }, { 1075, 505 }, { 1100, 518 }, { 5000, 2431 }, { 100000, 49690 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (lr_sign_test_k(exact[i].n, 0.05) != exact[i].k)
			fail_msg("n = %d: k = %d, exact %d", exact[i].n, lr_sign_test_k(exact[i].n, 0.05), exact[i].k);
}

/* A sign-test k is valid and maximal: checked against binomial sums computed directly. */
static void sign_test_k_is_the_largest_valid_one(void **state)
{
	int n, k;

	(void)state;
	for (n = 1; n <= 60; n++) {
		double cdf_km1 = 0, cdf_k = 0, c = 1;
		int j;

		k = lr_sign_test_k(n, 0.05);
		for (j = 0; j <= k; j++) {
			if (j)
				c = c * (n - j + 1) / j;
			if (j <= k - 1)
				cdf_km1 += c * pow(0.5, n);
			cdf_k += c * pow(0.5, n);
		}
		if (k)
			assert_true(cdf_km1 <= 0.025);
		assert_true(cdf_k > 0.025);
	}
}

static void paired_estimate_recovers_a_known_ratio(void **state)
{
	double a1[10], a2[10], b1[10], b2[10];
	struct lr_paired p;
	int i;

	(void)state;
	/* B takes 0.73 of A's time in every block, with drift shared by both arms */
	for (i = 0; i < 10; i++) {
		a1[i] = 100 + i;
		a2[i] = 101 + i;
		b1[i] = 0.73 * (100.5 + i);
		b2[i] = 0.73 * (100.5 + i);
	}
	assert_int_equal(lr_paired_estimate(a1, a2, b1, b2, 10, &p), 0);
	assert_true(fabs(p.ratio - 0.73) < 1e-12);
	assert_true(fabs(p.lo - 0.73) < 1e-12 && fabs(p.hi - 0.73) < 1e-12);
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_FASTER);
	{
		char buf[128];

		lr_verdict_text(buf, sizeof buf, &p, 0.02, "arithmetic");
		assert_string_equal(buf, "arithmetic is 27.0% faster [27.0%, 27.0%]");
	}
}

static void interval_uses_the_order_statistics(void **state)
{
	/* d_i = ln(b/a) chosen so sorted d are known: ratios 0.90 .. 0.99 */
	double a[10], b[10];
	struct lr_paired p;
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		a[i] = 1;
		b[i] = 0.90 + 0.01 * ((i * 7) % 10); /* a permutation of 0.90..0.99 */
	}
	assert_int_equal(lr_paired_estimate(a, a, b, b, 10, &p), 0);
	assert_true(fabs(p.lo - 0.91) < 1e-9);                 /* d(2) */
	assert_true(fabs(p.hi - 0.98) < 1e-9);                 /* d(9) */
	assert_true(fabs(p.ratio - sqrt(0.94 * 0.95)) < 1e-9); /* exp(mean of the middle logs) */
}

static void verdicts_follow_the_method_wording(void **state)
{
	struct lr_paired p = { 10, 1, 0, 0, 2 };
	char buf[128];

	(void)state;
	p.ratio = 1.05, p.lo = 1.03, p.hi = 1.07;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_SLOWER);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"), "B is 5.0% slower [3.0%, 7.0%]");
	p.ratio = 0.99, p.lo = 0.985, p.hi = 0.995;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_DETECTABLE);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"), "detectable, below the practical margin");
	p.ratio = 1.0, p.lo = 0.99, p.hi = 1.01;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_EQUIVALENT);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"), "equivalent within +-2%");
	p.ratio = 1.0, p.lo = 0.95, p.hi = 1.04;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_INCONCLUSIVE);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"), "inconclusive: add blocks");
	/* excludes 1, crosses the margin on one side: a direction, not a size */
	p.ratio = 0.98, p.lo = 0.96, p.hi = 0.995;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_FASTER_DIRECTION);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"),
			    "B is faster [0.5%, 4.0%], not shown beyond the 2% margin");
	assert_string_equal(lr_verdict_metric_text(buf, sizeof buf, &p, 0.02, "B", "throughput"),
			    "B has lower throughput [0.5%, 4.0%], not shown beyond the 2% margin");
	p.ratio = 1.02, p.lo = 1.005, p.hi = 1.04;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_SLOWER_DIRECTION);
	assert_string_equal(lr_verdict_text(buf, sizeof buf, &p, 0.02, "B"),
			    "B is slower [0.5%, 4.0%], not shown beyond the 2% margin");
	/* contains 1, crosses the margin on one side only: still no direction */
	p.ratio = 0.99, p.lo = 0.97, p.hi = 1.005;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_INCONCLUSIVE);
	/* too few blocks for an interval: never a "no difference" */
	p.k = 0, p.lo = 0, p.hi = INFINITY;
	assert_int_equal(lr_verdict_of(&p, 0.02), LR_VERDICT_INCONCLUSIVE);
}

static void estimates_refuse_bad_input(void **state)
{
	double one = 1, zero = 0;
	struct lr_paired p;

	(void)state;
	assert_int_equal(lr_paired_estimate(&one, &one, &one, &one, 0, &p), LR_EINVAL);
	assert_int_equal(lr_paired_estimate(&one, &zero, &one, &one, 1, &p), LR_EINVAL);
	/* one block: a ratio but no interval */
	assert_int_equal(lr_paired_estimate(&one, &one, &one, &one, 1, &p), 0);
	assert_int_equal(p.k, 0);
}

static void drift_is_measured_as_relative_change(void **state)
{
	double flat[8], rising[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		flat[i] = 5 + (i % 2 ? 0.01 : -0.01);
		rising[i] = 5 * pow(1.01, i); /* 1% per block */
	}
	assert_true(fabs(lr_drift(flat, 8)) < 0.005);
	assert_true(fabs(lr_drift(rising, 8) - (pow(1.01, 7) - 1)) < 1e-9);
	assert_true(lr_drift(rising, 2) == 0);
}

/* Kendall's exact p against the distribution of inversions, as a table gives it. */
static void ratio_trend_p_is_exact(void **state)
{
	double up[10], swapped[10], flat[10];
	struct lr_trend t;

	(void)state;
	for (int i = 0; i < 10; i++) {
		up[i] = pow(1.01, i);
		flat[i] = 1.5;
	}
	assert_int_equal(lr_ratio_trend(up, 10, &t), 0);
	assert_true(fabs(t.p - 2.0 / 3628800) < 1e-12); /* one ordering of 10! either way */
	assert_true(t.tau == 1 && t.flagged);
	assert_true(fabs(t.change - (pow(1.01, 9) - 1)) < 1e-9); /* Sen's slope: 1% a block */
	/* 11 of the 45 pairs discordant: S = 23, P(|S| >= 23) = 0.0466 (a table of Kendall's S for n = 10) */
	for (int i = 0; i < 10; i++)
		swapped[i] = 1 + 0.01 * ((int[]){ 4, 1, 2, 3, 0, 5, 7, 9, 8, 6 })[i];
	assert_int_equal(lr_ratio_trend(swapped, 10, &t), 0);
	assert_true(fabs(t.tau - 23.0 / 45) < 1e-12);
	assert_true(fabs(t.p - 0.0466225749559083) < 1e-9);
	assert_false(t.flagged); /* above LR_TREND_ALPHA */
	assert_int_equal(lr_ratio_trend(flat, 10, &t), 0);
	assert_true(t.p == 1 && !t.flagged && t.change == 0);
	assert_int_equal(lr_ratio_trend(up, 2, &t), 0);
	assert_true(t.n == 0 && t.p == 1);
}

/* A seeded generator for the simulation: splitmix64, then Box-Muller. */
static uint64_t rng = 42;

static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
	double u = uniform();

	return sqrt(-2 * log(u > 0 ? u : 0x1.0p-53)) * cos(2 * M_PI * uniform());
}

/*
 * One simulated repetition's time at position 'pos' of the run (4 per
 * block): a drift both arms share (0.15 in log, +16.2%, over the run, as large as the
 * per-arm drift the Quick start's report showed), log-normal noise of 1%,
 * and one repetition in ten interfered (slower by |N(0, 5%)|).
 */
static double rep_time(double base, int pos, int reps)
{
	double t = base * exp(0.15 * pos / (reps - 1) + 0.01 * gauss());

	return uniform() < 0.1 ? t * exp(fabs(0.05 * gauss())) : t;
}

/*
 * Designs of n blocks, ABBA then BAAB, B/A = 0.7 at the start and changing
 * by 'trend' (0.05: 5%) to the last block, linear in log; how many of
 * 'designs' the rule flags.
 */
static int simulate(int designs, int n, double trend)
{
	double *ratio = malloc((size_t)n * sizeof *ratio);
	int flagged = 0;

	for (int d = 0; d < designs; d++) {
		for (int i = 0; i < n; i++) {
			double b = 0.7 * exp(log(1 + trend) * i / (n - 1)), a1, a2, b1, b2;
			int p = 4 * i, abba = i % 2 == 0;

			a1 = rep_time(1, abba ? p : p + 1, 4 * n);
			b1 = rep_time(b, abba ? p + 1 : p, 4 * n);
			b2 = rep_time(b, abba ? p + 2 : p + 3, 4 * n);
			a2 = rep_time(1, abba ? p + 3 : p + 2, 4 * n);
			ratio[i] = (b1 + b2) / (a1 + a2);
		}
		struct lr_trend t;

		assert_int_equal(lr_ratio_trend(ratio, n, &t), 0);
		flagged += t.flagged;
	}
	free(ratio);
	return flagged;
}

/* Beyond LR_TREND_POINTS blocks the rule runs on means of consecutive blocks: a trend is still seen, its size kept. */
static void ratio_trend_of_many_blocks(void **state)
{
	enum { N = 5000 };
	double *r = malloc(N * sizeof *r);
	struct lr_trend t;

	(void)state;
	rng = 7;
	for (int i = 0; i < N; i++)
		r[i] = 0.7 * exp(log(1.05) * i / (N - 1) + 0.01 * gauss());
	assert_int_equal(lr_ratio_trend(r, N, &t), 0);
	assert_true(t.n == N && t.flagged && fabs(t.change - 0.05) < 0.01);
	for (int i = 0; i < N; i++)
		r[i] = 0.7 * exp(0.01 * gauss());
	assert_int_equal(lr_ratio_trend(r, N, &t), 0);
	assert_true(!t.flagged && fabs(t.change) < 0.01);
	free(r);
}

/*
 * docs/method.md's figures: 200 trend-free designs of 10 blocks (the Quick
 * start's) flag at most 5%, and 200 whose block ratio changes by 8% over
 * the blocks (the declared size: four times the default 2% margin) are
 * flagged in most; the other sizes are the rule's power around it. Seeded:
 * the same figures every time.
 */
static void ratio_trend_rule_simulated(void **state)
{
	static const double sizes[] = { 0, 0.03, 0.05, 0.08, 0.10 };
	int flagged[5], quiet20, trending20;

	(void)state;
	rng = 42;
	for (int k = 0; k < 5; k++)
		flagged[k] = simulate(200, 10, sizes[k]);
	quiet20 = simulate(200, 20, 0);
	trending20 = simulate(200, 20, 0.05);
	print_message("ratio trend rule, seed 42, 200 designs each; 10 blocks: %d flagged without a trend, "
		      "%d with a 3%% trend, %d with 5%%, %d with 8%%, %d with 10%%; 20 blocks: %d without, %d with "
		      "5%%\n",
		      flagged[0], flagged[1], flagged[2], flagged[3], flagged[4], quiet20, trending20);
	assert_true(flagged[0] <= 10);
	assert_true(flagged[3] > 100);
	assert_true(quiet20 <= 10);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Selection gives what sorting gives: every rank, odd and even sizes, runs of equal values. */
static void select_and_median_agree_with_sorting(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 10, 11, 64, 1001, 4096 };
	double *v = malloc(4096 * sizeof *v), *sorted = malloc(4096 * sizeof *sorted), want;
	unsigned x = 12345;
	size_t s, i, k;
	int dup;

	(void)state;
	for (dup = 0; dup < 2; dup++)
		for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			size_t n = sizes[s];

			for (i = 0; i < n; i++) {
				x = x * 1103515245u + 12345u;
				sorted[i] = dup ? (double)(x >> 28) : (double)(x >> 8) / 7.0; /* dup: 16 values */
			}
			memcpy(v, sorted, n * sizeof *v);
			qsort(sorted, n, sizeof *sorted, by_value);
			for (k = 0; k<n; k += n> 64 ? 97 : 1) {
				memcpy(v, sorted, n * sizeof *v);
				for (i = n - 1; i > 0; i--) { /* shuffled copy */
					size_t j = (x = x * 1103515245u + 12345u) % (i + 1);
					double t = v[i];

					v[i] = v[j];
					v[j] = t;
				}
				assert_true(lr_select(v, n, k) == sorted[k]);
				for (i = 0; i < n; i++)
					assert_true(i < k ? v[i] <= sorted[k] : i > k ? v[i] >= sorted[k] : 1);
			}
			memcpy(v, sorted, n * sizeof *v);
			want = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
			assert_true(lr_median(v, n) == want);
		}
	free(v);
	free(sorted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sign_test_order_statistics_match_the_method),
		cmocka_unit_test(select_and_median_agree_with_sorting),
		cmocka_unit_test(sign_test_k_is_the_largest_valid_one),
		cmocka_unit_test(sign_test_k_at_any_size),
		cmocka_unit_test(paired_estimate_recovers_a_known_ratio),
		cmocka_unit_test(interval_uses_the_order_statistics),
		cmocka_unit_test(verdicts_follow_the_method_wording),
		cmocka_unit_test(estimates_refuse_bad_input),
		cmocka_unit_test(drift_is_measured_as_relative_change),
		cmocka_unit_test(ratio_trend_p_is_exact),
		cmocka_unit_test(ratio_trend_rule_simulated),
		cmocka_unit_test(ratio_trend_of_many_blocks),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
