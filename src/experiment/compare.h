#ifndef LR_COMPARE_H
#define LR_COMPARE_H

/*
 * Comparing two runs without running anything: what drifted between them
 * (sources, binding, geometry, host, tool versions), and for experiment
 * runs whether each condition's outputs are the same and how their timings
 * compare. 'labrun diff' prints it; replay records it. Nothing here prints.
 */

#include "base/error.h"
#include "base/model.h"
#include "base/sha256.h"
#include "base/stats.h"
#include "experiment/expdef.h"
#include "store/store.h"

/* Called once per difference: what ("source", "binding"...), the key, and both values ("-" if absent). */
typedef void (*lr_drift_fn)(void *arg, const char *what, const char *key, const char *a, const char *b);

/* Report every difference between runs a and b through 'fn'; returns how many there were. */
int lr_run_drift(const struct lr_run *a, const struct lr_run *b, lr_drift_fn fn, void *arg);

struct lr_cond_compare {
	int condition;
	int outputs_match;                               /* every arm's output hash is equal in both runs */
	int first_arm;                                   /* the first arm whose hashes differ, -1 when they match */
	char a_sha[LR_SHA256_HEX], b_sha[LR_SHA256_HEX]; /* that arm's hashes ("none"), "" when they match */
	struct lr_paired timing;                         /* baseline arm, run b against run a, block by block */
	int has_timing;
};

/*
 * Compare two experiment runs of the same definition shape (ncond
 * conditions, narm arms) condition by condition. out[] has ncond entries.
 * The timing ratio pairs block i of run a with block i of run b (arm 0),
 * which assumes comparable blocks, as a replay of the same definition has.
 */
LR_MUST_CHECK int lr_experiment_compare(struct lr_store *st, int64_t a, int64_t b, int ncond, int narm,
					struct lr_cond_compare *out);

struct lr_drift {
	const char *what; /* static: "source", "binding", ... */
	char *key, *a, *b;
};

/* Everything 'labrun diff' says about two runs. */
struct lr_comparison {
	struct lr_drift *drift;
	size_t ndrift, capdrift;
	int experiments; /* both are experiment runs: what follows is filled */
	int comparable;  /* their definitions have the same conditions and arms */
	char a_definition[LR_SHA256_HEX], b_definition[LR_SHA256_HEX]; /* sha256 of each definition */
	char baseline[32];                                             /* the first arm's name */
	char (*arm_names)[32];
	int ncond;
	struct lr_exp_condition *where; /* per condition: model, layers, tokens */
	struct lr_cond_compare *cond;   /* per condition: outputs and timing */
	int outputs_match;              /* every condition's outputs match (1 for runs that are not experiments) */
	int rc;                         /* internal: an error while collecting drift */
};

/* Compare run b against run a. Release 'cmp' with lr_comparison_release() either way. */
LR_MUST_CHECK int lr_compare_runs(struct lr_store *st, const struct lr_run *a, const struct lr_run *b,
				  struct lr_comparison *cmp);
void lr_comparison_release(struct lr_comparison *cmp);

#endif
