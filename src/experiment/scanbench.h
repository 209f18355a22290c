#ifndef LR_SCANBENCH_H
#define LR_SCANBENCH_H

/*
 * 'labrun bench scan': the sensitive-content scan on its worst case, one
 * line of o->bytes bytes without a blank (lower-case letters and digits, so
 * no rule matches it by itself) ending in a GitHub-token-shaped string made
 * up at run time ('ghp_' and 36 pseudo-random letters and digits), written
 * once into a scratch directory, so warm in the page cache. Checked before
 * anything is timed: 'labrun scan' of the same line without the token finds
 * nothing. Each repetition then runs, who goes first swapping every time,
 * the peers (cat of the file to /dev/null, a plain read; grep -c of the
 * token's regex, a linear-time scan) and labrun ('labrun scan FILE';
 * 'labrun manifest' of a run, recorded once before, whose stdout is the
 * line: refused for the finding, and with --allow-findings writing the
 * crate, each into a fresh directory). Each labrun command must find the
 * token every time, or the benchmark fails. Wall time of every process; the
 * first repetition is dropped as warm-up.
 */

#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_SCANBENCH_MAXREPS 51
#define LR_SCANBENCH_TOKEN   40 /* 'ghp_' and 36 characters */

struct lr_scanbench_opts {
	int64_t bytes; /* the line's, the token included, its newline not */
	int reps;
	const char *dir, *self; /* the scratch directory's parent; the labrun executable */
	char *const *argv, *const *envp;
	char grep[128]; /* the first line of 'grep --version' (lr_scanbench_peer) */
};

/* Whether grep runs, its version into o->grep: LR_EINVAL saying why not, before anything is stored. */
LR_MUST_CHECK int lr_scanbench_peer(struct lr_scanbench_opts *o);

/*
 * Its samples (benchjob.h), subject "line": 'file' (the line's size, in B)
 * once, and 'scan', 'manifest refused', 'manifest written', 'grep' and 'cat'
 * at every repetition, in seconds.
 */
extern const struct lr_bench_ops lr_scanbench_ops;

#endif
