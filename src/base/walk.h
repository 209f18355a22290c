#ifndef LR_WALK_H
#define LR_WALK_H

#include "base/error.h"

/*
 * Call 'fn' for each regular file at or below 'path' (symlinks followed),
 * in name order. 'rel' is the path relative to 'path' ("" for a file).
 * A non-zero return from 'fn' stops the walk and is returned; an unreadable
 * entry or a directory cycle is LR_EIO.
 */
typedef int (*lr_file_fn)(void *arg, const char *full, const char *rel);
LR_MUST_CHECK int lr_walk_files(const char *path, lr_file_fn fn, void *arg);

#endif
