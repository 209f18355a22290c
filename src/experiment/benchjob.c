/* A benchmark's run, the same for every benchmark (benchjob.h): begin, a step a subject, end. */
#include "config.h"
#include "base/system.h"

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
