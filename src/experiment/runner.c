#include "config.h"
#include "base/system.h"

#include <math.h>
#include <sched.h>
#include <sys/resource.h>

#include <jansson.h>

#include "base/clock.h"
#include "base/error.h"
#include "encode/dlf16.h"
#include "encode/ktable.h"
#include "encode/layout.h"
#include "encode/synth.h"
#include "experiment/command.h"
#include "experiment/design.h"
#include "experiment/plan.h"
#include "experiment/prereg.h"
#include "experiment/runner.h"
#include "import/backend.h"
#include "import/import.h"
#include "import/kvgeom.h"
#include "import/kvsrc.h"
#include "store/experiments.h"

/* Everything one condition needs to run any arm. */
struct cond_ctx {
	const struct lr_expdef *d;
	struct lr_kvgeom g;
	/* encode target */
	uint16_t *in, *out;
	struct lr_view vin, vout;
	/* import target */
	struct lr_kvsrc src;
	struct lr_backend_config cfg;
	struct lr_backend *b;
	const struct lr_backend_ops *ops;
	const struct lr_dlf16_kernel *k[LR_EXP_MAXARMS];
	struct lr_import_staging keep[LR_EXP_MAXARMS]; /* each arm's staging, kept across repetitions */
	/* command target */
	struct lr_command_ctx cmd;
	int has_cmd;
};

static int arm_import_opts(struct cond_ctx *cx, int a, struct lr_import_opts *io)
{
	const struct lr_exp_arm *arm = &cx->d->arms[a];

	memset(io, 0, sizeof *io);
	io->g = &cx->g;
	io->src = &cx->src.view;
	io->mode = arm->mode;
	io->path = arm->layout;
	io->k = cx->k[a];
	io->contract = arm->contract;
	io->threads = arm->threads;
	io->lane = 0;
	io->staging = 2;
	io->cancel_at = io->die_at = -1;
	io->keep = &cx->keep[a];
	return 0;
}

/* Execute arm 'a' once. */
static int run_arm(struct cond_ctx *cx, int a)
{
	const struct lr_exp_arm *arm = &cx->d->arms[a];

	if (cx->d->target == LR_TARGET_ENCODE)
		return lr_encode_view(&cx->vout, &cx->vin, cx->k[a], arm->contract, arm->threads);
	{
		struct lr_import_opts io;
		struct lr_import_result r;

		arm_import_opts(cx, a, &io);
		return lr_import(cx->ops, cx->b, &io, &r);
	}
}

/* The output of the arm that ran last: the encoded array, or the device state. */
static int output_hash(struct cond_ctx *cx, char hex[LR_SHA256_HEX])
{
	if (cx->d->target == LR_TARGET_ENCODE)
		return lr_sha256_buf(cx->out, (size_t)lr_view_count(&cx->vout) * 2, hex);
	return lr_import_state_hash(cx->ops, cx->b, 0, &cx->g, 0, hex); /* one sha256: what stored runs compare */
}

static int setup(struct cond_ctx *cx, const struct lr_expdef *d, int ci, struct lr_run_condition *rc_)
{
	int64_t shape[5];
	uint64_t n;
	int rc;

	(void)ci;
	memset(cx, 0, sizeof *cx);
	cx->d = d;
	if ((rc = lr_kvgeom_preset(&cx->g, rc_->c.model))) /* rc_->c: the plan's condition */
		return rc;
	cx->g.layers = (int)rc_->c.layers;
	cx->g.tokens = rc_->c.tokens;
	cx->g.capacity = rc_->c.tokens;
	cx->g.block_size = rc_->c.tokens;
	rc_->kv_heads = cx->g.kv_heads;
	rc_->head_dim = cx->g.head_dim;
	n = (uint64_t)cx->g.layers * 2 * (uint64_t)cx->g.kv_heads * (uint64_t)cx->g.tokens * (uint64_t)cx->g.head_dim;
	rc_->elements = (int64_t)n;
	if (d->target == LR_TARGET_ENCODE) {
		shape[0] = cx->g.layers;
		shape[1] = 2;
		shape[2] = cx->g.kv_heads;
		shape[3] = cx->g.tokens;
		shape[4] = cx->g.head_dim;
		if (posix_memalign((void **)&cx->in, 64, n * 2 + 64) ||
		    posix_memalign((void **)&cx->out, 64, n * 2 + 64))
			return lr_error_set(LR_ENOMEM, "cannot allocate 2 x %llu bytes for condition %d",
					    (unsigned long long)n * 2, ci);
		lr_bf16_synthetic(cx->in, (int64_t)n, d->seed + (uint64_t)ci, 1);
		memset(cx->out, 0, n * 2); /* resident before timing */
		if ((rc = lr_view_init(&cx->vin, cx->in, 5, shape)))
			return rc;
		return lr_view_init(&cx->vout, cx->out, 5, shape);
	}
	if ((rc = lr_kvsrc_synthetic(&cx->src, &cx->g, 1, d->seed + (uint64_t)ci, 1)))
		return rc;
	cx->cfg.lanes = 1;
	if ((rc = lr_backend_find(&cx->ops, d->backend)))
		return rc;
	return cx->ops->open(&cx->b, &cx->cfg);
}

static void teardown(struct cond_ctx *cx)
{
	int a;

	if (cx->has_cmd)
		lr_command_teardown(&cx->cmd);
	for (a = 0; a < LR_EXP_MAXARMS; a++)
		lr_import_staging_release(&cx->keep[a]);
	free(cx->in);
	free(cx->out);
	if (cx->b)
		cx->ops->close(cx->b);
	if (cx->src.owned || cx->src.map.addr)
		lr_kvsrc_release(&cx->src);
}

static double now_s(void)
{
	return lr_monotonic_s();
}

/*
 * Parity: every arm once, untimed, before any timing counts, its output's
 * hash against the baseline's; *one: the fastest arm's time, for the inner
 * loop. A mismatch fails the condition (c->failure); returns 0 or
 * an error.
 */
static int parity(struct cond_ctx *cx, const struct lr_runopts *o, int ci, struct lr_run_condition *c, double *one)
{
	const struct lr_expdef *d = cx->d;
	double t0;
	int a, rc;

	for (a = 0; a < d->narms; a++) {
		t0 = now_s();
		if ((rc = run_arm(cx, a)))
			return rc;
		t0 = now_s() - t0;
		if (a == 0 || t0 < *one)
			*one = t0;
		if (d->target == LR_TARGET_ENCODE && a == o->flip_arm &&
		    (o->flip_condition < 0 || o->flip_condition == ci) && lr_view_count(&cx->vout) > 0)
			cx->out[lr_view_count(&cx->vout) / 2] ^= 1; /* test fault: one output bit */
		if ((rc = output_hash(cx, c->sha[a])))
			return rc;
		c->matches[a] = !strcmp(c->sha[a], c->sha[0]);
	}
	for (a = 1; a < d->narms; a++)
		if (!c->matches[a]) {
			snprintf(c->status, sizeof c->status, "failed");
			snprintf(c->failure, sizeof c->failure,
				 "parity: arm '%s' output differs from baseline '%s' (sha256 %.12s vs %.12s)",
				 d->arms[a].name, d->arms[0].name, c->sha[a], c->sha[0]);
			return 0;
		}
	return 0;
}

/* One timed repetition of arm a: 'inner' calls, with the counters that say whether it was interfered with. */
static int timed_rep(struct cond_ctx *cx, int a, int64_t inner, struct lr_store_rep *r)
{
	int threaded = cx->d->target == LR_TARGET_IMPORT; /* the import runs on producer and writer threads */
	long long st0 = lr_steal_ticks();
	long sw0 = lr_invol_switches();
	double c0 = lr_cpu_s(threaded), w0 = now_s();
	int64_t i;
	int rc;

	for (i = 0; i < inner; i++)
		if ((rc = run_arm(cx, a)))
			return rc;
	r->wall_s = now_s() - w0;
	r->cpu_s = lr_cpu_s(threaded) - c0;
	r->invol_switches = lr_invol_switches() - sw0;
	r->steal_ticks = lr_steal_ticks() - st0;
	r->arm = a;
	/* A single timing thread is interfered with when it waited or was switched out;
	 * a threaded import waits by design, so only stolen time counts there. */
	r->interfered =
		threaded ? r->steal_ticks > 0 : (r->cpu_s > 0 && r->wall_s / r->cpu_s > 1.05) || r->invol_switches > 0;
	return 0;
}

/*
 * Each repetition of every arm lasts at least 1 ms: the inner loop is
 * calibrated on warm runs ('one' seconds for one call of the fastest arm
 * in the parity run, the first touch of its buffers), then grown until a
 * loop of every arm lasts CALIBRATED_S. Every arm is timed, not only the one
 * that was fastest once: which arm is fastest can change once all are warm.
 * The half a millisecond to spare is for what no clock of this process
 * sees: a busy sibling hyperthread during the calibration makes every call
 * slower (CI once timed 0.98 ms repetitions from a 1.2 ms target). When it
 * is busy during the calibration and idle afterwards, the core can run up
 * to twice as fast: a condition whose fastest arm's median repetition came
 * out under MIN_REP_S is timed once more (time_blocks) with its loop grown
 * to match. A transient slowdown can still make a single repetition
 * shorter; the median is what the calibration holds.
 */
#define CALIBRATED_S 1.5e-3
#define GROWN_S      1.6e-3 /* what a loop found short is grown to */
#define MIN_REP_S    1e-3   /* docs/method.md: each timed repetition lasts at least 1 ms */
static int loop_s(struct cond_ctx *cx, int a, int64_t inner, double *s)
{
	double c0 = lr_cpu_s(0), t0 = now_s(), cpu;
	int64_t i;
	int rc;

	for (i = 0; i < inner; i++)
		if ((rc = run_arm(cx, a)))
			return rc;
	*s = now_s() - t0;
	cpu = lr_cpu_s(0) - c0;
	/*
	 * Another process on the CPU inflates wall time, not this thread's CPU
	 * time: when the arm runs on this thread, its CPU time is the work, and
	 * a loop calibrated on it lasts once the CPU is free.
	 */
	if (cpu >= 0.5 * *s)
		*s = cpu;
	return 0;
}

static int calibrate(struct cond_ctx *cx, double one, int64_t *inner)
{
	int k = cx->d->narms, a, b, rc;
	double t, shortest;

	/*
	 * Short calls are timed warm, after 50 ms of running the arms: the
	 * parity run touched the buffers first (a first touch can take twice as
	 * long, so a call under 1 ms warm can take over 1 ms cold), and a CPU
	 * just woken runs slower for a while (the first condition's loop came
	 * out 30% short without it). Then the fastest of three runs of each arm.
	 * Cheap below 20 ms a call, and only done there.
	 */
	for (t = now_s() + 0.05; one < 20e-3 && now_s() < t;)
		for (a = 0; a < k; a++)
			if ((rc = run_arm(cx, a)))
				return rc;
	for (b = 0; b < 3 && one < 20e-3; b++)
		for (a = 0; a < k; a++) {
			if ((rc = loop_s(cx, a, 1, &t)))
				return rc;
			if (t < one)
				one = t;
		}
	*inner = one > 0 && one < CALIBRATED_S ? (int64_t)ceil(CALIBRATED_S / one) : 1;
	/*
	 * A single call costs more than one turn of a loop of them (the timer,
	 * cold branch predictors), so the count from one call can fall short:
	 * time the loop of every arm and grow it until the shortest lasts. A
	 * loop slowed by something else (a neighbour on the host, which the
	 * guest's CPU clock does not see) would stop the growth early, so the
	 * arms near the shortest are timed twice more and their fastest counts.
	 */
	for (b = 0; *inner > 1 && b < 8; b++) {
		double arm_s[LR_EXP_MAXARMS];
		int r;

		for (shortest = 1, a = 0; a < k; a++) {
			if ((rc = loop_s(cx, a, *inner, &arm_s[a])))
				return rc;
			if (arm_s[a] < shortest)
				shortest = arm_s[a];
		}
		for (a = 0; a < k; a++)
			for (r = 0; r < 2 && arm_s[a] < 1.5 * shortest; r++) {
				if ((rc = loop_s(cx, a, *inner, &t)))
					return rc;
				if (t < arm_s[a])
					arm_s[a] = t;
			}
		for (shortest = 1, a = 0; a < k; a++)
			if (arm_s[a] < shortest)
				shortest = arm_s[a];
		if (shortest >= CALIBRATED_S)
			break;
		*inner = (int64_t)ceil(*inner * GROWN_S / (shortest > 1e-9 ? shortest : 1e-9));
	}
	return 0;
}

/* The shortest of the arms' median timed repetitions (warm-up left out). */
static double shortest_median(const struct lr_store_rep *reps, int n, int narms)
{
	double shortest = 0, med, *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
	int a, i, m;

	for (a = 0; v && a < narms; a++) {
		for (i = m = 0; i < n; i++)
			if (reps[i].arm == a && !reps[i].warmup)
				v[m++] = reps[i].wall_s;
		if (m && ((med = lr_median(v, (size_t)m)) < shortest || shortest == 0))
			shortest = med;
	}
	free(v);
	return shortest;
}

/* The warm-up and timed blocks of a condition, in reps[0..*n); *cancelled when Ctrl-C stopped them. */
static int time_blocks(struct cond_ctx *cx, const struct lr_runopts *o, int ci, int nconds, double t_start,
		       int64_t inner, struct lr_store_rep *reps, int *n, int *cancelled)
{
	const struct lr_expdef *d = cx->d;
	int k = d->narms, nblocks = d->warmup + d->blocks, b, s, order[2 * LR_EXP_MAXARMS], rc;
	uint64_t rng = d->seed * 2654435761u + (uint64_t)ci;
	struct lr_run_progress pg;

	*n = 0;
	for (b = 0; b < nblocks; b++) {
		lr_design_block_order(d, b, &rng, order);
		for (s = 0; s < 2 * k; s++) {
			if (o->cancel && *o->cancel) {
				*cancelled = 1;
				return 0;
			}
			if ((rc = timed_rep(cx, order[s], inner, &reps[*n])))
				return rc;
			reps[*n].block = b;
			reps[*n].slot = s;
			reps[*n].warmup = b < d->warmup;
			(*n)++;
		}
		if (o->progress) {
			double elapsed = now_s() - t_start, per_block = elapsed / (ci * nblocks + b + 1);

			pg.condition = ci;
			pg.nconditions = nconds;
			pg.block = b;
			pg.nblocks = nblocks;
			pg.elapsed_s = elapsed;
			pg.eta_s = per_block * ((nconds - ci) * nblocks - b - 1);
			o->progress(o->arg, &pg);
		}
	}
	return 0;
}

/* Run one condition: parity, calibration, then blocks. Fills c and the repetitions; returns 0 or an error. */
static int run_condition(struct cond_ctx *cx, const struct lr_runopts *o, int ci, int nconds, double t_start,
			 struct lr_run_condition *c, struct lr_store_rep **reps_out, int *nreps_out, int *cancelled)
{
	const struct lr_expdef *d = cx->d;
	int k = d->narms, nblocks = d->warmup + d->blocks, n = 0, rc;
	struct lr_store_rep *reps = calloc((size_t)nblocks * 2 * (size_t)k, sizeof *reps);
	double one = 0, shortest;

	*reps_out = reps;
	*nreps_out = 0;
	if (!reps)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = parity(cx, o, ci, c, &one)) || c->failure[0])
		return rc; /* a parity failure is kept, never hidden; no timing counts for it */
	if ((rc = calibrate(cx, one, &c->inner)) ||
	    (rc = time_blocks(cx, o, ci, nconds, t_start, c->inner, reps, &n, cancelled)))
		return rc;
	/* the core ran faster than when it was calibrated: that attempt was calibration, not evidence */
	if (!*cancelled && c->inner > 1 && (shortest = shortest_median(reps, n, k)) > 0 && shortest < MIN_REP_S) {
		c->inner = (int64_t)ceil((double)c->inner * GROWN_S / shortest);
		if ((rc = time_blocks(cx, o, ci, nconds, t_start, c->inner, reps, &n, cancelled)))
			return rc;
	}
	*nreps_out = n;
	lr_design_summarise(d, c, reps, NULL, n);
	if (*cancelled) {
		/* not a failure of the arms: what was measured is kept, the condition was never completed */
		snprintf(c->status, sizeof c->status, "missing");
		snprintf(c->failure, sizeof c->failure,
			 "not completed: cancelled after %d of %d blocks (measured repetitions kept)", n / (2 * k),
			 nblocks);
	} else {
		snprintf(c->status, sizeof c->status, "passed");
	}
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

/* The arms as the store keeps them; command arms with their templates (env as JSON in envs[a]). */
static int plan_arms(const struct lr_expdef *d, struct lr_run_result *r, const struct lr_dlf16_kernel **k,
		     struct lr_store_arm *arms, struct lr_store_arm_command *cmds, char **envs)
{
	int a, rc;
	size_t i;

	for (a = 0; a < d->narms; a++) {
		const struct lr_exp_arm *x = &d->arms[a];

		if (d->target == LR_TARGET_COMMAND) {
			json_t *env = json_object();

			for (i = 0; i < x->env.n; i++)
				json_object_set_new(env, x->env.v[i].key, json_string(x->env.v[i].value));
			envs[a] = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS);
			json_decref(env);
			if (!envs[a])
				return lr_error_set(LR_ENOMEM, "out of memory");
			cmds[a] = (struct lr_store_arm_command){
				.command = x->command,
				.cwd = x->cwd[0] ? x->cwd : NULL,
				.timeout_s = x->timeout_s,
				.env_json = envs[a],
				.outputs = x->outputs[0] ? x->outputs : NULL,
				.responses = x->responses[0] ? x->responses : NULL,
				.route = x->route,
			};
			snprintf(r->kernel[a], sizeof r->kernel[a], "command");
			arms[a] = (struct lr_store_arm){
				.name = x->name,
				.kernel = "command",
				.contract = "",
				.layout = "",
				.mode = "",
				.threads = 0,
				.cmd = &cmds[a],
			};
			continue;
		}
		if ((rc = lr_dlf16_kernel_find(&k[a], x->kernel))) {
			lr_error_wrap("%s:%d: [arm %s]", d->path, x->line, x->name);
			return rc;
		}
		snprintf(r->kernel[a], sizeof r->kernel[a], "%s", k[a]->name);
		arms[a] = (struct lr_store_arm){
			.name = x->name,
			.kernel = r->kernel[a],
			.contract = lr_dlf16_contract_name(x->contract),
			.layout = lr_import_path_name(x->layout),
			.mode = lr_import_mode_name(x->mode),
			.threads = x->threads,
		};
	}
	return 0;
}

/* Run condition ci (any target) into c, its repetitions into *reps. */
static int measure_condition(struct lr_store *st, int64_t run_id, const struct lr_expdef *d,
			     const struct lr_kvlist *params, const struct lr_runopts *o, int ci, int nconds,
			     double t_start, const struct lr_dlf16_kernel *const *k, struct lr_run_condition *c,
			     struct cond_ctx *cx, struct lr_store_rep **reps, int *nreps, int *cancelled)
{
	int rc;

	if (d->target == LR_TARGET_COMMAND) {
		memset(cx, 0, sizeof *cx);
		cx->d = d;
		cx->has_cmd = 1;
		rc = lr_command_setup(&cx->cmd, d, st, run_id, ci, params, o->envp, o->cancel);
		if (!rc)
			rc = lr_command_condition(&cx->cmd, d, o, ci, c, reps, nreps, cancelled);
		if (!rc)
			rc = lr_command_compare_routes(&cx->cmd);
		return rc;
	}
	rc = setup(cx, d, ci, c);
	memcpy(cx->k, k, sizeof cx->k);
	if (!rc)
		rc = run_condition(cx, o, ci, nconds, t_start, c, reps, nreps, cancelled);
	return rc;
}

int lr_experiment_run(struct lr_store *st, int64_t run_id, const struct lr_expdef *d, const struct lr_runopts *o,
		      struct lr_run_result *r)
{
	struct lr_store_arm arms[LR_EXP_MAXARMS] = { { 0 } };
	struct lr_store_arm_command cmds[LR_EXP_MAXARMS];
	const struct lr_dlf16_kernel *k[LR_EXP_MAXARMS] = { NULL };
	char *envs[LR_EXP_MAXARMS] = { NULL };
	struct lr_plan plan = { 0, NULL };
	int nconds, ci, a, rc;
	double t_start = now_s();

	memset(r, 0, sizeof *r);
	if ((rc = lr_plan_build(&plan, d)) || !(r->cond = calloc((size_t)(plan.n > 0 ? plan.n : 1), sizeof *r->cond))) {
		lr_plan_release(&plan);
		return rc ? rc : lr_error_set(LR_ENOMEM, "out of memory");
	}
	nconds = r->nconditions = plan.n;
	for (ci = 0; ci < nconds; ci++)
		r->cond[ci].c = plan.cond[ci].c;
	rc = plan_arms(d, r, k, arms, cmds, envs);
	if (!rc)
		rc = lr_plan_store(st, run_id, d, &plan, arms);
	if (!rc) /* the design, as stored, is registered before the first block */
		rc = lr_prereg_register(st, run_id, d, o->design_head);
	for (a = 0; a < d->narms; a++)
		free(envs[a]);
	if (rc)
		goto out;
	r->cpu = pin(d->cpu);
	for (ci = 0; ci < nconds; ci++) {
		struct lr_run_condition *c = &r->cond[ci];
		struct lr_store_condition sc = { 0 };
		struct lr_store_rep *reps = NULL;
		const char *shas[LR_EXP_MAXARMS] = { NULL };
		struct cond_ctx cx;
		int nreps = 0;

		memset(&cx, 0, sizeof cx);
		if (r->cancelled) {
			snprintf(c->status, sizeof c->status, "missing");
			snprintf(c->failure, sizeof c->failure, "not measured: the run was cancelled before it");
		} else {
			rc = measure_condition(st, run_id, d, &plan.cond[ci].params, o, ci, nconds, t_start, k, c, &cx,
					       &reps, &nreps, &r->cancelled);
			if (rc) {
				snprintf(c->status, sizeof c->status, "failed");
				snprintf(c->failure, sizeof c->failure, "%s", lr_error_msg());
			}
			for (a = 0; a < d->narms; a++)
				shas[a] = c->sha[a][0] ? c->sha[a] : NULL;
		}
		if (strcmp(c->status, "passed"))
			r->failed++;
		sc.idx = ci;
		sc.model = c->c.model;
		sc.layers = c->c.layers;
		sc.kv_heads = c->kv_heads;
		sc.head_dim = c->head_dim;
		sc.tokens = c->c.tokens;
		sc.elements = c->elements;
		sc.inner = c->inner;
		sc.status = c->status;
		sc.failure = c->failure[0] ? c->failure : NULL;
		if (cx.has_cmd) {
			sc.params = &cx.cmd.params;
			sc.execs = cx.cmd.execs;
			sc.nexecs = cx.cmd.nexecs;
		}
		rc = lr_store_condition(st, run_id, &sc, shas, c->matches, d->narms, reps, nreps);
		teardown(&cx);
		free(reps);
		if (rc)
			break; /* the store failed: stop, the run will show as abandoned */
	}
out:
	lr_plan_release(&plan);
	return rc;
}
