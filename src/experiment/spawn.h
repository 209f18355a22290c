#ifndef LR_SPAWN_H
#define LR_SPAWN_H

#include "base/error.h"

/*
 * Run labrun 'self' with argv (argv[0] is 'self', argv[1..2] "--store DIR",
 * argv[3] the command) in directory 'dir' (base/child.h), stderr discarded, stdout into *out (malloc'd)
 * or discarded when out is NULL; *s its wall seconds; *rss_kib (unless
 * NULL) its peak resident set size. LR_EIO, naming the command, unless it
 * exits 0.
 */
LR_MUST_CHECK int lr_bench_spawn(const char *self, char *const *argv, char *const *envp, const char *dir, char **out,
				 double *s, long *rss_kib);

#endif
