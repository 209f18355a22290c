#ifndef LR_EXPERIMENT_DESIGN_H
#define LR_EXPERIMENT_DESIGN_H

/* The paired design of docs/method.md, apart from running anything. */

#include <stdint.h>

#include "experiment/expdef.h"
#include "experiment/runner.h"
#include "store/experiments.h"

/*
 * The order of the arms' 2k slots in block b (order[0..2k)): the arms
 * forward then reversed (ABBA), starting reversed on odd blocks, or, for
 * 'order = random', a permutation drawn from *rng and mirrored.
 */
void lr_design_block_order(const struct lr_expdef *d, int b, uint64_t *rng, int *order);

/*
 * Fill c's summaries (timed blocks, medians, drift, paired estimates against
 * the first arm) from its n repetitions: of values[i] when given (a command
 * experiment's metric), else of the time per inner-loop call.
 */
void lr_design_summarise(const struct lr_expdef *d, struct lr_run_condition *c, const struct lr_store_rep *reps,
			 const double *values, int n);

#endif
