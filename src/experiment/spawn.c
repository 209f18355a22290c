/* labrun run as a separate process and timed, for the benchmarks that measure labrun itself. */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/child.h"
#include "base/error.h"
#include "experiment/spawn.h"

/* labrun's stdout, kept whole: the benchmarks read a few lines of JSON from it. */
static int collect(void *arg, int fd, const void *data, size_t len)
{
	(void)fd;
	lr_buf_add(arg, data, len);
	return lr_buf_error(arg); /* stops the child's reading at once */
}

int lr_bench_run(char *const *argv, char *const *envp, const char *dir, char **out, struct lr_child *c)
{
	struct lr_buf got = LR_BUF_INIT;
	/* in dir, outside any git work tree: record reads no sources */
	struct lr_child_opts o = { .argv = argv,
				   .envp = envp,
				   .cwd = dir,
				   .fd = { LR_CHILD_NULL, out ? LR_CHILD_PIPE : LR_CHILD_NULL, LR_CHILD_NULL },
				   .on_output = collect,
				   .arg = &got };
	int rc = lr_child_run(&o, c);

	if (rc || !out) {
		lr_buf_release(&got);
		return rc;
	}
	return (*out = lr_buf_detach(&got, NULL)) ? 0 : LR_ENOMEM;
}

int lr_bench_run_ok(const char *what, char *const *argv, char *const *envp, const char *dir, char **out,
		    struct lr_child *c)
{
	int rc = lr_bench_run(argv, envp, dir, out, c);

	if (!rc && (c->exec_errno || !c->has_exit || c->exit_code)) {
		char *why = lr_child_failure(c, argv[0], 0);

		lr_error_set(LR_EIO, "%s failed: %s", what, why ? why : "failed");
		free(why);
		rc = LR_EIO;
		if (out) {
			free(*out);
			*out = NULL;
		}
	}
	return rc;
}

int lr_bench_spawn(const char *self, char *const *argv, char *const *envp, const char *dir, char **out, double *s,
		   long *rss_kib)
{
	struct lr_child c;
	const char *cmd;
	char what[128];
	int rc;

	(void)self; /* argv[0] */
	/* the command: after '--store DIR' when it is given ('labrun --version' has none) */
	cmd = argv[1] && !strcmp(argv[1], "--store") && argv[2] && argv[3] ? argv[3] : argv[1] ? argv[1] : "";
	snprintf(what, sizeof what, "'labrun %s' on the benchmark's store", cmd);
	if ((rc = lr_bench_run_ok(what, argv, envp, dir, out, &c))) {
		if (rc == LR_EIO)
			lr_error_hint("run it by hand: labrun --store %s %s ...", dir, cmd);
		return rc;
	}
	*s = c.wall_s;
	if (rss_kib)
		*rss_kib = c.ru.ru_maxrss;
	return 0;
}
