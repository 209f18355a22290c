/*
 * 'labrun bench store': a throwaway store filled with N synthetic
 * repetitions, then labrun itself, as a user runs it, timed on it: record
 * of a trivial command, report --issue, audit.
 */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/walk.h"
#include "experiment/spawn.h"
#include "experiment/storebench.h"
#include "experiment/synthetic.h"

enum { RECORD, REPORT, AUDIT, OPS };
static const char *const ops[OPS] = { "record", "report", "audit" };

/* At most this many repetitions a run: a large store is many runs, as a lab's is. */
#define REPS_PER_RUN 100000

/* One command on the store in 'dir' (its working directory too), output discarded; wall seconds. */
static int timed(const struct lr_storebench_opts *o, const char *dir, int op, double *s)
{
	char *const record[] = { (char *)o->self, "--store", (char *)dir, "record", "-q", "--", "true", NULL };
	char *const report[] = { (char *)o->self, "--store", (char *)dir, "report", "--issue", "270", NULL };
	char *const audit[] = { (char *)o->self, "--store", (char *)dir, "audit", NULL };

	return lr_bench_spawn(o->self,
			      op == RECORD   ? record
			      : op == REPORT ? report
					     : audit,
			      o->envp, dir, NULL, s, NULL);
}

/* The store in 'dir' filled with about n repetitions: *scale says how many exactly (whole blocks of eight). */
static int fill(const struct lr_storebench_opts *o, const char *dir, int64_t n, struct lr_bench *b, char *scale,
		size_t size)
{
	struct lr_store *st = NULL;
	int64_t done = 0, id;
	double t0;
	int rc, runs = 0;

	if ((rc = lr_store_open(&st, dir, LR_STORE_CREATE)))
		return rc;
	t0 = lr_monotonic_s();
	while (!rc && done < n) {
		int64_t k = n - done < REPS_PER_RUN ? n - done : REPS_PER_RUN;

		rc = lr_synthetic_run(st, k, 0, o->seed + (uint64_t)runs, o->argv, o->envp, &id);
		done += k / 8 * 8 > 0 ? k / 8 * 8 : 8;
		runs++;
	}
	lr_store_free(st);
	snprintf(scale, size, "%lld", (long long)done);
	if (!rc && !(rc = lr_bench_add(b, scale, "generate", 0, lr_monotonic_s() - t0, "s")))
		rc = lr_bench_add(b, scale, "runs", 0, runs, "runs");
	return rc;
}

/* One scale: fill its store, then every command o->reps times, forward and reversed. */
static int scale(const struct lr_storebench_opts *o, int64_t n, struct lr_bench *b)
{
	struct lr_progress *progress;
	char *dir = NULL, name[80], subject[32];
	int rc, rep, i;
	double s;

	snprintf(name, sizeof name, "labrun-bench-store-%ld-%lld", (long)getpid(), (long long)n);
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	rc = fill(o, dir, n, b, subject, sizeof subject);
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++, lr_progress_update(progress, rep))
		for (i = 0; !rc && i < OPS; i++) {
			int op = rep % 2 ? OPS - 1 - i : i; /* forward, then reversed */

			if (!(rc = timed(o, dir, op, &s)))
				rc = lr_bench_add(b, subject, ops[op], rep, s, "s");
		}
	lr_progress_stop(&progress);
	lr_remove_tree(dir);
	free(dir);
	return rc;
}

static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_storebench_opts *o = opts;
	int rc;

	if ((rc = lr_bench_bind(run, "reps", o->reps)))
		return rc;
	return lr_kvlist_set(&run->binding, "store_dir", o->dir, "user");
}

static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_storebench_opts *o = opts;
	int rc = 0;

	for (int i = 0; !rc && i < o->nscales; i++)
		if (!(rc = scale(o, o->scale[i], &j->bench))) /* its meter shows the repetitions */
			rc = lr_bench_job_step(j);
	return rc;
}

const struct lr_bench_ops lr_storebench_ops = { LR_BENCHMARK_STORE, NULL, bind, measure };
