#ifndef LR_INGESTBENCH_H
#define LR_INGESTBENCH_H

/*
 * 'labrun bench ingest': 'labrun ingest responses' as a user runs it, beside
 * what a user would write instead, over the same file: o->responses
 * responses of o->tokens token ids and their text, written once into a
 * scratch directory, so warm in the page cache. Each repetition records a
 * fresh run in a throwaway store and copies its database, then runs, in an
 * order reversed every repetition: ingest into that run (its fsyncs count;
 * the bytes it wrote are its block output), Python's script storing the same
 * rows into the copy (json.loads, executemany, one transaction, the same
 * synchronous setting), Python's 'for line in f: json.loads(line)', and the
 * I/O floor (dd conv=fsync of the bytes ingest wrote); then a second set of
 * the same file, untimed, and 'labrun compare' of the two, timed. Wall time
 * of every process; the first repetition is dropped as warm-up.
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
 * 'written' (ingest's block output, in B) and 'ingest', 'script', 'python',
 * 'floor' (when writes were counted) and 'compare' at every repetition, in seconds.
 */
extern const struct lr_bench_ops lr_ingestbench_ops;

#endif
