/* labrun run as a separate process and timed, for the benchmarks that measure labrun itself. */
#include "config.h"
#include "base/system.h"

#include "base/child.h"
#include "base/error.h"
#include "experiment/spawn.h"

struct collected {
	char *buf;
	size_t len, cap;
};

/* labrun's stdout, kept whole: the benchmarks read a few lines of JSON from it. */
static int collect(void *arg, int fd, const void *data, size_t len)
{
	struct collected *c = arg;

	(void)fd;
	if (c->len + len + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		char *p;

		while (cap < c->len + len + 1)
			cap *= 2;
		if (!(p = realloc(c->buf, cap)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		c->buf = p;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, len);
	c->len += len;
	c->buf[c->len] = '\0';
	return 0;
}

int lr_bench_run(char *const *argv, char *const *envp, const char *dir, char **out, struct lr_child *c)
{
	struct collected got = { NULL, 0, 0 };
	/* in dir, outside any git work tree: record reads no sources */
	struct lr_child_opts o = { .argv = argv, .envp = envp, .cwd = dir,
				   .fd = { LR_CHILD_NULL, out ? LR_CHILD_PIPE : LR_CHILD_NULL, LR_CHILD_NULL },
				   .on_output = collect, .arg = &got };
	int rc = lr_child_run(&o, c);

	if (rc) {
		free(got.buf);
		return rc;
	}
	if (out && !(*out = got.buf ? got.buf : strdup("")))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
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
	char what[128];
	int rc;

	(void)self; /* argv[0] */
	snprintf(what, sizeof what, "'labrun %s' on the benchmark's store", argv[3]);
	if ((rc = lr_bench_run_ok(what, argv, envp, dir, out, &c))) {
		if (rc == LR_EIO)
			lr_error_hint("run it by hand: labrun --store %s %s ...", dir, argv[3]);
		return rc;
	}
	*s = c.wall_s;
	if (rss_kib)
		*rss_kib = c.ru.ru_maxrss;
	return 0;
}
