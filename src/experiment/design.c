/* The paired design (docs/method.md): the arms' order in a block, and a condition's estimate. */
#include "config.h"
#include "base/system.h"

#include "base/stats.h"
#include "experiment/design.h"
#include "store/experiments.h"

/* Arm order within block b: forward then reversed, or the reverse; random draws from the seed. */
void lr_design_block_order(const struct lr_expdef *d, int b, uint64_t *rng, int *order)
{
	int k = d->narms, i, perm[LR_EXP_MAXARMS];

	for (i = 0; i < k; i++)
		perm[i] = i;
	if (d->order == LR_ORDER_RANDOM) {
		for (i = k - 1; i > 0; i--) {
			int j, t;

			*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
			j = (int)((*rng >> 33) % (uint64_t)(i + 1));
			t = perm[i], perm[i] = perm[j], perm[j] = t;
		}
	} else if (b % 2) {
		for (i = 0; i < k; i++)
			perm[i] = k - 1 - i;
	}
	for (i = 0; i < k; i++) {
		order[i] = perm[i];
		order[2 * k - 1 - i] = perm[i];
	}
}

/*
 * Summaries of one condition from its repetitions (timed blocks only): of
 * values[i] per repetition when given (a command experiment's metric), else
 * of the time per execution.
 */
void lr_design_summarise(const struct lr_expdef *d, struct lr_run_condition *c, const struct lr_store_rep *reps,
			 const double *values, int n)
{
	int k = d->narms, nb = d->blocks, a, i, b;
	double *t = calloc((size_t)nb * 2 * (size_t)k, sizeof *t); /* [block][arm][2] */
	double *per = calloc((size_t)nb * 2 + 1, sizeof *per);
	int *seen = calloc((size_t)nb * (size_t)k, sizeof *seen);

	if (!t || !per || !seen)
		goto out;
	c->timed_blocks = 0;
	for (i = 0; i < n; i++) {
		const struct lr_store_rep *r = &reps[i];

		if (r->warmup)
			continue;
		b = r->block - d->warmup;
		if (b < 0 || b >= nb || seen[b * k + r->arm] >= 2)
			continue;
		t[(b * k + r->arm) * 2 + seen[b * k + r->arm]++] = values ? values[i] : r->wall_s / (double)c->inner;
		c->interfered += r->interfered;
		c->flagged[r->arm] += r->interfered;
	}
	/* complete blocks only */
	for (b = 0; b < nb; b++) {
		for (a = 0; a < k && seen[b * k + a] == 2; a++)
			;
		if (a < k)
			break;
		c->timed_blocks++;
	}
	nb = c->timed_blocks;
	for (a = 0; a < k && nb > 0; a++) {
		double *a1 = malloc((size_t)nb * sizeof *a1), *a2 = malloc((size_t)nb * sizeof *a2);
		double *b1 = malloc((size_t)nb * sizeof *b1), *b2 = malloc((size_t)nb * sizeof *b2);
		double *sum = malloc((size_t)nb * sizeof *sum);

		if (a1 && a2 && b1 && b2 && sum) {
			for (b = 0; b < nb; b++) {
				per[2 * b] = t[(b * k + a) * 2];
				per[2 * b + 1] = t[(b * k + a) * 2 + 1];
				a1[b] = t[(b * k + 0) * 2];
				a2[b] = t[(b * k + 0) * 2 + 1];
				b1[b] = t[(b * k + a) * 2];
				b2[b] = t[(b * k + a) * 2 + 1];
				sum[b] = b1[b] + b2[b];
			}
			c->median_ms[a] = lr_median(per, (size_t)(2 * nb)) * (values ? 1 : 1e3);
			c->drift[a] = lr_drift(sum, nb);
			/* no estimate (n = 0: no verdict) when a time is not positive */
			if (a > 0 && lr_paired_estimate(a1, a2, b1, b2, nb, &c->paired[a]))
				memset(&c->paired[a], 0, sizeof c->paired[a]);
		}
		free(a1);
		free(a2);
		free(b1);
		free(b2);
		free(sum);
	}
out:
	free(t);
	free(per);
	free(seen);
}
