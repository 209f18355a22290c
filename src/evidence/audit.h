#ifndef LR_AUDIT_H
#define LR_AUDIT_H

/*
 * Audit: recompute, from raw rows and files only, what a run's evidence
 * claims: every artifact's hash, the run's seal (which names any table
 * whose rows changed after the run was final), parity consistency and the
 * recomputability of the summaries of experiment runs, and the binding and
 * geometry a replay shares with its original. Nothing here prints.
 */

#include "base/error.h"
#include <stdint.h>

#include "store/ledger.h"
#include "store/store.h"

#include <jansson.h>

/* Called for every discrepancy, with the run and a sentence naming the cause. */
typedef void (*lr_audit_fn)(void *arg, int64_t run, const char *problem);

/* Audit one run; *problems is increased by the discrepancies found; *checked counts the artifacts hashed. */
LR_MUST_CHECK int lr_audit_run(struct lr_store *st, int64_t run, lr_audit_fn fn, void *arg, int *problems,
			       int *checked);

/*
 * Audit runs ids[0..n) on every CPU this process may use, each worker on a
 * connection of its own; fn hears each run's problems in run order, as from
 * lr_audit_run one run after another, and the first error (in run order) is
 * returned. The seal digests the workers computed are given to st for the
 * ledger walk that follows. Then each pulled run of ids that came unsigned
 * from a host whose runs came signed before it is a problem
 * (lr_store_pulled_unsigned).
 */
LR_MUST_CHECK int lr_audit_runs(struct lr_store *st, const int64_t *ids, int n, lr_audit_fn fn, void *arg,
				int *problems, int *checked);

/* A head published earlier: "SEQ:DIGEST" parsed. */
struct lr_published_head {
	int64_t seq;
	char digest[LR_SHA256_HEX];
};

/*
 * The ledger's problems as audit counts them (evidence/audit-head.c): an
 * lr_ledger_fn whose 'arg' is a struct lr_audit_ctx: each problem counted in
 * *problems and given to 'fn' with run 0. Returns 0.
 */
struct lr_audit_ctx {
	lr_audit_fn fn;
	void *arg;
	int *problems;
};
int lr_audit_problem(void *arg, int64_t seq, const char *run_uuid, const char *text);

/* Parse "SEQ:DIGEST" (DIGEST 64 lowercase hex); LR_EINVAL with a hint otherwise. */
LR_MUST_CHECK int lr_head_parse(const char *text, struct lr_published_head *h);

/*
 * Audit the ledger (lr_store_ledger_check; runs' contents only those of
 * only[0..nonly) when 'only' is not NULL): 'fn' gets each problem with run 0. With 'published', also prove the store still extends that head: its
 * entry must be there with that digest (else the ledger before it was
 * truncated or rewritten); entries appended after it go to 'later' (not
 * problems: amendments and new runs, named so a reader sees them).
 * *head gets the newest entry.
 */
LR_MUST_CHECK int lr_audit_ledger(struct lr_store *st, const int64_t *only, int nonly,
				  const struct lr_ledger_policy *policy, const struct lr_published_head *published,
				  lr_audit_fn fn, lr_ledger_fn later, void *arg, int *problems,
				  struct lr_ledger_head *head);

/*
 * A signed head (lr_store_head_statement's envelope) from the file 'path':
 * the envelope itself ('report -o FILE' writes it to FILE.head.json, a crate
 * holds it as ledger-head.intoto.json), a JSON report (its
 * ledger_head.statement) or a Markdown report written before the head went
 * beside it (its "signed ledger head" block). *env is new; LR_EINVAL, with a
 * hint naming the file to give instead, when 'path' holds none.
 */
LR_MUST_CHECK int lr_head_load(const char *path, json_t **env);

/*
 * Prove store 'st' still extends the signed head 'env': its signature must
 * verify with a key of 't', it must be this store's, and every entry it
 * lists must be in the ledger unchanged at its place; each run whose entry
 * was changed, deleted or moved is a problem of its own ('fn', run 0).
 * Entries after the head go to 'later'. *seq gets the head's sequence.
 */
LR_MUST_CHECK int lr_audit_signed_head(struct lr_store *st, const json_t *env, const struct lr_trust *t, lr_audit_fn fn,
				       lr_ledger_fn later, void *arg, int *problems, int64_t *seq);

/*
 * What the user's configuration 't' says of store 'st': the policy its
 * ledger is held to (the trusted keys; signed from the sequence the user's
 * configuration remembers for its id, else for its path), and *known, the
 * line that said it (NULL: the configuration does not know the store).
 * A store known by its path under another id is a problem ('fn', run 0):
 * its identity was rewritten.
 */
struct lr_trust;
struct lr_known_store;
LR_MUST_CHECK int lr_audit_policy(struct lr_store *st, const struct lr_trust *t, struct lr_ledger_policy *policy,
				  const struct lr_known_store **known, lr_audit_fn fn, void *arg, int *problems);

#endif
