#ifndef LR_RUN_H
#define LR_RUN_H

/*
 * The paired-block experiment runner (docs/method.md): for
 * each condition of a definition, build the input once, run every arm once
 * untimed and check their outputs are bit-identical (a parity row per arm),
 * then time warm-up and measured blocks, alternating ABBA/BAAB (ABC CBA with
 * more arms), and store every repetition. Nothing here prints.
 */

#include "base/error.h"
#include <stdatomic.h>
#include "base/stats.h"
#include "experiment/expdef.h"
#include "store/store.h"

struct lr_run_progress {
	int condition, nconditions;
	int block, nblocks;      /* block within the condition, warm-up included */
	double elapsed_s, eta_s; /* eta: a rough forecast from the blocks done so far */
};

struct lr_runopts {
	atomic_int *cancel; /* set asynchronously (Ctrl-C) to stop after the current repetition */
	char *const *envp;  /* command experiments: the environment commands start from */
	void (*progress)(void *arg, const struct lr_run_progress *p);
	void *arg;
	int flip_arm;                     /* test fault: flip one output bit of this arm (-1: none) */
	int flip_condition;               /* ... in this condition only (-1: all) */
	const struct lr_run_facts *facts; /* --binding, --tool, ... over the definition's [record]; may be NULL */
	/* the signed design head is written to this file before the first timed block; NULL: none is */
	const char *design_head;
};

/* What the runner found for one condition (the report prints it). */
struct lr_run_condition {
	struct lr_exp_condition c;
	int64_t kv_heads, head_dim, elements, inner;
	char status[16]; /* passed, failed, missing */
	char failure[512];
	char sha[LR_EXP_MAXARMS][LR_SHA256_HEX];
	int matches[LR_EXP_MAXARMS];
	double median_ms[LR_EXP_MAXARMS];        /* per execution, timed blocks */
	struct lr_paired paired[LR_EXP_MAXARMS]; /* arm i against arm 0 (index 0 unused) */
	double drift[LR_EXP_MAXARMS];            /* relative change over the timed blocks */
	int interfered;                          /* flagged repetitions in timed blocks */
	int flagged[LR_EXP_MAXARMS];             /* ... of each arm (a table counts its two arms') */
	int timed_blocks;
	int higher;    /* command experiments: the metric is better higher */
	char unit[32]; /* command experiments: the metric's unit */
};

struct lr_run_result {
	char kernel[LR_EXP_MAXARMS][16]; /* resolved kernel names per arm */
	int cpu;                         /* the CPU the timing thread was pinned to */
	int nconditions;
	struct lr_run_condition *cond; /* malloc'd */
	int cancelled;
	int failed; /* conditions that failed */
};

/*
 * Run definition 'd' as experiment run 'run_id' (already stored as
 * 'running'): store the plan, then each condition as it completes (one
 * short transaction each; none is held while measuring). On cancel, what
 * was measured is stored and the rest is stored as 'missing'. 'r' is
 * filled either way; free r->cond. Returns 0, or an error that stopped the
 * run (a parity failure is a failed condition, not an error).
 */
LR_MUST_CHECK int lr_experiment_run(struct lr_store *st, int64_t run_id, const struct lr_expdef *d,
				    const struct lr_runopts *o, struct lr_run_result *r);

/*
 * Record definition 'd' as an experiment run and run it: capture (argv and
 * envp are what the run records; replay_of links a replay to its original),
 * pin, the session's 'running' row, the runner, the final row. A cancel is a
 * cancelled run, not an error. 'run' (lr_run_init'ed) and 'res' are filled;
 * free res->cond. d->cpu is set to the CPU used when it was -1; a CPU this
 * process may not run on is refused (LR_EINVAL) before anything is stored.
 */
LR_MUST_CHECK int lr_experiment_execute(struct lr_store *st, struct lr_expdef *d, char *const *argv, char *const *envp,
					int64_t replay_of, const struct lr_runopts *ro, struct lr_run *run,
					struct lr_run_result *res);

/* Whether this process may run on 'cpu' (its affinity mask holds it). */
LR_MUST_CHECK int lr_cpu_usable(int cpu);

#endif
