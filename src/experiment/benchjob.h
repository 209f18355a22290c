#ifndef LR_BENCHJOB_H
#define LR_BENCHJOB_H

/*
 * Every benchmark one way. A benchmark is a run of kind 'bench' whose binding
 * 'benchmark' says which one it is (enum lr_benchmark: parsed once when a run
 * is read, an unknown name refused), its settings as binding, and its results
 * in one model, struct lr_bench: subjects (a shape, a store's scale, an import
 * mode, a concurrency level) x variants (a kernel, a command, a client, or
 * what was measured of one) x repetitions of values, each series with its
 * unit. That is the shape of the table bench_sample (docs/schema.md): a
 * benchmark fills the model while it runs (lr_bench_add), its run stores the
 * model as its samples in the order they were first taken, and lr_bench_read
 * reads any stored bench run back into it. What the figures are (medians,
 * ratios to a ceiling or a peer) is computed from the model where they are
 * shown (report/bench*.c), the same for 'bench' and 'report --run'.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/list.h"
#include "base/model.h"
#include "record/session.h"
#include "store/store.h"

enum lr_benchmark {
	LR_BENCHMARK_ENCODER,
	LR_BENCHMARK_STORE,
	LR_BENCHMARK_IMPORT,
	LR_BENCHMARK_REMOTE,
	LR_BENCHMARK_COLLECT,
	LR_BENCHMARK_INGEST,
	LR_BENCHMARK_SCAN,
};

/* "encoder", "store", "import", "remote", "collect", "ingest", "scan": the binding's value and the subcommand's name. */

/* The benchmark named 'name'; LR_EINVAL (message set, naming it and the known ones) for any other name. */
LR_ENUM_DECLARE(lr_benchmark, enum lr_benchmark);

/* ---- the model (benchmodel.c) ---------------------------------------------------- */

/* One series: a variant of a subject, in one unit, at every repetition (rep 0 the warm-up where there is one). */
struct lr_bench_series {
	char *subject, *variant, *unit;
	double *v;     /* v[rep]; NAN where it was not taken */
	size_t n, cap; /* n: the last repetition taken + 1 */
};

struct lr_bench {
	enum lr_benchmark which;
	struct lr_bench_series *s; /* in the order first taken */
	size_t n, cap;
	struct lr_strlist subjects; /* in the order first taken */
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

/*
 * A stored bench run's samples (benchsamples.c): its bench_sample rows, or
 * for a run stored before migration 19, the same samples read from its
 * measurement names (docs/schema.md, "bench_sample"). v is borrowed from the
 * run or owned; lr_bench_samples_release frees what is owned.
 */
struct lr_bench_samples {
	const struct lr_sample *v;
	size_t n;
	struct lr_run owned; /* the samples read from the names */
};
LR_MUST_CHECK int lr_bench_samples(const struct lr_run *run, struct lr_bench_samples *out);
void lr_bench_samples_release(struct lr_bench_samples *s);

/* ---- the run (benchjob.c) -------------------------------------------------------- */

struct lr_bench_job;

/* A benchmark: which one, its settings as binding of the run, and its measurement. */
struct lr_bench_ops {
	enum lr_benchmark which;
	/* what opts names in the store, resolved before anything is captured (may be NULL) */
	int (*prepare)(void *opts, struct lr_store *st);
	/* the settings in opts as binding (lr_bench_bind), before the run is stored as running */
	int (*bind)(struct lr_run *run, const void *opts);
	/* measure into j->bench, calling lr_bench_job_step after each subject */
	int (*measure)(void *opts, struct lr_bench_job *j);
};

struct lr_bench_job {
	struct lr_run run;
	struct lr_session ss;
	struct lr_bench bench;
	/* what the caller shows of the run so far, at each step (may be NULL); nonzero stops the benchmark */
	int (*on_step)(void *arg, const struct lr_bench_job *j);
	void *arg;
};

/* An empty job, its model for ops->which. */
void lr_bench_job_init(struct lr_bench_job *j, enum lr_benchmark which);

/*
 * ops->prepare, then capture the run (argv, environment, host, sources) with
 * binding benchmark = its name and the settings ops->bind gives, and store it
 * as running.
 */
LR_MUST_CHECK int lr_bench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_bench_ops *ops,
				     void *opts, char *const *argv, char *const *envp);

/* What a measurement calls when a subject is done (and the caller once before the first): j->on_step. */
LR_MUST_CHECK int lr_bench_job_step(struct lr_bench_job *j);

/* Store the model as the run's samples and the run as passed, or as failed with the current error when 'failed'. */
LR_MUST_CHECK int lr_bench_job_end(struct lr_bench_job *j, int failed);

void lr_bench_job_release(struct lr_bench_job *j);

/* What a repetition of a benchmark that runs labrun works on. */
struct lr_bench_pass {
	const void *opts;               /* the benchmark's options */
	const char *dir, *store, *file; /* its scratch directory, throwaway store and input file */
};

/* One side of a benchmark's repetition 'rep' (labrun's, or its peer's), its samples into b. */
typedef int (*lr_bench_side)(const struct lr_bench_pass *p, int rep, struct lr_bench *b);

/*
 * 'reps' repetitions of labrun's side and the peer's, who goes first swapping
 * every time (the peer at repetition 0), their progress shown; then
 * lr_bench_job_step. The first error stops it.
 */
LR_MUST_CHECK int lr_bench_alternate(struct lr_bench_job *j, int reps, lr_bench_side labrun, lr_bench_side peer,
				     const struct lr_bench_pass *p);

/*
 * fn(arg, SCRATCH, j) with SCRATCH a new directory 'labrun-bench-NAME-PID'
 * below 'dir' (lr_bench_scratch), removed with all it holds once fn returns,
 * whatever it returned.
 */
LR_MUST_CHECK int lr_bench_in_scratch(struct lr_bench_job *j, const char *dir, const char *name,
				      int (*fn)(void *arg, const char *scratch, struct lr_bench_job *j), void *arg);

/* The next of splitmix64's sequence from state *s: a benchmark's data, the same for the same seed. */
uint64_t lr_bench_splitmix(uint64_t *s);

/* A setting as binding KEY = V (origin "user"). */
LR_MUST_CHECK int lr_bench_bind(struct lr_run *run, const char *key, long long v);

/* A new directory 'name' below 'dir' (0700) for a benchmark's stores and files, its path malloc'd in *out. */
LR_MUST_CHECK int lr_bench_scratch(char **out, const char *dir, const char *name);

#endif
