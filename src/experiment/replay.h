#ifndef LR_REPLAY_H
#define LR_REPLAY_H

/*
 * Comparing two runs: what drifted between them (sources, binding,
 * geometry, host, tool versions), and for experiment runs whether each
 * condition's outputs are the same and how their timings compare. Replay
 * re-executes a run from what the store holds and compares the two.
 * Nothing here prints.
 */

#include "base/model.h"
#include "base/stats.h"
#include "store/store.h"

/* Called once per difference: what ("source", "binding"...), the key, and both values ("-" if absent). */
typedef void (*lr_drift_fn)(void *arg, const char *what, const char *key, const char *a, const char *b);

/* Report every difference between runs a and b through 'fn'; returns how many there were. */
int lr_run_drift(const struct lr_run *a, const struct lr_run *b, lr_drift_fn fn, void *arg);

struct lr_cond_compare {
	int condition;
	int outputs_match;	/* every arm's output hash is equal in both runs */
	int first_arm;		/* the first arm whose hashes differ, -1 when they match */
	char a_sha[65], b_sha[65];
	struct lr_paired timing;	/* baseline arm, run b against run a, block by block */
	int has_timing;
};

/*
 * Compare two experiment runs of the same definition shape (ncond
 * conditions, narm arms) condition by condition. out[] has ncond entries.
 * The timing ratio pairs block i of run a with block i of run b (arm 0),
 * which assumes comparable blocks, as a replay of the same definition has.
 */
int lr_experiment_compare(struct lr_store *st, int64_t a, int64_t b, int ncond, int narm,
			  struct lr_cond_compare *out);

/* A record run's command line back from its argv JSON (NULL-terminated, malloc'd; lr_argv_free). */
char **lr_argv_from_json(const char *json);
void lr_argv_free(char **argv);

#endif
