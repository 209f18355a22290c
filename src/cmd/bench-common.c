/* What every 'labrun bench' benchmark shares: its directory, this executable, the host line, the end of its run. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "record/hostinfo.h"

int cmd_bench_dir(const char **dir, const char *why)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (!*dir)
		*dir = tmp && *tmp ? tmp : "/tmp";
	if (stat(*dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(*dir, W_OK | X_OK) != 0)
		return cmd_usage_error("bench", "--dir '%s': not a directory this process can write into%s", *dir, why);
	return 0;
}

int cmd_bench_self(char *buf, size_t size)
{
	ssize_t len = readlink("/proc/self/exe", buf, size - 1);

	if (len < 0)
		return cmd_fail(lr_error_set(LR_EIO, "cannot find this labrun's executable (/proc/self/exe)"));
	buf[len] = '\0';
	return 0;
}

void cmd_bench_host_line(const char *extra)
{
	struct lr_host h;

	if (lr_host_probe(&h) != 0)
		return;
	printf("host %s: %s, %lld CPUs, %s; labrun %s%s\n", h.hostname, h.cpu_model ? h.cpu_model : "unknown CPU",
	       (long long)h.cores, h.kernel, PACKAGE_VERSION, extra);
	lr_host_release(&h);
}

int cmd_bench_progress;

int cmd_bench_finish(struct lr_bench_job *job, int rc)
{
	cmd_progress_end();
	if ((rc = lr_bench_job_end(job, rc != 0)) || job->run.status != LR_PASSED) {
		if (!rc)
			lr_error_set(LR_EIO, "%s", job->run.failure);
		lr_error_hint("'labrun show %lld' has what was stored", (long long)job->run.id);
		return cmd_fail(rc ? rc : LR_EIO);
	}
	return 0;
}
