#ifndef LR_INGESTBENCH_H
#define LR_INGESTBENCH_H

/*
 * 'labrun bench ingest': 'labrun ingest responses' as a user runs it, beside
 * the line a user would write instead, Python's
 * 'for line in f: json.loads(line)', over the same file: o->responses
 * responses of o->tokens token ids and their text, written once into a
 * scratch directory, so warm in the page cache. Each repetition runs both,
 * who goes first swapping every time: ingest into a fresh run of a
 * throwaway store (its fsyncs count), then a second set of the same file,
 * untimed, and 'labrun compare' of the two, timed. Wall time of every
 * process; the first repetition is dropped as warm-up.
 */

#include <stdint.h>

#include "base/error.h"
#include "experiment/benchjob.h"

#define LR_INGESTBENCH_MAXREPS 51

struct lr_ingestbench_opts {
	int64_t responses, tokens;
	int reps;
	const char *python;		/* the peer's interpreter */
	const char *dir, *self;		/* the scratch directory's parent; the labrun executable */
	char *const *argv, *const *envp;
};

struct lr_ingestbench_result {
	int reps;
	int64_t bytes;			/* the file's size */
	double ingest_s[LR_INGESTBENCH_MAXREPS], python_s[LR_INGESTBENCH_MAXREPS], compare_s[LR_INGESTBENCH_MAXREPS];
	double ingest_ms, python_ms, compare_ms;	/* medians, the first repetition dropped */
	double x_python;		/* median over repetitions of ingest / python */
};

/* Whether o->python runs Python with its json module: LR_EINVAL saying why not, before anything is stored. */
LR_MUST_CHECK int lr_ingestbench_peer(const struct lr_ingestbench_opts *o);
LR_MUST_CHECK int lr_ingestbench(const struct lr_ingestbench_opts *o, struct lr_ingestbench_result *r);

/* From the times: medians and the ratio. */
void lr_ingestbench_summarise(struct lr_ingestbench_result *r);

/*
 * As a run of kind 'bench' (binding benchmark = ingest, responses, tokens,
 * reps, python): samples 'ingest|python|compare rep K' in seconds, and the
 * file's size ('file', in bytes).
 * lr_ingestbench_job_results reads one back.
 */
LR_MUST_CHECK int lr_ingestbench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_ingestbench_opts *o);
LR_MUST_CHECK int lr_ingestbench_job_add(struct lr_bench_job *j, const struct lr_ingestbench_result *r);
LR_MUST_CHECK int lr_ingestbench_job_results(const struct lr_run *run, struct lr_ingestbench_result *r);

#endif
