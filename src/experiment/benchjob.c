/* A benchmark's run, the same for every benchmark (benchjob.h): begin, a step a subject, end. */
#include "config.h"
#include "base/system.h"

#include "base/progress.h"
#include "base/walk.h"
#include "experiment/benchjob.h"
#include "record/record.h"

void lr_bench_job_init(struct lr_bench_job *j, enum lr_benchmark which)
{
	memset(j, 0, sizeof *j);
	lr_run_init(&j->run);
	lr_bench_init(&j->bench, which);
}

int lr_bench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_bench_ops *ops, void *opts,
		       char *const *argv, char *const *envp)
{
	int rc;

	j->bench.which = ops->which;
	if ((ops->prepare && (rc = ops->prepare(opts, st))) ||
	    (rc = lr_run_capture(st, &j->run, LR_KIND_BENCH, argv, envp, NULL, NULL, NULL)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "benchmark", lr_benchmark_name(ops->which), "user")) ||
	    (rc = ops->bind(&j->run, opts)))
		return rc;
	return lr_session_start(&j->ss, st, &j->run);
}

int lr_bench_job_step(struct lr_bench_job *j)
{
	return j->on_step ? j->on_step(j->arg, j) : 0;
}

int lr_bench_alternate(struct lr_bench_job *j, int reps, lr_bench_side labrun, lr_bench_side peer,
		       const struct lr_bench_pass *p)
{
	struct lr_progress *progress = lr_progress_start("measured", "repetitions", reps);
	int rc = 0, rep;

	for (rep = 0; !rc && rep < reps; rep++) {
		lr_progress_update(progress, rep);
		if (rep % 2 && (rc = labrun(p, rep, &j->bench)))
			break;
		if ((rc = peer(p, rep, &j->bench)))
			break;
		if (!(rep % 2))
			rc = labrun(p, rep, &j->bench);
	}
	lr_progress_update(progress, rep);
	lr_progress_stop(&progress);
	return rc ? rc : lr_bench_job_step(j);
}

uint64_t lr_bench_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int lr_bench_in_scratch(struct lr_bench_job *j, const char *dir, const char *name,
			int (*fn)(void *arg, const char *scratch, struct lr_bench_job *j), void *arg)
{
	char *scratch = NULL, sub[128];
	int rc;

	snprintf(sub, sizeof sub, "labrun-bench-%s-%ld", name, (long)getpid());
	if ((rc = lr_bench_scratch(&scratch, dir, sub)))
		return rc;
	rc = fn(arg, scratch, j);
	lr_remove_tree(scratch);
	free(scratch);
	return rc;
}

int lr_bench_job_end(struct lr_bench_job *j, int failed)
{
	int rc;

	j->run.status = failed ? LR_FAILED : LR_PASSED;
	if (failed && !(j->run.failure = strdup(lr_error_msg())))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_bench_store(&j->bench, &j->run)))
		return rc;
	return lr_session_end(&j->ss, 0);
}

void lr_bench_job_release(struct lr_bench_job *j)
{
	lr_session_release(&j->ss);
	lr_run_release(&j->run);
	lr_bench_release(&j->bench);
}

int lr_bench_bind(struct lr_run *run, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", v);
	return lr_kvlist_set(&run->binding, key, buf, "user");
}

int lr_bench_scratch(char **out, const char *dir, const char *name)
{
	int rc;

	if (asprintf(out, "%s/%s", dir, name) < 0) {
		*out = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (mkdir(*out, 0700) == 0)
		return 0;
	rc = lr_error_set(LR_EIO, "cannot create '%s': %s", *out, strerror(errno));
	free(*out);
	*out = NULL;
	return rc;
}
