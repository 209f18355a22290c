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
#include "base/model.h"
#include "base/stats.h"
#include "experiment/spawn.h"
#include "experiment/storebench.h"
#include "experiment/synthetic.h"
#include "record/record.h"

const char *const lr_storebench_ops[LR_STOREBENCH_OPS] = { "record", "report", "audit" };

/* At most this many repetitions a run: a large store is many runs, as a lab's is. */
#define REPS_PER_RUN 100000

/* One command on the store in 'dir' (its working directory too), output discarded; wall seconds. */
static int timed(const struct lr_storebench_opts *o, const char *dir, const char *op, double *s)
{
	char *const record[] = { (char *)o->self, "--store", (char *)dir, "record", "-q", "--", "true", NULL };
	char *const report[] = { (char *)o->self, "--store", (char *)dir, "report", "--issue", "270", NULL };
	char *const audit[] = { (char *)o->self, "--store", (char *)dir, "audit", NULL };

	return lr_bench_spawn(o->self, !strcmp(op, "record") ? record : !strcmp(op, "report") ? report : audit,
			      o->envp, dir, NULL, s, NULL);
}

static int fill(const struct lr_storebench_opts *o, const char *dir, int64_t n, struct lr_storebench_row *row)
{
	struct lr_store *st = NULL;
	int64_t done = 0, id;
	double t0;
	int rc;

	if ((rc = lr_store_open(&st, dir, LR_STORE_CREATE)))
		return rc;
	t0 = lr_monotonic_s();
	while (!rc && done < n) {
		int64_t k = n - done < REPS_PER_RUN ? n - done : REPS_PER_RUN;

		rc = lr_synthetic_run(st, k, 0, o->seed + (uint64_t)row->runs, o->argv, o->envp, &id);
		done += k / 8 * 8 > 0 ? k / 8 * 8 : 8;
		row->runs++;
	}
	row->generate_s = lr_monotonic_s() - t0;
	row->reps = done;
	lr_store_free(st);
	return rc;
}

int lr_storebench_scale(const struct lr_storebench_opts *o, int64_t n, struct lr_storebench_row *row)
{
	struct lr_progress *progress;
	char *dir = NULL, name[80];
	int rc, rep, i;

	memset(row, 0, sizeof *row);
	if (o->reps < 2 || o->reps > LR_STOREBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_STOREBENCH_MAXREPS);
	snprintf(name, sizeof name, "labrun-bench-store-%ld-%lld", (long)getpid(), (long long)n);
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	rc = fill(o, dir, n, row);
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++, lr_progress_update(progress, rep))
		for (i = 0; !rc && i < LR_STOREBENCH_OPS; i++) {
			int op = rep % 2 ? LR_STOREBENCH_OPS - 1 - i : i; /* forward, then reversed */

			rc = timed(o, dir, lr_storebench_ops[op], &row->s[op][rep]);
		}
	lr_progress_stop(&progress);
	for (i = 0; !rc && i < LR_STOREBENCH_OPS; i++) {
		double v[LR_STOREBENCH_MAXREPS];

		memcpy(v, row->s[i] + 1, (size_t)(o->reps - 1) * sizeof *v); /* the first is warm-up */
		row->median_s[i] = lr_median(v, (size_t)(o->reps - 1));
	}
	lr_remove_tree(dir);
	free(dir);
	return rc;
}

/* ---- as a run ------------------------------------------------------------------- */

int lr_storebench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_storebench_opts *o)
{
	int rc;

	if ((rc = lr_bench_job_capture(j, st, o->argv, o->envp, "store")) || (rc = lr_bench_job_bind(j, "reps", o->reps)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "store_dir", o->dir, "user")))
		return rc;
	return lr_bench_job_start(j, st);
}

int lr_storebench_job_add(struct lr_bench_job *j, int reps, const struct lr_storebench_row *row)
{
	char scale[32];
	int op, rep, rc;

	snprintf(scale, sizeof scale, "%lld", (long long)row->reps);
	if ((rc = lr_run_add_sample(&j->run, scale, "generate", 0, row->generate_s, "s")) ||
	    (rc = lr_run_add_sample(&j->run, scale, "runs", 0, row->runs, "runs")))
		return rc;
	for (op = 0; op < LR_STOREBENCH_OPS; op++)
		for (rep = 0; rep < reps; rep++)
			if ((rc = lr_run_add_sample(&j->run, scale, lr_storebench_ops[op], rep, row->s[op][rep], "s")))
				return rc;
	return 0;
}

/* The row of scale 'n' in rows[0..*nrows), added when new. */
static struct lr_storebench_row *row_of(struct lr_storebench_row **rows, int *nrows, long long n)
{
	struct lr_storebench_row *p;

	if (*nrows && (*rows)[*nrows - 1].reps == n)
		return &(*rows)[*nrows - 1];
	if (!(p = realloc(*rows, (size_t)(*nrows + 1) * sizeof *p)))
		return NULL;
	*rows = p;
	memset(&p[*nrows], 0, sizeof *p);
	p[*nrows].reps = n;
	return &p[(*nrows)++];
}

int lr_storebench_job_results(const struct lr_run *run, struct lr_storebench_row **rows, int *n)
{
	const struct lr_kv *r = lr_kvlist_find(&run->binding, "reps");
	int nreps = r ? atoi(r->value) : 0, rc = 0, op;
	struct lr_storebench_row *row;
	struct lr_bench_samples sm;
	size_t i;

	*rows = NULL;
	*n = 0;
	if (nreps < 2 || nreps > LR_STOREBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "run %lld is not a store benchmark", (long long)run->id);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (i = 0; !rc && i < sm.n; i++) {
		const struct lr_sample *m = &sm.v[i];
		char *end;
		long long scale = strtoll(m->subject, &end, 10);

		if (end == m->subject || *end || scale <= 0 || m->rep >= nreps) {
			rc = lr_error_set(LR_EINVAL, "run %lld: sample '%s %s rep %d' is not a store benchmark sample",
					  (long long)run->id, m->subject, m->variant, m->rep);
			break;
		}
		if (!(row = row_of(rows, n, scale))) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		if (!strcmp(m->variant, "generate"))
			row->generate_s = m->value;
		else if (!strcmp(m->variant, "runs"))
			row->runs = (int)m->value;
		for (op = 0; op < LR_STOREBENCH_OPS; op++)
			if (!strcmp(m->variant, lr_storebench_ops[op]))
				row->s[op][m->rep] = m->value;
	}
	lr_bench_samples_release(&sm);
	for (i = 0; !rc && i < (size_t)*n; i++)
		for (op = 0; op < LR_STOREBENCH_OPS; op++) {
			double v[LR_STOREBENCH_MAXREPS];

			memcpy(v, (*rows)[i].s[op] + 1, (size_t)(nreps - 1) * sizeof *v);
			(*rows)[i].median_s[op] = lr_median(v, (size_t)(nreps - 1));
		}
	if (rc || !*n) {
		free(*rows);
		*rows = NULL;
		*n = 0;
		return rc ? rc : lr_error_set(LR_EINVAL, "store benchmark run %lld holds no samples", (long long)run->id);
	}
	return 0;
}
