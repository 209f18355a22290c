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

#include <stddef.h>

#include "base/error.h"
#include "base/list.h"
#include "base/model.h"
#include "encode/bench.h"
#include "record/session.h"
#include "store/store.h"

/*
 * Every benchmark's results in one model, struct lr_bench: subjects (a
 * shape, a store's scale, an import mode, a concurrency level) x variants (a
 * kernel, a command, a client, or what was measured of one) x repetitions of
 * values, each series with its unit: the shape of the table bench_sample
 * (docs/schema.md). The benchmark a run is, is its binding 'benchmark'
 * (enum lr_benchmark: parsed once when a run is read, an unknown name
 * refused). A benchmark fills the model while it runs (lr_bench_add), its run
 * stores the model as its samples, and lr_bench_read reads any stored bench
 * run back into it.
 */

enum lr_benchmark {
	LR_BENCHMARK_ENCODER,
	LR_BENCHMARK_STORE,
	LR_BENCHMARK_IMPORT,
	LR_BENCHMARK_REMOTE,
	LR_BENCHMARK_COLLECT,
	LR_BENCHMARK_INGEST,
};

/* "encoder", "store", "import", "remote", "collect", "ingest": the binding's value and the subcommand's name. */
const char *lr_benchmark_name(enum lr_benchmark which);

/* The benchmark named 'name'; LR_EINVAL (message set, naming it and the known ones) for any other name. */
LR_MUST_CHECK int lr_benchmark_parse(const char *name, enum lr_benchmark *which);

/* ---- the model (benchmodel.c) ---------------------------------------------------- */

/* One series: a variant of a subject, in one unit, at every repetition (rep 0 the warm-up where there is one). */
struct lr_bench_series {
	char *subject, *variant, *unit;
	double *v;		/* v[rep]; NAN where it was not taken */
	size_t n, cap;		/* n: the last repetition taken + 1 */
};

struct lr_bench {
	enum lr_benchmark which;
	struct lr_bench_series *s;	/* in the order first taken */
	size_t n, cap;
	struct lr_strlist subjects;	/* in the order first taken */
};

void lr_bench_init(struct lr_bench *b, enum lr_benchmark which);
void lr_bench_release(struct lr_bench *b);

/* Repetition 'rep' of (subject, variant, unit) is 'value' (strings copied). LR_EINVAL when it was taken before. */
LR_MUST_CHECK int lr_bench_add(struct lr_bench *b, const char *subject, const char *variant, int rep, double value,
			       const char *unit);

/* The series (subject, variant, unit) of b, or NULL. */
const struct lr_bench_series *lr_bench_find(const struct lr_bench *b, const char *subject, const char *variant,
					    const char *unit);

/*
 * A series' figure: a value taken once is itself; of several repetitions the
 * first is the warm-up, and the figure is the median of the rest. NAN for no
 * series or no value.
 */
double lr_bench_median(const struct lr_bench_series *s);

/*
 * The median over the timed repetitions of k * num / (den + den2), each
 * repetition on its own: the ratio to a ceiling or a peer measured beside it.
 * A NULL num or den stands for 1, a NULL den2 for 0; a repetition whose
 * denominator is not above 0 counts as 0. NAN when no repetition has all of
 * them.
 */
double lr_bench_ratio(const struct lr_bench_series *num, const struct lr_bench_series *den,
		      const struct lr_bench_series *den2, double k);

/*
 * A stored bench run read into b (lr_bench_init'ed here; lr_bench_release it):
 * which benchmark its binding names, and its samples, typed, or read from the
 * measurement names of a run stored before migration 19. LR_EINVAL, naming
 * the run, when it is no bench run, names no benchmark or one this labrun
 * does not know, or a sample is taken twice or at a repetition past all of
 * them.
 */
LR_MUST_CHECK int lr_bench_read(struct lr_bench *b, const struct lr_run *run);

/* Every value of b as a sample of 'run', series by series, repetition by repetition. */
LR_MUST_CHECK int lr_bench_store(const struct lr_bench *b, struct lr_run *run);

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
