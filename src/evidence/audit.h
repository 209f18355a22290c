#ifndef LR_AUDIT_H
#define LR_AUDIT_H

/*
 * Audit: recompute, from raw rows and files only, what a run's evidence
 * claims: every artifact's hash, the run's seal (which names any table
 * whose rows changed after the run was final), parity consistency and the
 * recomputability of the summaries of experiment runs, and the binding and
 * geometry a replay shares with its original. Nothing here prints.
 */

#include <stdint.h>

#include "store/store.h"

/* Called for every discrepancy, with the run and a sentence naming the cause. */
typedef void (*lr_audit_fn)(void *arg, int64_t run, const char *problem);

/* Audit one run; *problems is increased by the discrepancies found; *checked counts the artifacts hashed. */
int lr_audit_run(struct lr_store *st, int64_t run, lr_audit_fn fn, void *arg, int *problems, int *checked);

#endif
