#ifndef LR_SYNTHETIC_H
#define LR_SYNTHETIC_H

/*
 * Synthetic experiment runs, for measuring the store itself ('labrun bench
 * store'): stored as 'labrun run' stores a run, sealed and chained, tagged
 * with issue 270 and the binding 'synthetic', with 'reps' repetitions whose
 * times come from 'seed' (arm "arithmetic" about 0.8x arm "lookup"), and,
 * when 'object_bytes' > 0, an output artifact of that many pseudo-random
 * bytes ('labrun bench remote' moves them). Never
 * written into a store that holds evidence: the benchmark makes its own.
 */

#include "base/error.h"
#include <stdint.h>

#include "store/store.h"

LR_MUST_CHECK int lr_synthetic_run(struct lr_store *st, int64_t reps, int64_t object_bytes, uint64_t seed,
				   char *const *argv, char *const *envp, int64_t *id);

#endif
