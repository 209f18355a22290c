#ifndef LR_STORE_DESIGNREG_H
#define LR_STORE_DESIGNREG_H

/*
 * Pre-registered designs (store/designreg.c): an experiment run's design
 * digest, its 'design' ledger entry written before the first timed block,
 * the design head it wrote, and the earlier run of the same experiment
 * whose registered design it is compared with.
 */

#include "base/list.h"
#include "base/sha256.h"
#include "store/store.h"

/*
 * Run 'id''s design digest, computed from its rows now (docs/schema.md,
 * "Design entries"): each part (a query of the run's design rows, without
 * its ids) hashed as a seal hashes a table, then the sha256 of the compact,
 * key-sorted JSON of the parts. 'parts' (may be NULL) gets part -> digest.
 */
LR_MUST_CHECK int lr_store_design_digest(struct lr_store *st, int64_t id, char digest[LR_SHA256_HEX],
					 struct lr_kvlist *parts);

/*
 * Register run 'id''s stored design: in one write transaction, the sha256
 * of the case set a serving experiment sends (run_digest 'serving_cases',
 * when cases_sha256 is not NULL), then a 'design' ledger entry holding the
 * design digest, signed when the store has a signer. *seq gets its number.
 * Call after the plan is stored and before the first timed block.
 */
LR_MUST_CHECK int lr_store_design_register(struct lr_store *st, int64_t id, const char *cases_sha256, int64_t *seq);

/* Record that run 'id' wrote its design head (ledger entry 'seq') to 'path', sha256 'sha256', now. */
LR_MUST_CHECK int lr_store_design_head_add(struct lr_store *st, int64_t id, const char *path, const char *sha256,
					   int64_t seq);

/* A run's registered design, as its report cites it. */
struct lr_design_reg {
	int64_t seq;                     /* its design entry in the ledger that recorded it; 0: none */
	char digest[LR_SHA256_HEX];      /* the entry's digest */
	char content[LR_SHA256_HEX];     /* the design digest it registered */
	char appended_at[40];            /* when */
	int is_signed;                   /* 1: the entry is signed */
	int64_t head_seq;                /* its design head's entry; 0: it wrote none */
	char head_path[1024];            /* where it wrote the head, as given */
	char head_sha256[LR_SHA256_HEX]; /* of the head it wrote */
	char head_at[40];                /* when it was written and fsynced */
};

/*
 * Run 'id''s design entry: from this store's ledger, or for a run pulled
 * from another store from the ledger entries of the bundle it came in (the
 * entry of the store that ran it), and the design head it wrote. out->seq is
 * 0 for a run that registered none.
 */
LR_MUST_CHECK int lr_store_design_reg(struct lr_store *st, int64_t id, struct lr_design_reg *out);

/*
 * The newest run of the same experiment (run_design.name) that started
 * before run 'id' and registered its design, in *earlier (0: none).
 */
LR_MUST_CHECK int lr_store_design_earlier(struct lr_store *st, int64_t id, int64_t *earlier);

#endif
