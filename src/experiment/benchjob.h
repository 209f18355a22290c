#ifndef LR_BENCHJOB_H
#define LR_BENCHJOB_H

/*
 * 'labrun bench encoder' as a run of kind 'bench': its settings as binding,
 * every repetition of every variant on every shape as a sample (subject the
 * shape "L,2,H,T,D", variant, rep, seconds; the warm-up included, so a report
 * recomputes each median from the raw times), and each shape's output sha256
 * as a digest, in the order the benchmark lists its variants.
 * lr_bench_job_results reads them back into the benchmark's own result
 * structure.
 */

#include "base/error.h"
#include "base/model.h"
#include "encode/bench.h"
#include "record/session.h"
#include "store/store.h"

struct lr_bench_job {
	struct lr_run run;
	struct lr_session ss;
};

/*
 * What every benchmark's run begins with: capture it (argv, environment,
 * host, sources) with binding benchmark = NAME; lr_bench_job_bind adds its
 * settings and lr_bench_job_start stores it as running.
 */
LR_MUST_CHECK int lr_bench_job_capture(struct lr_bench_job *j, struct lr_store *st, char *const *argv,
				       char *const *envp, const char *benchmark);
/* A setting of the benchmark as binding KEY = V (origin "user"). */
LR_MUST_CHECK int lr_bench_job_bind(struct lr_bench_job *j, const char *key, long long v);
LR_MUST_CHECK int lr_bench_job_start(struct lr_bench_job *j, struct lr_store *st);

/* A new directory 'name' below 'dir' (0700) for a benchmark's stores and files, its path malloc'd in *out. */
LR_MUST_CHECK int lr_bench_scratch(char **out, const char *dir, const char *name);

/* Capture the run (argv, environment, host, sources) and store it as running. */
LR_MUST_CHECK int lr_bench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_bench_opts *o,
				     char *const *argv, char *const *envp);

/* Add one shape's result (o->shape) to the run. */
LR_MUST_CHECK int lr_bench_job_add(struct lr_bench_job *j, const struct lr_bench_opts *o,
				   const struct lr_bench_result *r);

/* Store the run as passed, or as failed with the current error when 'failed' (which is kept). */
LR_MUST_CHECK int lr_bench_job_end(struct lr_bench_job *j, int failed);

void lr_bench_job_release(struct lr_bench_job *j);

/*
 * A stored bench run's samples (experiment/benchsamples.c): its bench_sample
 * rows, or for a run stored before migration 19, the same samples read from
 * its measurement names (docs/schema.md, "bench_sample"). v is borrowed from
 * the run or owned; lr_bench_samples_release frees what is owned.
 */
struct lr_bench_samples {
	const struct lr_sample *v;
	size_t n;
	struct lr_run owned;	/* the samples read from the names */
};
LR_MUST_CHECK int lr_bench_samples(const struct lr_run *run, struct lr_bench_samples *out);
void lr_bench_samples_release(struct lr_bench_samples *s);

/* The sample (subject, variant, unit, rep) of s, or NULL. */
const struct lr_sample *lr_bench_sample_find(const struct lr_bench_samples *s, const char *subject, const char *variant,
					     const char *unit, int rep);

/*
 * The per-shape results of a stored bench run, summarised again from its
 * measurements (lr_bench_summarise). *res is an array of *n results, their
 * shapes in shapes[]; free both with free(). LR_EINVAL when the run is not a
 * bench run or its measurements are not in the stored form.
 */
LR_MUST_CHECK int lr_bench_job_results(const struct lr_run *run, struct lr_bench_result **res,
				       struct lr_bench_opts **shapes, int *n);

#endif
