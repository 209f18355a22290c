#ifndef LR_STOREBENCH_H
#define LR_STOREBENCH_H

/*
 * 'labrun bench store': for a scale N, a throwaway store (in o->dir) is
 * filled with N synthetic repetitions (experiment/synthetic.h; 100,000 a
 * run), then labrun (o->self) is run on it as a user runs it and timed:
 * 'record -q -- true' (in a directory outside any git work tree), 'report
 * --issue 270' and 'audit', alternating forward and reversed, o->reps times
 * each, the first dropped as warm-up. Each must exit 0. The store is
 * removed at the end.
 */

#include "base/error.h"
#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_STOREBENCH_OPS 3
#define LR_STOREBENCH_MAXREPS 51

extern const char *const lr_storebench_ops[LR_STOREBENCH_OPS];	/* record, report, audit */

struct lr_storebench_opts {
	int reps;
	const char *dir;	/* where the throwaway stores go */
	const char *self;	/* the labrun executable to time */
	uint64_t seed;
	char *const *argv, *const *envp;
};

struct lr_storebench_row {
	int64_t reps;		/* repetitions stored */
	int runs;		/* in this many runs */
	double generate_s;	/* storing them, through the store's own calls */
	double s[LR_STOREBENCH_OPS][LR_STOREBENCH_MAXREPS];	/* wall seconds of each repetition */
	double median_s[LR_STOREBENCH_OPS];			/* the first dropped */
};

LR_MUST_CHECK int lr_storebench_scale(const struct lr_storebench_opts *o, int64_t n, struct lr_storebench_row *row);

/*
 * As a run of kind 'bench' (binding benchmark = store): per scale the
 * measurements, in seconds unless said,
 *
 *	[N repetitions] generate	storing them
 *	[N repetitions] runs		how many runs held them (unit 'runs')
 *	[N repetitions] OP rep K	OP record, report or audit
 *
 * End with lr_bench_job_end. lr_storebench_job_results reads a stored one
 * back (*rows malloc'd, medians recomputed).
 */
LR_MUST_CHECK int lr_storebench_job_begin(struct lr_bench_job *j, struct lr_store *st,
					  const struct lr_storebench_opts *o);
LR_MUST_CHECK int lr_storebench_job_add(struct lr_bench_job *j, int reps, const struct lr_storebench_row *row);
LR_MUST_CHECK int lr_storebench_job_results(const struct lr_run *run, struct lr_storebench_row **rows, int *n);

#endif
