#ifndef LR_SYNC_H
#define LR_SYNC_H

/*
 * Push and pull: final runs from a store to a remote and back, each run in
 * one transaction on the side it arrives at, its objects first (docs/remote.md).
 * Nothing here prints: 'note' hears what happened to each run.
 */

#include "base/error.h"
#include <stdint.h>

#include "store/remote.h"
#include "store/store.h"

/* What happened to one run (uuid "" for a run skipped before its uuid was read); detail says why it was refused or skipped. */
typedef void (*lr_sync_fn)(void *arg, const char *uuid, enum lr_sync_event what, const char *detail);

/*
 * Push runs ids[0..n) to 'r'. Runs still running are skipped; a run the
 * remote holds with other content is refused and the others go on (the
 * result is then LR_EREFUSED); any other error stops the push, whatever was
 * committed staying on the remote.
 */
LR_MUST_CHECK int lr_push(struct lr_store *st, struct lr_remote *r, const int64_t *ids, int n, lr_sync_fn note,
			  void *arg, struct lr_sync_stats *stats);

/*
 * Pull the runs of remote 'name' (connected as 'r') matching 'f' into the
 * store, with the runs they point at; objects now, or with 'lazy' on first
 * read. A run already here with the same bundle is left alone; with other
 * content it is refused (LR_EREFUSED at the end), and so is a run with a
 * ledger entry signed by a key 'trust' does not hold (unsigned entries are
 * taken: the origin store is not known here).
 */
struct lr_trust;
LR_MUST_CHECK int lr_pull(struct lr_store *st, struct lr_remote *r, const char *name, const struct lr_remote_filter *f,
			  const struct lr_trust *trust, int lazy, lr_sync_fn note, void *arg,
			  struct lr_sync_stats *stats);

#endif
