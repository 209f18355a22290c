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

#include "experiment/benchjob.h"

#define LR_INGESTBENCH_MAXREPS 51

struct lr_ingestbench_opts {
	int64_t responses, tokens;
	int reps;
	const char *python;     /* the peer's interpreter */
	const char *dir, *self; /* the scratch directory's parent; the labrun executable */
	char *const *argv, *const *envp;
};

/* Whether o->python runs Python with its json module: LR_EINVAL saying why not, before anything is stored. */
LR_MUST_CHECK int lr_ingestbench_peer(const struct lr_ingestbench_opts *o);

/*
 * Its samples (benchjob.h), subject "ingest": 'file' (its size, in B) once,
 * and 'ingest', 'python' and 'compare' at every repetition, in seconds.
 */
extern const struct lr_bench_ops lr_ingestbench_ops;

#endif
