#ifndef LR_BASE_EXIT_H
#define LR_BASE_EXIT_H

/*
 * labrun's exit statuses, defined once: docs/labrun.md's two tables, the
 * commands' (0 to 4) and those 'labrun record' uses around the command it
 * records (124 to 127; otherwise it exits with the command's own status, and
 * 128+N when a signal N ended it). A command returns one of these, and
 * lr_child (base/child.h) reports a child's end in the same terms.
 */
enum lr_exit {
	LR_EXIT_OK = 0,
	LR_EXIT_FAIL = 1,       /* the operation failed: not found, refused, I/O */
	LR_EXIT_USAGE = 2,      /* unknown option, bad value, missing argument */
	LR_EXIT_STORE = 3,      /* the store (or a remote) cannot be used */
	LR_EXIT_DATA = 4,       /* a data file is malformed: responses, a pass file, keys, tensors */
	LR_EXIT_TIMEOUT = 124,  /* record: --timeout expired */
	LR_EXIT_LABRUN = 125,   /* record: labrun failed around the command */
	LR_EXIT_NOEXEC = 126,   /* record: the command was found but could not run */
	LR_EXIT_NOTFOUND = 127, /* record: the command was not found */
};

#endif
