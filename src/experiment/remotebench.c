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
#include "record/record.h"
#include "store/remote.h"
#include "store/runs.h"

/* A new store in 'dir' knowing the remote. */
static int make_store(const struct lr_remotebench_opts *o, const char *dir, struct lr_store **st)
{
	int rc;

	if ((rc = lr_store_open(st, dir, LR_STORE_CREATE)))
		return rc;
	if ((rc = lr_store_remote_add(*st, o->remote, o->uri))) {
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
static int fill(const struct lr_remotebench_opts *o, const char *dir, struct lr_remotebench_result *r,
		struct lr_strlist *uuids)
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
			bytes = o->object_bytes / o->runs + (i < o->object_bytes % o->runs);

		rc = lr_synthetic_run(st, reps, bytes, o->seed + (uint64_t)i, o->argv, o->envp, &id);
		r->bytes += bytes;
		lr_progress_update(progress, i + 1);
	}
	lr_progress_stop(&progress);
	r->generate_s = lr_monotonic_s() - t0;
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

int lr_remotebench(const struct lr_remotebench_opts *o, struct lr_remotebench_result *r)
{
	char *src = NULL, *dst = NULL, name[64];
	struct lr_strlist uuids = { 0 };
	struct lr_store *st = NULL;
	int rc;

	memset(r, 0, sizeof *r);
	if (o->runs < 1)
		return lr_error_set(LR_EINVAL, "the benchmark needs at least one run");
	snprintf(name, sizeof name, "labrun-bench-remote-%ld-src", (long)getpid());
	if ((rc = lr_bench_scratch(&src, o->dir, name)))
		return rc;
	snprintf(name, sizeof name, "labrun-bench-remote-%ld-dst", (long)getpid());
	if ((rc = lr_bench_scratch(&dst, o->dir, name)))
		goto out;
	if (!(rc = fill(o, src, r, &uuids)) &&
	    !(rc = timed(o, src, "push", "pushed", NULL, &r->push_s, &r->push_rss_kib)) && !(rc = make_store(o, dst, &st))) {
		lr_store_free(st);
		rc = timed(o, dst, "pull", "pulled", &uuids, &r->pull_s, &r->pull_rss_kib);
	}
out:
	lr_strlist_release(&uuids);
	if (dst)
		lr_remove_tree(dst);
	lr_remove_tree(src);
	free(src);
	free(dst);
	return rc;
}

int lr_remotebench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_remotebench_opts *o)
{
	int rc;

	if ((rc = lr_bench_job_capture(j, st, o->argv, o->envp, "remote")) ||
	    (rc = lr_kvlist_set(&j->run.binding, "remote", o->remote, "user")) ||
	    (rc = lr_bench_job_bind(j, "runs", o->runs)) || (rc = lr_bench_job_bind(j, "reps", o->reps)) ||
	    (rc = lr_bench_job_bind(j, "object_bytes", o->object_bytes)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "store_dir", o->dir, "user")))
		return rc;
	return lr_bench_job_start(j, st);
}

/* The remote benchmark's samples: subject "", variant and unit. */
static const struct {
	const char *variant, *unit;
} samples[6] = { { "generate", "s" }, { "push", "s" }, { "pull", "s" }, { "push", "KiB" }, { "pull", "KiB" }, { "objects", "bytes" } };

int lr_remotebench_job_add(struct lr_bench_job *j, const struct lr_remotebench_result *r)
{
	const double v[6] = { r->generate_s, r->push_s, r->pull_s, (double)r->push_rss_kib, (double)r->pull_rss_kib,
			      (double)r->bytes };
	int k, rc = 0;

	for (k = 0; k < 6 && !rc; k++)
		rc = lr_run_add_sample(&j->run, "", samples[k].variant, 0, v[k], samples[k].unit);
	return rc;
}

int lr_remotebench_job_results(const struct lr_run *run, struct lr_remotebench_result *r)
{
	const struct lr_kv *b = lr_kvlist_find(&run->binding, "benchmark");
	struct lr_bench_samples sm;
	double v[6];
	int k, rc;

	memset(r, 0, sizeof *r);
	if (!b || strcmp(b->value, "remote"))
		return lr_error_set(LR_EINVAL, "run %lld is not a remote benchmark", (long long)run->id);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (k = 0; k < 6 && !rc; k++) {
		const struct lr_sample *m = lr_bench_sample_find(&sm, "", samples[k].variant, samples[k].unit, 0);

		if (m)
			v[k] = m->value;
		else
			rc = lr_error_set(LR_EINVAL, "remote benchmark run %lld has no sample '%s' in %s", (long long)run->id,
					  samples[k].variant, samples[k].unit);
	}
	lr_bench_samples_release(&sm);
	if (rc)
		return rc;
	r->generate_s = v[0];
	r->push_s = v[1];
	r->pull_s = v[2];
	r->push_rss_kib = (long)v[3];
	r->pull_rss_kib = (long)v[4];
	r->bytes = (int64_t)v[5];
	return 0;
}
