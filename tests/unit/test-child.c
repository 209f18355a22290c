/* The one child-process runner (base/child.h): streams, statuses, timeouts, cancels, the whole group. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "base/exit.h"

extern char **environ;

struct got {
	char text[2][256]; /* stdout, stderr */
	int eof[2];
	int fail_on_data; /* return LR_EIO from the first piece of output */
};

static int on_output(void *arg, int fd, const void *data, size_t len)
{
	struct got *g = arg;
	size_t have = strlen(g->text[fd - 1]);

	if (g->fail_on_data)
		return lr_error_set(LR_EIO, "the reader gave up");
	if (have + len < sizeof g->text[0])
		memcpy(g->text[fd - 1] + have, data, len);
	return 0;
}

static int on_eof(void *arg, int fd)
{
	((struct got *)arg)->eof[fd - 1] = 1;
	return 0;
}

static struct lr_child_opts sh(const char *script, struct got *g)
{
	static char *argv[4] = { "sh", "-c", NULL, NULL };

	argv[2] = (char *)script;
	memset(g, 0, sizeof *g);
	return (struct lr_child_opts){ .argv = argv,
				       .envp = environ,
				       .fd = { LR_CHILD_NULL, LR_CHILD_PIPE, LR_CHILD_PIPE },
				       .on_output = on_output,
				       .on_eof = on_eof,
				       .arg = g };
}

/* Gone, or a zombie about to be reaped by whoever adopted it; waits up to 20 s for that. */
static int gone(pid_t pid)
{
	char path[64], state = 0;
	int i;

	for (i = 0; i < 2000; i++) {
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		if (!(f = fopen(path, "r")))
			return 1;
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		fclose(f);
		if (state == 'Z')
			return 1;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL); /* polling for a condition, bounded */
	}
	return 0;
}

static void child_streams_and_status(void **state)
{
	struct got g;
	struct lr_child_opts o = sh("cat; echo out; echo err >&2; exit 3", &g);
	struct lr_child c;
	char *why;

	(void)state;
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_string_equal(g.text[0], "out\n"); /* stdin was /dev/null: cat ended at once */
	assert_string_equal(g.text[1], "err\n");
	assert_true(g.eof[0] && g.eof[1]);
	assert_true(c.has_exit);
	assert_int_equal(c.exit_code, 3);
	assert_false(c.timed_out || c.cancelled || c.signal || c.exec_errno);
	assert_int_equal(lr_child_exit_status(&c), 3);
	assert_non_null(why = lr_child_failure(&c, "sh", 0));
	assert_string_equal(why, "exited with status 3");
	free(why);
	assert_true(c.ru.ru_maxrss > 0);
}

static void child_cwd_and_success(void **state)
{
	struct got g;
	struct lr_child_opts o = sh("pwd", &g);
	struct lr_child c;

	(void)state;
	o.cwd = "/";
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_string_equal(g.text[0], "/\n");
	assert_null(lr_child_failure(&c, "sh", 0));
	assert_int_equal(lr_child_exit_status(&c), LR_EXIT_OK);
}

static void child_not_found_is_127(void **state)
{
	char *argv[] = { "labrun-no-such-program", NULL };
	struct lr_child_opts o = { .argv = argv,
				   .envp = environ,
				   .fd = { LR_CHILD_NULL, LR_CHILD_NULL, LR_CHILD_NULL } };
	struct lr_child c;
	char *why;

	(void)state;
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_int_equal(c.exec_errno, ENOENT);
	assert_false(c.has_exit);
	assert_int_equal(lr_child_exit_status(&c), LR_EXIT_NOTFOUND);
	assert_non_null(why = lr_child_failure(&c, argv[0], 0));
	assert_non_null(strstr(why, "cannot execute 'labrun-no-such-program'"));
	free(why);
}

/* The timeout reaches the whole group: the background sleep dies with its shell. */
static void child_timeout_kills_the_group(void **state)
{
	char pidfile[] = "/tmp/labrun-child.XXXXXX", script[256], *why;
	struct got g;
	struct lr_child_opts o;
	struct lr_child c;
	long grandchild = 0;
	FILE *f;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(pidfile)) >= 0);
	close(fd);
	snprintf(script, sizeof script, "sleep 60 & echo $! > %s; wait", pidfile);
	o = sh(script, &g);
	o.fd[1] = o.fd[2] = LR_CHILD_NULL; /* the sleep would hold a pipe open */
	o.timeout_s = 0.3;
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_true(c.timed_out);
	assert_false(c.cancelled);
	assert_int_equal(c.signal, SIGTERM);
	assert_int_equal(lr_child_exit_status(&c), LR_EXIT_TIMEOUT);
	assert_non_null(why = lr_child_failure(&c, "sh", o.timeout_s));
	assert_string_equal(why, "timed out after 0.3 s");
	free(why);
	assert_non_null(f = fopen(pidfile, "r"));
	assert_int_equal(fscanf(f, "%ld", &grandchild), 1);
	fclose(f);
	unlink(pidfile);
	assert_true(grandchild > 1);
	assert_true(gone((pid_t)grandchild));
}

/* A child that ignores SIGTERM is killed kill_after_s later. */
static void child_ignoring_sigterm_is_killed(void **state)
{
	struct got g;
	struct lr_child_opts o = sh("trap '' TERM; echo ready; while :; do :; done", &g);
	struct lr_child c;

	(void)state;
	o.timeout_s = 0.2;
	o.kill_after_s = 0.2;
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_string_equal(g.text[0], "ready\n");
	assert_true(c.timed_out);
	assert_int_equal(c.signal, SIGKILL);
	assert_int_equal(lr_child_exit_status(&c), LR_EXIT_TIMEOUT);
}

static void child_cancel_flag(void **state)
{
	struct got g;
	struct lr_child_opts o = sh("sleep 60", &g);
	struct lr_child c;
	atomic_int cancel = 1;
	char *why;

	(void)state;
	o.cancel = &cancel;
	assert_int_equal(lr_child_run(&o, &c), 0);
	assert_true(c.cancelled);
	assert_false(c.timed_out);
	assert_int_equal(c.signal, SIGTERM);
	assert_non_null(why = lr_child_failure(&c, "sh", 0));
	assert_string_equal(why, "cancelled while running");
	free(why);
}

/* When the reader of its output fails, the child is stopped and the error returned. */
static void child_reader_error_stops_it(void **state)
{
	struct got g;
	struct lr_child_opts o = sh("echo x; sleep 60", &g);
	struct lr_child c;

	(void)state;
	g.fail_on_data = 1;
	assert_int_equal(lr_child_run(&o, &c), LR_EIO);
	assert_string_equal(lr_error_msg(), "the reader gave up");
	assert_int_equal(c.signal, SIGKILL);
	lr_error_clear();
}

/*
 * What a child left running is noted, then killed: contained, at once when it
 * exits, though the background sleep holds its stdout; else its group's
 * members once its pipes closed.
 */
static void child_leftovers_noted_and_killed(void **state)
{
	for (int contain = 1; contain >= 0; contain--) {
		struct got g;
		struct lr_child_opts o = sh(contain ? "sleep 60 & exit 0" : "sleep 60 >/dev/null 2>&1 & exit 0", &g);
		struct lr_child c;

		(void)state;
		o.contain = contain;
		o.leftovers = 1;
		assert_int_equal(lr_child_run(&o, &c), 0);
		assert_true(c.has_exit && c.exit_code == 0);
		assert_int_equal(c.left.n, 1);
		assert_true(c.left.v[0].pid > 1 && c.left.v[0].cond == -1 && c.left.v[0].seq == -1);
		/* its command line, or its shell's (a fork before exec), or its name when it had none to read */
		assert_true(strstr(c.left.v[0].argv, "sleep 60") || !strcmp(c.left.v[0].argv, "[sleep]") ||
			    !strcmp(c.left.v[0].argv, "[sh]"));
		assert_true(gone((pid_t)c.left.v[0].pid));
		lr_child_release(&c);
		assert_int_equal(c.left.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(child_streams_and_status),         cmocka_unit_test(child_cwd_and_success),
		cmocka_unit_test(child_not_found_is_127),           cmocka_unit_test(child_timeout_kills_the_group),
		cmocka_unit_test(child_ignoring_sigterm_is_killed), cmocka_unit_test(child_cancel_flag),
		cmocka_unit_test(child_reader_error_stops_it),      cmocka_unit_test(child_leftovers_noted_and_killed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
