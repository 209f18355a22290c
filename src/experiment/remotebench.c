/* 'labrun bench remote': push and pull of a synthetic body of evidence, timed as a user runs them. */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/walk.h"
#include "experiment/remotebench.h"
#include "experiment/spawn.h"
#include "experiment/synthetic.h"
#include "store/remote.h"
#include "store/runs.h"

/* A new store in 'dir' knowing the remote. */
static int make_store(const struct lr_remotebench_opts *o, const char *dir, struct lr_store **st)
{
	int rc;

	if ((rc = lr_store_open(st, dir, LR_STORE_CREATE)))
		return rc;
	if ((rc = lr_store_remote_add(*st, o->remote, o->uri, NULL))) {
		lr_store_free(*st);
		*st = NULL;
	}
	return rc;
}

static int add_uuid(void *arg, const struct lr_run *run)
{
	return lr_strlist_add(arg, run->uuid);
}

/* The throwaway store's runs; 'uuids' gets theirs, so the pull takes those and no others. */
static int fill(const struct lr_remotebench_opts *o, const char *dir, struct lr_strlist *uuids, double *s,
		int64_t *bytes)
{
	struct lr_run_filter f = { .status = -1 };
	struct lr_progress *progress;
	struct lr_store *st = NULL;
	double t0 = lr_monotonic_s();
	int64_t id;
	int rc, i;

	if ((rc = make_store(o, dir, &st)))
		return rc;
	progress = lr_progress_start("generated", "runs", o->runs);
	for (i = 0; i < o->runs && !rc; i++) {
		int64_t reps = o->reps / o->runs + (i < o->reps % o->runs),
			each = o->object_bytes / o->runs + (i < o->object_bytes % o->runs);

		rc = lr_synthetic_run(st, reps, each, o->seed + (uint64_t)i, o->argv, o->envp, &id);
		*bytes += each;
		lr_progress_update(progress, i + 1);
	}
	lr_progress_stop(&progress);
	*s = lr_monotonic_s() - t0;
	if (!rc)
		rc = lr_store_run_list(st, &f, add_uuid, uuids);
	lr_store_free(st);
	return rc;
}

/* 'labrun --store DIR push|pull REMOTE [--run UUID...]', which must say it moved every run. */
static int timed(const struct lr_remotebench_opts *o, const char *dir, const char *cmd, const char *moved,
		 const struct lr_strlist *uuids, double *s, long *rss)
{
	char **argv = calloc(6 + 2 * (uuids ? uuids->n : 0), sizeof *argv), *out = NULL, want[64];
	size_t i, n = 0;
	int rc;

	if (!argv)
		return lr_error_set(LR_ENOMEM, "out of memory");
	argv[n++] = (char *)o->self;
	argv[n++] = "--store";
	argv[n++] = (char *)dir;
	argv[n++] = (char *)cmd;
	argv[n++] = (char *)o->remote;
	for (i = 0; uuids && i < uuids->n; i++) {
		argv[n++] = "--run";
		argv[n++] = uuids->v[i];
	}
	rc = lr_bench_spawn(o->self, argv, o->envp, dir, &out, s, rss);
	free(argv);
	if (rc)
		return rc;
	snprintf(want, sizeof want, ": %d run%s %s,", o->runs, o->runs == 1 ? "" : "s", moved);
	if (!strstr(out, want))
		rc = lr_error_set(LR_EIO, "'labrun %s' did not move every run: %s", cmd, out);
	free(out);
	return rc;
}

/* The samples of one command: its wall time and peak RSS. */
static int add_command(struct lr_bench *b, const char *cmd, double s, long rss_kib)
{
	int rc;

	if ((rc = lr_bench_add(b, "", cmd, 0, s, "s")))
		return rc;
	return lr_bench_add(b, "", cmd, 0, (double)rss_kib, "KiB");
}

/* Fill a store, push it, pull it into a second one; the samples once both are done. */
static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_remotebench_opts *o = opts;
	char *src = NULL, *dst = NULL, name[64];
	struct lr_strlist uuids = { 0 };
	struct lr_store *st = NULL;
	double generate_s = 0, push_s = 0, pull_s = 0;
	long push_rss = 0, pull_rss = 0;
	int64_t bytes = 0;
	int rc;

	if (o->runs < 1)
		return lr_error_set(LR_EINVAL, "the benchmark needs at least one run");
	snprintf(name, sizeof name, "labrun-bench-remote-%ld-src", (long)getpid());
	if ((rc = lr_bench_scratch(&src, o->dir, name)))
		return rc;
	snprintf(name, sizeof name, "labrun-bench-remote-%ld-dst", (long)getpid());
	if ((rc = lr_bench_scratch(&dst, o->dir, name)))
		goto out;
	if (!(rc = fill(o, src, &uuids, &generate_s, &bytes)) &&
	    !(rc = timed(o, src, "push", "pushed", NULL, &push_s, &push_rss)) && !(rc = make_store(o, dst, &st))) {
		lr_store_free(st);
		rc = timed(o, dst, "pull", "pulled", &uuids, &pull_s, &pull_rss);
	}
	if (!rc && !(rc = lr_bench_add(&j->bench, "", "generate", 0, generate_s, "s")) &&
	    !(rc = add_command(&j->bench, "push", push_s, push_rss)) &&
	    !(rc = add_command(&j->bench, "pull", pull_s, pull_rss)) &&
	    !(rc = lr_bench_add(&j->bench, "", "objects", 0, (double)bytes, "bytes")))
		rc = lr_bench_job_step(j);
out:
	lr_strlist_release(&uuids);
	if (dst)
		lr_remove_tree(dst);
	lr_remove_tree(src);
	free(src);
	free(dst);
	return rc;
}

/* The remote the benchmark pushes to, as the invoking store names it. */
static int prepare(void *opts, struct lr_store *st)
{
	struct lr_remotebench_opts *o = opts;

	return lr_store_remote_get(st, o->name, &o->remote, &o->uri, NULL);
}

static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_remotebench_opts *o = opts;
	int rc;

	if ((rc = lr_kvlist_set(&run->binding, "remote", o->remote, "user")) ||
	    (rc = lr_bench_bind(run, "runs", o->runs)) || (rc = lr_bench_bind(run, "reps", o->reps)) ||
	    (rc = lr_bench_bind(run, "object_bytes", o->object_bytes)))
		return rc;
	return lr_kvlist_set(&run->binding, "store_dir", o->dir, "user");
}

const struct lr_bench_ops lr_remotebench_ops = { LR_BENCHMARK_REMOTE, prepare, bind, measure };
