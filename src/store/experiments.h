#ifndef LR_STORE_EXPERIMENTS_H
#define LR_STORE_EXPERIMENTS_H

/* Experiment runs: arms, conditions, repetitions, executions, replay checks (store/experiments.c). */

#include "store/store.h"

/* ---- experiment runs (labrun run) ---- */

/* What an arm of a command experiment runs (arm_command). */
struct lr_store_arm_command {
	const char *command;   /* the argv template as written */
	const char *cwd;       /* or NULL */
	double timeout_s;      /* 0: none */
	const char *env_json;  /* {"NAME": "template"} */
	const char *outputs;   /* space-separated, or NULL */
	const char *responses; /* or NULL */
	const char *route;
};

/* An experiment run's design (run_design), written with its plan and read by report, diff and replay. */
struct lr_store_design {
	char name[64], title[256];
	char target[16]; /* encode, import, command */
	char backend[16];
	char order[16]; /* abba, random */
	int blocks, warmup;
	double margin;
	uint64_t seed;
	char metric[64]; /* "" for wall time */
};

struct lr_store_arm {
	const char *name, *kernel, *contract, *layout, *mode;
	int threads;
	const struct lr_store_arm_command *cmd; /* command experiments, else NULL */
};

/* One execution of a command experiment (execution, execution_output, metric). */
struct lr_store_output {
	char *path;
	char sha256[LR_SHA256_HEX]; /* "" when the file was missing */
	int64_t size;
};

struct lr_store_metric {
	char *name, *unit;
	double value;
	int higher; /* higher is better */
};

struct lr_store_exec {
	int seq, arm;
	int block, slot; /* -1 for a parity execution */
	char *argv_json;
	int has_exit, exit_code, signal, timed_out;
	double wall_s, user_s, sys_s;
	int64_t peak_rss_kib;
	char stdout_sha256[LR_SHA256_HEX], stderr_sha256[LR_SHA256_HEX]; /* "" when not stored */
	char outputs_sha256[LR_SHA256_HEX]; /* "" when an output is missing or none are declared */
	char *failure;                      /* NULL when it passed */
	int64_t output_cap, dropped[2];     /* the cap on its logs, and bytes of stdout, stderr past it (not kept) */
	struct lr_store_output *outputs;
	int noutputs;
	struct lr_store_metric *metrics;
	int nmetrics;
	struct lr_leftovers left; /* what it left running when it ended (cond, seq its own) */
};

struct lr_store_condition {
	int idx;
	const char *model;
	int64_t layers, kv_heads, head_dim, tokens, elements, inner;
	const char *status;                /* passed, failed, missing */
	const char *failure;               /* or NULL */
	const struct lr_kvlist *params;    /* command experiments: the grid values, else NULL */
	const struct lr_store_exec *execs; /* command experiments: every execution */
	int nexecs;
};

struct lr_store_rep {
	int block, slot, arm, warmup;
	double wall_s, cpu_s;
	int64_t invol_switches, steal_ticks;
	int interfered;
};

/*
 * Store the definition text, the design, the arms and the planned conditions
 * of experiment run 'run' (one transaction). Each planned condition is a
 * 'missing' row until lr_store_condition replaces it with its outcome, so a
 * run that ends early (killed, a full disk) still lists what it never did.
 */
LR_MUST_CHECK int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256,
					   const char *text, const struct lr_store_design *design,
					   const struct lr_store_arm *arms, int narms,
					   const struct lr_store_condition *planned, int nplanned);

/* The stored design of experiment run 'run'; LR_ENOTFOUND for a run stored before migration 18. */
LR_MUST_CHECK int lr_store_design(struct lr_store *st, int64_t run, struct lr_store_design *out);

/*
 * Store one condition's outcome in one transaction: its row, the parity
 * hash of each arm (NULL when the arm never ran), and its repetitions.
 */
LR_MUST_CHECK int lr_store_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c,
				     const char *const *arm_sha, const int *matches, int narms,
				     const struct lr_store_rep *reps, int nreps);

/*
 * Values of metric 'name' of the timed (non-warm-up) executions of one
 * condition and arm of a command experiment, in block/slot order: *out is
 * malloc'd. *higher says the metric's direction (from its first row);
 * *flagged counts those repetitions flagged interfered, as lr_store_arm_times.
 */
LR_MUST_CHECK int lr_store_arm_metric(struct lr_store *st, int64_t run, int cond, int arm, const char *name,
				      double **out, int *n, int *higher, int *flagged);

/*
 * The A/A run that may qualify run 'run' (docs/method.md): the newest by
 * start time of the passed experiment runs of two or more arms, all alike
 * (kernel, contract, layout, mode, threads; for commands the command, its
 * directory, timeout, environment, outputs and responses), recorded on the
 * same host (fingerprint), of the same target, and started before 'run'.
 * *aa gets its id, 0 when there is none.
 */
LR_MUST_CHECK int lr_store_newest_aa(struct lr_store *st, int64_t run, int64_t *aa);

/* The routes of a command experiment's arms that declare responses, in arm order. */
LR_MUST_CHECK int lr_store_arm_routes(struct lr_store *st, int64_t run, lr_str_fn fn, void *arg);

/* The grid values of a command experiment's condition (key -> value, in [grid] order). */
LR_MUST_CHECK int lr_store_condition_params(struct lr_store *st, int64_t run, int cond, struct lr_kvlist *out);

/* The stored definition of an experiment run: malloc'd path and text; LR_ENOTFOUND if none. */
LR_MUST_CHECK int lr_store_definition(struct lr_store *st, int64_t run, char **path, char **text);

/* Parity hashes of an experiment run: out[cond * narm + arm] of a caller array of ncond x narm ("" if none). */
LR_MUST_CHECK int lr_store_parity_hashes(struct lr_store *st, int64_t run, int ncond, int narm, struct lr_digest *out);

/*
 * Timed (non-warm-up) repetitions of one condition and arm, in block/slot
 * order, per execution (wall_s / inner): *out is malloc'd (NULL when none),
 * as many as there are. *flagged counts the interfered ones.
 */
LR_MUST_CHECK int lr_store_arm_times(struct lr_store *st, int64_t run, int cond, int arm, double **out, int *n,
				     int *flagged);

/* The arms of an experiment run, in order: names and resolved kernels into caller arrays of 32 bytes each. */
LR_MUST_CHECK int lr_store_arm_names(struct lr_store *st, int64_t run, char (*names)[32], char (*kernels)[32], int max,
				     int *n);

/* Conditions of an experiment run in order, read back (strings malloc'd into the caller's array; free with
 * lr_store_conditions_free). */
struct lr_store_condition_row {
	int idx;
	char model[32];
	int64_t layers, tokens, inner;
	char status[16];
	char *failure;
	int flagged; /* interfered repetitions in timed blocks */
};
LR_MUST_CHECK int lr_store_conditions(struct lr_store *st, int64_t run, struct lr_store_condition_row **out, int *n);
void lr_store_conditions_free(struct lr_store_condition_row *rows, int n);

/* Every repetition of experiment run 'run', in order, through 'fn' (header first). */
LR_MUST_CHECK int lr_store_repetitions(struct lr_store *st, int64_t run, lr_sqlrow_fn fn, void *arg);

/* What a replay found for one item ("exit code", "output results.txt", "condition 2"). */
struct lr_replay_check {
	char item[1100];
	const char *original, *replay; /* the values compared; NULL when absent */
	int matches;
};

/*
 * An execution of a command experiment as its run's page lists it: which
 * condition, arm, block and slot, how it ended, and its logs' objects.
 */
struct lr_store_exec_row {
	int cond, seq, arm;
	int block, slot; /* -1 for a parity execution */
	int has_exit, exit_code, signal, timed_out;
	double wall_s;
	char stdout_sha256[LR_SHA256_HEX], stderr_sha256[LR_SHA256_HEX]; /* "" when not stored */
	const char *failure; /* NULL when it passed; valid until fn returns */
};
typedef int (*lr_store_exec_fn)(void *arg, const struct lr_store_exec_row *e);
/* Every execution of run 'run', by condition and seq; stops at fn's first non-zero return. */
LR_MUST_CHECK int lr_store_executions(struct lr_store *st, int64_t run, lr_store_exec_fn fn, void *arg);

/* How many logs of run 'run's executions passed the output cap, and the bytes dropped from them. */
LR_MUST_CHECK int lr_store_output_dropped(struct lr_store *st, int64_t run, int64_t *logs, int64_t *bytes);

/* Record replay run 'run's checks, all in one transaction that also reseals the run. */

LR_MUST_CHECK int lr_store_replay_checks(struct lr_store *st, int64_t run, const struct lr_replay_check *checks, int n);

#endif
