#ifndef LR_STOREBENCH_H
#define LR_STOREBENCH_H

/*
 * 'labrun bench store': for each scale N, a throwaway store (in o->dir)
 * holding N runs: synthetic experiment runs holding o->repetitions
 * (experiment/synthetic.h; 100,000 a run, one run at least), and runs of
 * 'true' stored as 'labrun record -- true' stores them (captured once, then
 * each run's rows, seal and ledger entry through the store's own calls) up
 * to N. Every store is built first; then labrun (o->self) is run on them as
 * a user runs it and timed:
 * '--version' (start-up alone), 'record -q -- true', 'list -n 20', 'show
 * ID' and 'report --run ID' of the first experiment run, 'audit', and with a
 * remote 'push' (after an untimed push of every run, so each moves what was
 * recorded since) and 'pull --run UUID' of a run both sides hold; o->reps
 * repetitions, each visiting every store and every command, forward, then
 * reversed, the first dropped as warm-up, so the stores are compared in one
 * run. Each must exit 0. The stores are removed at the end.
 *
 * Its samples (benchjob.h), subject the runs asked for ("1000"): 'generate'
 * (storing them, s), 'runs' and 'repetitions' held, 'prime' (the untimed
 * push, s) once, and every command (lr_storebench_ops_names) at every
 * repetition (s).
 */

#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_STOREBENCH_MAXREPS 51

struct lr_storebench_opts {
	const int64_t *scale; /* runs in each store */
	int nscales;
	int reps;
	int64_t repetitions; /* repetitions in each store's experiment runs */
	const char *dir;     /* where the throwaway stores go */
	const char *self;    /* the labrun executable to time */
	const char *name;    /* --remote NAME, or NULL: no push and pull */
	char *remote, *uri;  /* as the invoking store names it, resolved before the run (free() them) */
	unsigned skip;       /* bit i set: lr_storebench_ops_names[i] is not timed */
	uint64_t seed;
	char *const *argv, *const *envp;
};

/* The commands timed, in order, NULL-terminated: the benchmark's variants. */
extern const char *const lr_storebench_ops_names[];

extern const struct lr_bench_ops lr_storebench_ops;

#endif
