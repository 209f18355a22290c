#ifndef LR_REMOTEBENCH_H
#define LR_REMOTEBENCH_H

/*
 * 'labrun bench remote NAME': a throwaway store (in o->dir) is filled with
 * o->runs synthetic experiment runs holding o->reps repetitions and
 * o->object_bytes of objects between them (experiment/synthetic.h), then
 * labrun (o->self) pushes them to the remote and pulls them into a second
 * throwaway store, as a user runs both; each command's wall time and peak
 * resident set size are measured, and each must move every run. Both
 * stores are removed at the end; the runs stay on the remote (new uuids
 * every time: running it again measures a push of new runs).
 */

#include <stdint.h>

#include "experiment/benchjob.h"

struct lr_remotebench_opts {
	const char *name;   /* the remote's NAME, or NULL for the store's only one */
	char *remote, *uri; /* as the invoking store names it, resolved before the run (free() them) */
	int runs;
	int64_t reps, object_bytes; /* in all, spread evenly over the runs */
	const char *dir, *self;
	uint64_t seed;
	char *const *argv, *const *envp;
};

/*
 * Its samples (benchjob.h), subject "", taken once: 'generate', 'push' and
 * 'pull' in s, 'push' and 'pull' (peak RSS) in KiB, 'objects' (the object
 * bytes moved each way) in bytes.
 */
extern const struct lr_bench_ops lr_remotebench_ops;

#endif
