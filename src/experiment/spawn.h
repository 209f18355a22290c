#ifndef LR_SPAWN_H
#define LR_SPAWN_H

#include "base/child.h"
#include "base/error.h"

/*
 * Run argv (argv[0] looked up in PATH) in directory 'dir', stdin and stderr
 * on /dev/null, stdout into *out (malloc'd; NULL: discarded), to its end;
 * *c says how it ended, with its rusage. 0 whenever it ran or could not be
 * started (c->exec_errno); an error only when it could not be run at all.
 */
LR_MUST_CHECK int lr_bench_run(char *const *argv, char *const *envp, const char *dir, char **out, struct lr_child *c);

/*
 * lr_bench_run, and an error unless argv ran and exited 0: LR_EIO "WHAT
 * failed: why" ('what' names it as the reader knows it), *out freed then.
 */
LR_MUST_CHECK int lr_bench_run_ok(const char *what, char *const *argv, char *const *envp, const char *dir, char **out,
				  struct lr_child *c);

/*
 * Run labrun 'self' with argv (argv[0] is 'self', argv[1..2] "--store DIR" when given,
 * argv[3] the command) in directory 'dir' (base/child.h), stderr discarded, stdout into *out (malloc'd)
 * or discarded when out is NULL; *s its wall seconds; *rss_kib (unless
 * NULL) its peak resident set size. LR_EIO, naming the command, unless it
 * exits 0.
 */
LR_MUST_CHECK int lr_bench_spawn(const char *self, char *const *argv, char *const *envp, const char *dir, char **out,
				 double *s, long *rss_kib);

#endif
