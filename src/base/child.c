/* The one child-process runner (base/child.h). */
#include "config.h"
#include "base/system.h"

#include <dirent.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>

#include "base/clock.h"
#include "base/child.h"
#include "base/exit.h"
#include "base/model.h"

#define CHUNK (1 << 16)

/* What lr_child_run keeps while the child runs. */
struct run {
	const struct lr_child_opts *o;
	struct lr_child *c;
	int out[3]; /* read ends of the piped streams, -1 when none or at EOF */
	int sfd;    /* signalfd with forward_signals, else -1 */
	int pidfd;  /* tells us the child ended, -1 without one (then we poll) */
	int tty;    /* the terminal handed to the child, or -1 */
	int reaped;
	int swept; /* contain and leftovers: what it left was noted and killed once it exited */
	int status;
	double start, term_at, kill_at; /* kill_at: when SIGKILL is due, 0: not yet */
	unsigned char *buf;
};

void lr_child_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGTTOU);
}

static int child_fd(int want, int pipe_end)
{
	if (want == LR_CHILD_PIPE)
		return pipe_end;
	if (want == LR_CHILD_NULL)
		return open("/dev/null", O_RDWR | O_CLOEXEC);
	return want;
}

/* In the child: its group, terminal, signals and streams, then exec; errno to 'xp' on failure. */
static void exec_child(const struct lr_child_opts *o, const int *wr, int xp, int tty)
{
	int i, e = 0, in_cwd = 0, msg[2]; /* to the parent: errno, and whether it came from chdir */

	setpgid(0, 0);
	if (tty >= 0)
		tcsetpgrp(tty, getpid()); /* SIGTTOU is still blocked here */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL); /* labrun ignores it; the command gets the default, as without labrun */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (o->child_mask)
		sigprocmask(SIG_SETMASK, o->child_mask, NULL);
	for (i = 0; i < 3 && !e; i++) {
		int fd = o->fd[i] == LR_CHILD_INHERIT ? i : child_fd(o->fd[i], wr[i]);

		if (fd < 0 || (fd != i && dup2(fd, i) < 0))
			e = errno ? errno : EBADF;
	}
	if (!e && o->cwd && chdir(o->cwd) != 0) {
		e = errno;
		in_cwd = 1;
	}
	if (!e) {
		environ = (char **)o->envp; /* so that argv[0] is found with the child's own PATH */
		execvpe(o->argv[0], o->argv, o->envp);
		e = errno;
	}
	msg[0] = e;
	msg[1] = in_cwd;
	if (write(xp, msg, sizeof msg) < 0)
		_exit(LR_EXIT_LABRUN);
	_exit(e == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC);
}

/* Collect the child if it ended; a stop (Ctrl-Z on its terminal) stops labrun too. */
static void reap(struct run *r)
{
	int status;
	struct rusage ru;

	while (!r->reaped && wait4(r->c->pid, &status, WNOHANG | WUNTRACED, &ru) == r->c->pid) {
		if (WIFSTOPPED(status)) {
			if (r->tty < 0)
				continue;
			tcsetpgrp(r->tty, getpgrp());
			kill(getpid(), SIGSTOP);
			tcsetpgrp(r->tty, r->c->pid);
			kill(-r->c->pid, SIGCONT);
			continue;
		}
		r->reaped = 1;
		r->status = status;
		r->c->ru = ru;
	}
}

/* SIGTERM (or the forwarded 'sig') to the group, and SIGKILL kill_after_s later. */
static void stop(struct run *r, int sig, double now)
{
	double after = r->o->kill_after_s > 0 ? r->o->kill_after_s : 5;

	if (!r->term_at) {
		r->term_at = now;
		r->kill_at = now + after;
	}
	kill(-r->c->pid, sig);
}

static void on_signal(struct run *r, int sig, double now)
{
	struct lr_child *c = r->c;

	if (sig == SIGCHLD) {
		reap(r);
		return;
	}
	if (sig == SIGTTOU || r->reaped)
		return;
	if (c->cancel_sig && sig == c->cancel_sig && now - r->term_at > 0.2) {
		kill(-c->pid, SIGKILL); /* asked twice: stop now */
		return;
	}
	if (!c->cancel_sig && !c->timed_out) {
		c->cancel_sig = sig;
		c->cancelled = 1;
	}
	stop(r, sig, now);
}

/* Timeout, cancel and escalation; how long poll() may wait for the next of them (-1: no limit). */
static int deadlines(struct run *r, double now)
{
	const struct lr_child_opts *o = r->o;
	double next = -1, deadline = o->timeout_s > 0 ? r->start + o->timeout_s : 0;

	if (!r->reaped && !r->term_at) {
		if (deadline && now >= deadline) {
			r->c->timed_out = 1;
			stop(r, SIGTERM, now);
		} else if (o->cancel && *o->cancel) {
			r->c->cancelled = 1;
			stop(r, SIGTERM, now);
		}
	}
	if (r->kill_at && now >= r->kill_at) {
		/* The group ignored SIGTERM, or a descendant still holds our pipes. */
		kill(-r->c->pid, SIGKILL);
		r->kill_at = now + 3600;
	}
	if (deadline && !r->term_at && !r->reaped)
		next = deadline;
	if (r->kill_at && (next < 0 || r->kill_at < next))
		next = r->kill_at;
	if (o->cancel && !r->term_at && (next < 0 || next > now + 0.1))
		next = now + 0.1; /* the flag is polled */
	if (r->pidfd < 0 && r->sfd < 0 && !r->reaped && (next < 0 || next > now + 0.01))
		next = now + 0.01; /* nothing tells us it ended: poll for it */
	return next < 0 ? -1 : (int)((next - now) * 1000) + 1;
}

/* Read what is there on piped stream 'fd'; at EOF close it. */
static int pump(struct run *r, int fd)
{
	ssize_t n = read(r->out[fd], r->buf, CHUNK);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) { /* a broken pipe is an end too */
		close(r->out[fd]);
		r->out[fd] = -1;
		return r->o->on_eof ? r->o->on_eof(r->o->arg, fd) : 0;
	}
	return r->o->on_output(r->o->arg, fd, r->buf, (size_t)n);
}

/* Up to len - 1 bytes of /proc/PID/NAME into buf, NUL-terminated; how many (0 when the process is gone). */
static size_t proc_read(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	if ((f = fopen(path, "re"))) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return n;
}

/* Process pid's command line from /proc, arguments separated by spaces, cut at len - 1; "" when gone. */
static void cmdline(pid_t pid, char *buf, size_t len)
{
	size_t n = proc_read(pid, "cmdline", buf, len);

	for (; n && !buf[n - 1]; n--) /* the last argument's NUL */
		;
	for (size_t i = 0; i < n; i++)
		buf[i] = buf[i] ? buf[i] : ' ';
	buf[n] = '\0';
}

/* Process pid's name as the kernel keeps it, in brackets as ps shows one without a command line. */
static void comm(pid_t pid, char *buf, size_t len)
{
	char name[64];

	proc_read(pid, "comm", name, sizeof name);
	name[strcspn(name, "\n")] = '\0';
	snprintf(buf, len, "[%s]", name);
}

/* 1 when pid is alive (not a zombie), with its process group in *pgrp. */
static int alive(pid_t pid, pid_t *pgrp)
{
	char buf[512], state;
	int ppid, pg = 0;

	proc_read(pid, "stat", buf, sizeof buf);
	char *p = strrchr(buf, ')'); /* after the command's name, which may hold anything */

	if (!p || sscanf(p + 1, " %c %d %d", &state, &ppid, &pg) != 3 || state == 'Z' || state == 'X')
		return 0;
	*pgrp = pg;
	return 1;
}

/* Stop pid and note it as left behind; the error when out of memory. */
static int note(struct lr_child *c, pid_t pid)
{
	char argv[1024];

	kill(pid, SIGSTOP);
	cmdline(pid, argv, sizeof argv);
	/* caught inside execve, a process has no command line for a moment: ask again once it has one */
	for (int i = 0; !argv[0] && i < 100 && alive(pid, &(pid_t){ 0 }); i++) {
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		cmdline(pid, argv, sizeof argv);
	}
	if (!argv[0])
		comm(pid, argv, sizeof argv);
	return lr_leftovers_add(&c->left, -1, -1, pid, argv);
}

/* The children of pid's threads ("self" for labrun's), appended to list (at most max). */
static void children_of(const char *pid, pid_t *list, int *n, int max)
{
	char path[300], buf[4096];
	struct dirent *t;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%s/task", pid);
	if (!(d = opendir(path)))
		return;
	while ((t = readdir(d))) {
		FILE *f;
		size_t k;
		long v;

		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%s/task/%s/children", pid, t->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		k = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[k] = '\0';
		for (char *p = buf, *end; *n < max && (v = strtol(p, &end, 10)) > 0; p = end)
			list[(*n)++] = (pid_t)v;
	}
	closedir(d);
}

/*
 * With contain, once the child has exited: every descendant of labrun still
 * alive is its leftover (labrun, their subreaper, has no other children while
 * it runs one). Each is stopped as it is found, before its own children are
 * read, so none forks past the walk; then all are killed (reap_orphans reaps them).
 */
static int sweep_descendants(struct run *r)
{
	enum { MAX = 4096 };
	pid_t *list = malloc(MAX * sizeof *list), pg;
	int n = 0, rc = 0;

	if (!list)
		return lr_error_set(LR_ENOMEM, "out of memory");
	children_of("self", list, &n, MAX);
	for (int i = 0; i < n && !rc; i++) {
		char pid[32];

		if (list[i] == r->c->pid || !alive(list[i], &pg))
			continue;
		rc = note(r->c, list[i]);
		snprintf(pid, sizeof pid, "%d", (int)list[i]);
		children_of(pid, list, &n, MAX);
	}
	for (int i = 0; i < n; i++)
		if (list[i] != r->c->pid)
			kill(list[i], SIGKILL);
	free(list);
	return rc;
}

/* Without contain, once the child has exited and its pipes closed: the members of its group still alive. */
static int sweep_group(struct lr_child *c)
{
	struct dirent *e;
	int rc = 0;
	DIR *d;

	if (kill(-c->pid, SIGSTOP) != 0 || !(d = opendir("/proc")))
		return 0; /* no member left */
	while (!rc && (e = readdir(d))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10), pg;

		if (pid > 0 && alive(pid, &pg) && pg == c->pid)
			rc = note(c, pid);
	}
	closedir(d);
	return rc;
}

/* Wait for the child and its pipes, serving streams, signals and deadlines. */
static int wait_loop(struct run *r)
{
	struct pollfd p[5];
	int rc = 0, i;

	while (!r->reaped || r->out[1] >= 0 || r->out[2] >= 0) {
		int timeout = deadlines(r, lr_monotonic_s());

		p[0] = (struct pollfd){ r->out[1], POLLIN, 0 };
		p[1] = (struct pollfd){ r->out[2], POLLIN, 0 };
		p[2] = (struct pollfd){ r->sfd, POLLIN, 0 };
		p[3] = (struct pollfd){ r->reaped ? -1 : r->pidfd, POLLIN, 0 };
		if (poll(p, 4, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return lr_error_set(LR_EIO, "cannot wait for '%s': %s", r->o->argv[0], strerror(errno));
		}
		for (i = 0; i < 2 && !rc; i++)
			if (r->out[i + 1] >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				rc = pump(r, i + 1);
		if (rc)
			return rc;
		if (p[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si)
				on_signal(r, (int)si.ssi_signo, lr_monotonic_s());
		}
		reap(r); /* SIGCHLD may be coalesced, and without a signalfd we get none */
		if (r->reaped && r->o->contain && r->o->leftovers && !r->swept) {
			r->swept = 1; /* what still holds its pipes is a leftover too: its end is the child's */
			if ((rc = sweep_descendants(r)))
				return rc;
		}
	}
	return 0;
}

/* Start the child; 0 with c->pid set, or why not. */
static int start(struct run *r, int xp[2])
{
	const struct lr_child_opts *o = r->o;
	int wr[3] = { -1, -1, -1 }, p[2], i, rc = 0, msg[2];
	ssize_t n;

	for (i = 1; i < 3; i++) {
		if (o->fd[i] != LR_CHILD_PIPE)
			continue;
		if (pipe2(p, O_CLOEXEC))
			return lr_error_set(LR_EIO, "cannot create a pipe for '%s': %s", o->argv[0], strerror(errno));
		r->out[i] = p[0];
		wr[i] = p[1];
	}
	if (o->forward_signals && isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		r->tty = STDIN_FILENO;
	r->start = lr_monotonic_s();
	r->c->pid = fork();
	if (r->c->pid == 0)
		exec_child(o, wr, xp[1], r->tty);
	for (i = 1; i < 3; i++)
		if (wr[i] >= 0)
			close(wr[i]);
	close(xp[1]);
	xp[1] = -1;
	if (r->c->pid < 0)
		return lr_error_set(LR_EIO, "cannot start '%s': fork failed: %s", o->argv[0], strerror(errno));
	setpgid(r->c->pid, r->c->pid);
	if (r->tty >= 0)
		tcsetpgrp(r->tty, r->c->pid);
	do
		n = read(xp[0], msg, sizeof msg);
	while (n < 0 && errno == EINTR);
	r->c->exec_errno = n == (ssize_t)sizeof msg ? msg[0] : 0;
	r->c->bad_cwd = n == (ssize_t)sizeof msg && msg[1] ? o->cwd : NULL;
	r->pidfd = (int)syscall(SYS_pidfd_open, r->c->pid, 0);
	return rc;
}

/* Kill and reap every child labrun still has: with the subreaper set, whatever the command left behind. */
static int reap_orphans(void)
{
	int killed = 0, round, n = 1;

	for (round = 0; n && round < 100; round++) { /* a killed one's own children come to us next */
		pid_t list[1024];

		n = 0;
		children_of("self", list, &n, 1024);
		for (int i = 0; i < n; i++) {
			kill(list[i], SIGKILL);
			kill(-list[i], SIGKILL);
			while (waitpid(list[i], NULL, 0) < 0 && errno == EINTR)
				;
			killed++;
		}
	}
	return killed;
}

int lr_child_run(const struct lr_child_opts *o, struct lr_child *c)
{
	struct run r = { .o = o, .c = c, .out = { -1, -1, -1 }, .sfd = -1, .pidfd = -1, .tty = -1 };
	int xp[2] = { -1, -1 }, rc, i;
	sigset_t set;

	memset(c, 0, sizeof *c);
	c->pid = -1;
	if (!(r.buf = malloc(CHUNK)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_child_signals(&set);
	if (o->contain && prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		free(r.buf);
		return lr_error_set(LR_EIO, "cannot become the subreaper of '%s': %s", o->argv[0], strerror(errno));
	}
	if (pipe2(xp, O_CLOEXEC) ||
	    (o->forward_signals && (r.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)) {
		rc = lr_error_set(LR_EIO, "cannot prepare to run '%s': %s", o->argv[0], strerror(errno));
		goto out;
	}
	if (!(rc = start(&r, xp)))
		rc = wait_loop(&r);
	if (c->pid > 0) {
		if (rc)
			kill(-c->pid, SIGKILL); /* labrun failed around it: stop it */
		while (!r.reaped) {
			if (wait4(c->pid, &r.status, 0, &c->ru) == c->pid)
				r.reaped = 1;
			else if (errno != EINTR)
				break;
		}
		if (!rc && o->leftovers && !o->contain)
			rc = sweep_group(c);
		kill(-c->pid, SIGKILL); /* whatever it left running in its group */
		c->wall_s = lr_monotonic_s() - r.start;
		if (o->contain)
			c->orphans = reap_orphans(); /* and what it left outside it */
		if (r.tty >= 0)
			tcsetpgrp(r.tty, getpgrp());
		if (WIFEXITED(r.status) && !c->exec_errno) {
			c->has_exit = 1;
			c->exit_code = WEXITSTATUS(r.status);
		} else if (WIFSIGNALED(r.status)) {
			c->signal = WTERMSIG(r.status);
		}
		if (c->signal == SIGINT && !c->timed_out && !c->cancelled) {
			/* Ctrl-C on a terminal reaches the child's group directly, not us */
			c->cancelled = 1;
			c->cancel_sig = SIGINT;
		}
	}
out:
	for (i = 0; i < 3; i++)
		if (r.out[i] >= 0)
			close(r.out[i]);
	if (xp[0] >= 0)
		close(xp[0]);
	if (xp[1] >= 0)
		close(xp[1]);
	if (r.sfd >= 0)
		close(r.sfd);
	if (r.pidfd >= 0)
		close(r.pidfd);
	free(r.buf);
	return rc;
}

void lr_child_release(struct lr_child *c)
{
	lr_leftovers_release(&c->left);
}

char *lr_child_failure(const struct lr_child *c, const char *cmd, double timeout_s)
{
	char *s = NULL;
	int n;

	if (c->exec_errno && c->bad_cwd)
		n = asprintf(&s, "cannot start '%s' in '%s': %s", cmd, c->bad_cwd, strerror(c->exec_errno));
	else if (c->exec_errno)
		n = asprintf(&s, "cannot execute '%s': %s", cmd, strerror(c->exec_errno));
	else if (c->cancelled && c->cancel_sig)
		n = asprintf(&s, "cancelled by %s", strsignal(c->cancel_sig));
	else if (c->cancelled)
		n = asprintf(&s, "cancelled while running");
	else if (c->timed_out)
		n = asprintf(&s, "timed out after %g s", timeout_s);
	else if (c->signal)
		n = asprintf(&s, "killed by signal %d (%s)", c->signal, strsignal(c->signal));
	else if (c->exit_code)
		n = asprintf(&s, "exited with status %d", c->exit_code);
	else
		return NULL;
	return n >= 0 ? s : strdup("failed");
}

int lr_child_exit_status(const struct lr_child *c)
{
	if (c->exec_errno)
		return c->exec_errno == ENOENT ? LR_EXIT_NOTFOUND : LR_EXIT_NOEXEC;
	if (c->timed_out && !c->cancelled)
		return LR_EXIT_TIMEOUT;
	if (c->signal)
		return 128 + c->signal;
	return c->exit_code;
}
