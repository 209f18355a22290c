#ifndef LR_COMMAND_H
#define LR_COMMAND_H

/*
 * The executions of a command experiment (target = command): one arm's
 * command, its placeholders expanded, run without a shell in a fresh
 * {outdir}, with its exit status, wall/user/sys time, peak RSS, stdout and
 * stderr (secret values scrubbed), declared outputs (hashed for parity),
 * metrics ($LABRUN_METRICS) and responses (ingested under the arm's route)
 * recorded. A failing execution is described, never an error: errors are
 * what stops the whole run (the store failing, out of memory).
 * Nothing here prints.
 */

#include "base/error.h"
#include <stdatomic.h>
#include <limits.h>

#include "base/model.h"
#include "experiment/expdef.h"
#include "record/redact.h"
#include "store/experiments.h"
#include "store/store.h"

struct lr_command_ctx {
	const struct lr_expdef *d;
	struct lr_store *st;
	int64_t run;
	int cond;
	struct lr_kvlist params;       /* the condition's grid values */
	char scratch[PATH_MAX];        /* this condition's temporary directory */
	char *const *envp;             /* the environment executions start from */
	struct lr_scrub scrub;         /* its secret values: kept out of everything stored */
	atomic_int *cancel;            /* set asynchronously: stop the running command */
	char reference[LR_SHA256_HEX]; /* digest of the 'reference' files, "" when none */
	struct lr_store_exec *execs;   /* every execution so far, in order */
	int nexecs;
	size_t cap;
};

/* Prepare a condition: its grid values (params, the plan's; copied), a scratch directory, the reference digest. */
LR_MUST_CHECK int lr_command_setup(struct lr_command_ctx *c, const struct lr_expdef *d, struct lr_store *st,
				   int64_t run, int cond, const struct lr_kvlist *params, char *const *envp,
				   atomic_int *cancel);

/*
 * Run arm 'arm' once, as the next execution of the condition (block and slot
 * -1 for the untimed parity execution). *out points at its record in
 * c->execs (valid until the next call); (*out)->failure says why it failed.
 */
LR_MUST_CHECK int lr_command_exec(struct lr_command_ctx *c, int arm, int block, int slot, struct lr_store_exec **out);

/*
 * The value an execution is compared by: metric 'name' from $LABRUN_METRICS,
 * or the wall time when name is "" (lower is better). 0 when the execution
 * did not report it.
 */
LR_MUST_CHECK int lr_command_value(const struct lr_store_exec *e, const char *name, double *value, int *higher);

/* Within-route parity: each later response set of an arm's route against its first, in this condition. */
LR_MUST_CHECK int lr_command_compare_routes(struct lr_command_ctx *c);

/* Remove the scratch directory and free the executions. */
void lr_command_teardown(struct lr_command_ctx *c);

/*
 * Condition ci of a command experiment (cmd set up for it): parity
 * executions, one per arm, their outputs compared; then the blocks in the
 * design's order, every execution kept. *reps_out (n of them, malloc'd, the
 * caller frees) and c's summaries are filled; a failed execution fails c, a
 * cancel (o->cancel) sets *cancelled and keeps what was measured. Returns 0
 * or an error.
 */
struct lr_runopts;
struct lr_run_condition;
LR_MUST_CHECK int lr_command_condition(struct lr_command_ctx *cmd, const struct lr_expdef *d,
				       const struct lr_runopts *o, int ci, struct lr_run_condition *c,
				       struct lr_store_rep **reps_out, int *nreps_out, int *cancelled);

#endif
