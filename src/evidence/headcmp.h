#ifndef LR_HEADCMP_H
#define LR_HEADCMP_H

/*
 * A signed ledger head's entries against a ledger: the store's (audit
 * --head) or the entries a crate carries (verify). Each entry the head
 * lists that the ledger does not hold as signed is named: moved to another
 * place (reordered), changed in place, or gone (deleted). Nothing here
 * prints.
 */

#include <stdint.h>

#include <jansson.h>

#include "base/list.h"
#include "base/strmap.h"
#include "store/ledger.h"

/* A ledger as (seq, run uuid, digest), oldest first; each entry's rank among its run's. Zero-initialise. */
struct lr_head_seen {
	struct lr_kvlist uuid, digest; /* key: the entry's seq in decimal; uuid's tag: its rank (1, 2, ...) */
	struct lr_strmap runs;         /* run uuid -> its entries so far */
};

/* Add entry 'e' to the lr_head_seen 'arg' (an lr_ledger_entry_fn). */
LR_MUST_CHECK int lr_head_seen_add(void *arg, const struct lr_ledger_entry *e);
void lr_head_seen_release(struct lr_head_seen *x);

/* "run 3 (UUID)": how a caller names run 'uuid' in a sentence, into buf. */
typedef void (*lr_head_name_fn)(void *arg, const char *uuid, char *buf, size_t len);
/* One entry of the head, 'seq' of run 'uuid', that the ledger does not hold as signed: 'text' says how. */
typedef void (*lr_head_fn)(void *arg, int64_t seq, const char *uuid, const char *text);

/*
 * Each entry of the signed head's 'entries' (its predicate's) against 'x';
 * 'held_only': only the entries of runs 'x' holds an entry of (a crate
 * carries some of its store's runs). Returns an error only when it cannot
 * look (out of memory).
 */
LR_MUST_CHECK int lr_head_compare(const json_t *entries, const struct lr_head_seen *x, int held_only,
				  lr_head_name_fn name, lr_head_fn fn, void *arg);

#endif
