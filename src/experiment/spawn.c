/* labrun run as a separate process and timed, for the benchmarks that measure labrun itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/model.h"
#include "experiment/spawn.h"

/* Read all of fd into a malloc'd string. */
static char *slurp(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *p;
	ssize_t r;

	while (buf) {
		if (len + 1 == cap) {
			if (!(p = realloc(buf, cap *= 2))) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

int lr_bench_spawn(const char *self, char *const *argv, char *const *envp, const char *dir, char **out, double *s,
		   long *rss_kib)
{
	struct rusage ru;
	posix_spawn_file_actions_t fa;
	int status, rc, fds[2] = { -1, -1 };
	double t0;
	pid_t pid;

	if (out && pipe2(fds, O_CLOEXEC) != 0)
		return lr_error_set(LR_EIO, "cannot make a pipe: %s", strerror(errno));
	if (posix_spawn_file_actions_init(&fa)) {
		if (out)
			close(fds[0]), close(fds[1]);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (out)
		posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, dir); /* outside any git work tree: record reads no sources */
	t0 = lr_monotonic_s();
	rc = posix_spawn(&pid, self, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (out) {
		close(fds[1]);
		*out = rc ? NULL : slurp(fds[0]);
		close(fds[0]);
	}
	if (rc)
		return lr_error_set(LR_EIO, "cannot run '%s': %s", self, strerror(rc));
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return lr_error_set(LR_EIO, "cannot wait for 'labrun %s': %s", argv[3], strerror(errno));
	*s = lr_monotonic_s() - t0;
	if (rss_kib)
		*rss_kib = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		lr_error_set(LR_EIO, "'labrun %s' on the benchmark's store failed (%s %d)", argv[3],
			     WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		lr_error_hint("run it by hand: labrun --store %s %s ...", dir, argv[3]);
		return LR_EIO;
	}
	if (out && !*out)
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}
