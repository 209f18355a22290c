#ifndef LR_WALK_H
#define LR_WALK_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/*
 * Call 'fn' for each regular file at or below 'path' (symlinks followed),
 * in name order. 'rel' is the path relative to 'path' ("" for a file).
 * A non-zero return from 'fn' stops the walk and is returned; an unreadable
 * entry or a directory cycle is LR_EIO; a FIFO, socket or device LR_EREFUSED.
 */
typedef int (*lr_file_fn)(void *arg, const char *full, const char *rel);
LR_MUST_CHECK int lr_walk_files(const char *path, lr_file_fn fn, void *arg);

/* What lr_walk() found at an entry. */
enum lr_walk_type {
	LR_WALK_FILE,      /* a regular file */
	LR_WALK_LINK,      /* a symbolic link (not followed) */
	LR_WALK_SPECIAL,   /* a FIFO, socket or device */
	LR_WALK_EMPTY_DIR, /* a directory with nothing in it */
};
typedef int (*lr_entry_fn)(void *arg, const char *full, const char *rel, enum lr_walk_type type);

/*
 * Like lr_walk_files, but symlinks are not followed (the root included):
 * 'fn' gets every regular file, link, special file and empty directory.
 */
LR_MUST_CHECK int lr_walk(const char *path, lr_entry_fn fn, void *arg);

/*
 * Remove 'path' and everything below it, links not followed: for the
 * temporary directories labrun makes itself. Best effort; 0, or -1 with
 * errno from the first entry that could not go.
 */
int lr_remove_tree(const char *path);

/*
 * Stream the file at 'path' to 'fn' in chunks of up to 64 KiB, in order. A
 * non-zero return from 'fn' stops it and is returned; LR_EIO naming the file
 * when it cannot be read.
 */
typedef int (*lr_chunk_fn)(void *arg, const void *data, size_t len);
LR_MUST_CHECK int lr_read_chunks(const char *path, lr_chunk_fn fn, void *arg);

/*
 * Open 'path' for reading only if it is a regular file (lstat, then opened
 * with O_NOFOLLOW | O_NONBLOCK and the same file checked with fstat): no link
 * is followed, no FIFO or device is opened. *fd is the caller's to close;
 * LR_EREFUSED naming the path when it is anything else, LR_EIO when it
 * cannot be read.
 */
LR_MUST_CHECK int lr_open_regular(const char *path, int *fd);

/*
 * The one way labrun opens a file a user or another host names (a key, a
 * trusted-keys file, a definition, responses, answers, a bundle): links
 * followed, but only a regular file of at most 'max' bytes, opened with
 * O_NONBLOCK and checked with fstat so a FIFO or device never blocks or
 * streams for ever. *fd is the caller's to close. LR_ENOTFOUND when it is not
 * there, LR_EREFUSED for anything but a regular file, LR_EINVAL when larger
 * than 'max', LR_EIO when it cannot be read: each naming 'what' and 'path'.
 * A file that grows after the check is bounded by its reader (lr_lines).
 */
LR_MUST_CHECK int lr_open_input(const char *what, const char *path, size_t max, int *fd);

/* "symbolic link", "directory", "FIFO"...: what a file that is not regular is, for messages */
const char *lr_file_kind(mode_t mode);

/*
 * Whether 'path' may be an output that labrun writes beside it and renames
 * over it (an archive, a report, an encoded array): missing, or a regular
 * file, in a directory that exists. A link (or what it points at), a
 * directory, a device or a FIFO is never replaced: LR_EINVAL naming what it
 * is, with a hint; so is a directory that is not there.
 */
LR_MUST_CHECK int lr_output_replaceable(const char *path);

/* lr_open_input as a stdio stream, the caller's to fclose. */
LR_MUST_CHECK int lr_fopen_input(const char *what, const char *path, size_t max, FILE **f);

/* lr_read_chunks of a file opened with lr_open_regular. */
LR_MUST_CHECK int lr_read_regular_chunks(const char *path, lr_chunk_fn fn, void *arg);

/*
 * mkdir -p of the directory that holds 'path' (not of 'path' itself): each
 * missing directory made with 'mode'. 0, or LR_EIO naming the one that could
 * not be made (LR_ENOMEM).
 */
LR_MUST_CHECK int lr_mkdir_parents(const char *path, unsigned mode);

/*
 * snprintf for a path, which must never be cut: LR_EINVAL naming the start
 * of it when it does not fit in 'size'.
 */
LR_MUST_CHECK int lr_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A new directory "$TMPDIR/NAME-XXXXXX" (else under /tmp), its path in buf:
 * where labrun's scratch directories go. The error names the directory.
 */
LR_MUST_CHECK int lr_temp_dir(char *buf, size_t size, const char *name);

#endif
