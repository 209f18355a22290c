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

#include "base/error.h"
#include <stdint.h>

#include "experiment/benchjob.h"

struct lr_remotebench_opts {
	const char *remote, *uri;	/* the remote, as the invoking store names it */
	int runs;
	int64_t reps, object_bytes;	/* in all, spread evenly over the runs */
	const char *dir, *self;
	uint64_t seed;
	char *const *argv, *const *envp;
};

struct lr_remotebench_result {
	double generate_s, push_s, pull_s;
	long push_rss_kib, pull_rss_kib;
	int64_t bytes;			/* object bytes moved each way */
};

LR_MUST_CHECK int lr_remotebench(const struct lr_remotebench_opts *o, struct lr_remotebench_result *r);

/*
 * As a run of kind 'bench' (binding benchmark = remote, with runs, reps,
 * object_bytes): measurements 'generate', 'push' and 'pull' (s), 'push
 * peak rss' and 'pull peak rss' (KiB), 'object bytes' (bytes).
 */
LR_MUST_CHECK int lr_remotebench_job_begin(struct lr_bench_job *j, struct lr_store *st,
					   const struct lr_remotebench_opts *o);
LR_MUST_CHECK int lr_remotebench_job_add(struct lr_bench_job *j, const struct lr_remotebench_result *r);
/* The figures of a stored remote benchmark run (LR_EINVAL when it is not one). */
LR_MUST_CHECK int lr_remotebench_job_results(const struct lr_run *run, struct lr_remotebench_result *r);

#endif
