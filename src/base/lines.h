#ifndef LR_LINES_H
#define LR_LINES_H

/*
 * Reading files from outside labrun with a bound: one line at a time (JSON
 * lines from a harness, an answer key, a command's metrics), or a whole file
 * that must fit in memory. One unterminated line (a link to /dev/zero) must
 * not take all the memory there is.
 */

#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"

#define LR_LINE_MAX       ((size_t)64 << 20) /* a JSON line: 64 MiB, a response of a million tokens */
#define LR_LINES_FILE_MAX ((size_t)1 << 30)  /* a file of JSON lines (answers, cases, metrics): 1 GiB */

struct lr_lines {
	FILE *f;
	const char *what, *path; /* for errors: "responses", the file (borrowed) */
	size_t max;              /* longest line taken, its newline not counted */
	char *buf;
	size_t cap, start, end; /* buf[start, end) is read and not yet returned */
	long long line;         /* the number of the line last returned, from 1 */
	int eof, held;
	char hold; /* the byte a returned line's NUL stands on */
};

/*
 * Open 'path' for lr_lines_next, lines of at most 'max' bytes, the file of at
 * most 'file_max' (lr_open_input: a regular file, never a FIFO or device);
 * LR_EINVAL "cannot read WHAT 'PATH': why" when it is not there or cannot be
 * read, LR_EREFUSED when it is not a regular file, LR_EINVAL when too large.
 */
LR_MUST_CHECK int lr_lines_open(struct lr_lines *l, const char *what, const char *path, size_t max, size_t file_max);

/*
 * The next line in *line (its newline, if any, included; NUL-terminated in
 * place, valid until the next call), its length in *len. 1 for a line, 0 at
 * the end; LR_EINVAL "PATH:N: the line is longer than MAX" for a longer one,
 * LR_EIO when the file cannot be read.
 */
LR_MUST_CHECK int lr_lines_next(struct lr_lines *l, char **line, size_t *len);
void lr_lines_close(struct lr_lines *l);

/*
 * The whole file at 'path' (NUL-terminated, malloc'd) and its length, when it
 * is at most 'max' bytes; otherwise LR_EINVAL naming the file and the bound.
 * LR_EINVAL as lr_lines_open when it cannot be opened, LR_EIO when not read.
 */
LR_MUST_CHECK int lr_read_text(const char *what, const char *path, size_t max, char **text, size_t *len);

/* The same for a regular file only, no link followed (lr_open_regular): what a crate's reader opens. */
LR_MUST_CHECK int lr_read_regular_text(const char *what, const char *path, size_t max, char **text, size_t *len);

#endif
