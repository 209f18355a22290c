#ifndef LR_STOREBENCH_H
#define LR_STOREBENCH_H

/*
 * 'labrun bench store': for each scale N, a throwaway store (in o->dir) is
 * filled with N synthetic repetitions (experiment/synthetic.h; 100,000 a
 * run), then labrun (o->self) is run on it as a user runs it and timed:
 * 'record -q -- true' (in a directory outside any git work tree), 'report
 * --issue 270' and 'audit', alternating forward and reversed, o->reps times
 * each, the first dropped as warm-up. Each must exit 0. The store is
 * removed at the end.
 *
 * Its samples (benchjob.h), subject the repetitions stored ("1000"):
 * 'generate' (storing them, s) and 'runs' (how many runs held them, unit
 * 'runs') once, and 'record', 'report' and 'audit' at every repetition (s).
 */

#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_STOREBENCH_MAXREPS 51

struct lr_storebench_opts {
	const int64_t *scale; /* repetitions in each store */
	int nscales;
	int reps;
	const char *dir;  /* where the throwaway stores go */
	const char *self; /* the labrun executable to time */
	uint64_t seed;
	char *const *argv, *const *envp;
};

extern const struct lr_bench_ops lr_storebench_ops;

#endif
