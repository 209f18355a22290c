#ifndef LR_BASE_CHILD_H
#define LR_BASE_CHILD_H

/*
 * The one way labrun runs another program: 'record', command experiments and
 * the benchmarks that time labrun itself all go through lr_child_run. The
 * child gets a process group of its own, so that a timeout, a cancel or a
 * forwarded signal reaches everything it started, and whatever of the group
 * is still running when it ends is killed. How it ended is said one way
 * (struct lr_child, lr_child_failure, lr_child_exit_status).
 */

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/model.h"

/* Where one of the child's standard streams goes, besides an open descriptor (>= 0). */
enum {
	LR_CHILD_INHERIT = -1, /* ours */
	LR_CHILD_NULL = -2,    /* /dev/null */
	LR_CHILD_PIPE = -3,    /* stdout, stderr: a pipe whose data reaches on_output */
};

struct lr_child_opts {
	char *const *argv; /* argv[0] is looked up in PATH */
	char *const *envp;
	const char *cwd; /* NULL: ours */
	int fd[3];       /* stdin, stdout, stderr: a descriptor or an LR_CHILD_* */
	/* Data from a piped stream (fd 1 or 2), in order; nonzero stops the child (SIGKILL) and is returned. */
	int (*on_output)(void *arg, int fd, const void *data, size_t len);
	/* A piped stream reached its end (fd 1 or 2); may be NULL. */
	int (*on_eof)(void *arg, int fd);
	void *arg;
	double timeout_s;    /* > 0: SIGTERM to the group after this long */
	double kill_after_s; /* SIGKILL to the group this long after a SIGTERM (timeout or cancel); 0: 5 s */
	atomic_int *cancel;  /* may be NULL; once nonzero, the child is cancelled (SIGTERM) */
	/*
	 * Forward the signals of lr_child_signals() that reach labrun to the
	 * child's group (a second one of the same kind: SIGKILL), and hand it
	 * stdin's terminal while it runs (Ctrl-Z stops labrun with it). The
	 * caller blocks those signals first; child_mask is the mask to give it.
	 */
	int forward_signals;
	const sigset_t *child_mask;
	/*
	 * Nothing it starts outlives it: labrun becomes the subreaper of its
	 * descendants (PR_SET_CHILD_SUBREAPER), so one that leaves the group and
	 * the session (a daemon's setsid and double fork) is reparented to labrun
	 * and killed with the rest when it ends. For experiments, whose next
	 * block must not run beside the last one's leftovers.
	 */
	int contain;
	/*
	 * Note what it left running (c->left), each stopped as it is found so
	 * that it starts nothing more, before it is killed: with contain, every
	 * descendant still alive once the child has exited (then at once, even
	 * while one of them holds its pipes); without, every member of its
	 * process group still alive once it has exited and its pipes closed.
	 * The caller frees them with lr_child_release.
	 */
	int leftovers;
};

struct lr_child {
	pid_t pid;
	int exec_errno;      /* why it could not be started (ENOENT: not found); 0 once it ran */
	const char *bad_cwd; /* when exec_errno came from entering opts->cwd: it (borrowed) */
	int has_exit;        /* it exited: exit_code is its status */
	int exit_code;
	int signal;               /* the signal that ended it, 0 if none */
	int timed_out;            /* the timeout expired */
	int cancelled;            /* cancelled: by opts->cancel, or by cancel_sig */
	int cancel_sig;           /* the forwarded signal that cancelled it, 0 if none */
	double wall_s;            /* from start until it ended and its pipes closed */
	int orphans;              /* with contain: processes it left running (its group's or not), killed at its end */
	struct rusage ru;         /* its own, from wait4 */
	struct lr_leftovers left; /* with leftovers: what it left running, in the order found (cond, seq -1) */
};

/* What c holds beyond its fields (its leftovers). */
void lr_child_release(struct lr_child *c);

/* The signals lr_child_run reads while the child runs, with forward_signals. */
void lr_child_signals(sigset_t *set);

/*
 * Run o->argv to its end. Returns 0 when it ran or could not be started (see
 * c->exec_errno), whatever its status; LR_EIO when labrun could not run it
 * (no pipe, no fork), or the error on_output or on_eof returned.
 */
LR_MUST_CHECK int lr_child_run(const struct lr_child_opts *o, struct lr_child *c);

/*
 * How it ended, in one vocabulary: "cannot execute 'CMD': REASON", "cancelled
 * by SIGNAL", "cancelled", "timed out after N s", "killed by signal N (NAME)",
 * "exited with status N"; NULL when it exited 0 (or the text does not fit in
 * memory, then "failed"). Malloc'd.
 */
char *lr_child_failure(const struct lr_child *c, const char *cmd, double timeout_s);

/*
 * The status 'labrun record' exits with for it (base/exit.h): its own exit
 * status, 128+N for signal N, LR_EXIT_TIMEOUT, LR_EXIT_NOTFOUND or
 * LR_EXIT_NOEXEC.
 */
int lr_child_exit_status(const struct lr_child *c);

#endif
