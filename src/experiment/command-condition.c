/* A command experiment's condition in the paired design: parity executions, then the blocks (docs/experiments.md). */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "experiment/command.h"
#include "experiment/design.h"
#include "store/experiments.h"

static void fail_condition(struct lr_run_condition *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_condition(struct lr_run_condition *c, const char *fmt, ...)
{
	va_list ap;

	snprintf(c->status, sizeof c->status, "failed");
	va_start(ap, fmt);
	vsnprintf(c->failure, sizeof c->failure, fmt, ap);
	va_end(ap);
}

/* A command experiment's parity executions: one per arm, their outputs compared. 1 when the blocks may run. */
static int command_parity(struct lr_command_ctx *cmd, const struct lr_expdef *d, struct lr_run_condition *c, int *rc)
{
	struct lr_store_exec *e;
	int a;

	for (a = 0; a < d->narms; a++) {
		if ((*rc = lr_command_exec(cmd, a, -1, -1, &e)))
			return 0;
		if (e->failure) {
			fail_condition(c, "arm '%s', parity execution: %s", d->arms[a].name, e->failure);
			return 0;
		}
		snprintf(c->sha[a], sizeof c->sha[a], "%s", e->outputs_sha256);
	}
	for (a = 0; a < d->narms; a++) {
		const char *want = cmd->reference[0] ? cmd->reference : c->sha[0];

		c->matches[a] = !strcmp(c->sha[a], want);
		if (!c->matches[a]) {
			fail_condition(c, "parity: arm '%s' outputs differ from %s (sha256 %.12s vs %.12s)",
				       d->arms[a].name, cmd->reference[0] ? "the reference" : "the baseline's",
				       c->sha[a], want);
			return 0;
		}
	}
	return 1;
}

/* One timed execution of a command experiment as repetition 'r'; 0 with c failed when it failed. */
static int command_rep(struct lr_command_ctx *cmd, const struct lr_expdef *d, struct lr_run_condition *c, int arm,
		       int b, int s, struct lr_store_rep *r, double *value, int *rc)
{
	struct lr_store_exec *e;
	long long st0 = lr_steal_ticks();

	if ((*rc = lr_command_exec(cmd, arm, b, s, &e)))
		return 0;
	r->block = b;
	r->slot = s;
	r->arm = arm;
	r->warmup = b < d->warmup;
	r->wall_s = e->wall_s;
	r->cpu_s = e->user_s + e->sys_s;
	r->steal_ticks = lr_steal_ticks() - st0;
	r->interfered = r->steal_ticks > 0; /* a command may wait by design: only stolen time counts */
	if (e->failure) {
		fail_condition(c, "arm '%s', block %d: %s", d->arms[arm].name, b, e->failure);
		return 0;
	}
	if (strcmp(e->outputs_sha256, c->sha[arm])) {
		fail_condition(c,
			       "arm '%s', block %d: outputs differ from its parity execution (sha256 %.12s vs %.12s)",
			       d->arms[arm].name, b, e->outputs_sha256, c->sha[arm]);
		return 0;
	}
	if (!d->metric[0]) { /* wall time, in ms like the built-in targets */
		*value = e->wall_s * 1e3;
		snprintf(c->unit, sizeof c->unit, "ms");
		return 1;
	}
	if (!lr_command_value(e, d->metric, value, &c->higher)) {
		fail_condition(c, "arm '%s', block %d: no metric '%s' in $LABRUN_METRICS", d->arms[arm].name, b,
			       d->metric);
		return 0;
	}
	for (int i = 0; d->metric[0] && i < e->nmetrics; i++)
		if (!strcmp(e->metrics[i].name, d->metric))
			snprintf(c->unit, sizeof c->unit, "%s", e->metrics[i].unit);
	return 1;
}

int lr_command_condition(struct lr_command_ctx *cmd, const struct lr_expdef *d, const struct lr_runopts *o, int ci,
			 struct lr_run_condition *c, struct lr_store_rep **reps_out, int *nreps_out, int *cancelled)
{
	int k = d->narms, nblocks = d->warmup + d->blocks, b, s, order[2 * LR_EXP_MAXARMS], n = 0, rc = 0;
	struct lr_store_rep *reps = calloc((size_t)nblocks * 2 * (size_t)k, sizeof *reps);
	double *values = calloc((size_t)nblocks * 2 * (size_t)k + 1, sizeof *values);
	uint64_t rng = d->seed * 2654435761u + (uint64_t)ci;

	*reps_out = reps;
	*nreps_out = 0;
	c->inner = 1;
	if (!reps || !values) {
		free(values);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (!command_parity(cmd, d, c, &rc)) {
		if (!rc && o->cancel && *o->cancel)
			goto cancel;
		goto out;
	}
	for (b = 0; b < nblocks; b++) {
		lr_design_block_order(d, b, &rng, order);
		for (s = 0; s < 2 * k; s++) {
			if (o->cancel && *o->cancel)
				goto cancel;
			if (!command_rep(cmd, d, c, order[s], b, s, &reps[n], &values[n], &rc)) {
				if (!rc && o->cancel && *o->cancel)
					goto cancel; /* stopped by Ctrl-C: not a failure of the arm */
				goto out;
			}
			n++;
		}
	}
	lr_design_summarise(d, c, reps, values, n);
	snprintf(c->status, sizeof c->status, "passed");
	goto out;
cancel:
	*cancelled = 1;
	lr_design_summarise(d, c, reps, values, n);
	snprintf(c->status, sizeof c->status, "missing");
	snprintf(c->failure, sizeof c->failure,
		 "not completed: cancelled after %d of %d blocks (measured repetitions kept)", n / (2 * k), nblocks);
out:
	*nreps_out = n;
	free(values);
	return rc;
}
