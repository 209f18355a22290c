#ifndef LR_STORE_SEALFEED_H
#define LR_STORE_SEALFEED_H

/*
 * A run's rows into seal digests (store/sealfeed.c), read from the store or
 * fed by the writer as it inserts them: a run already sealed is sealed again
 * when serving evidence is added, and reading back the rows just written to
 * hash them was a fifth of ingest's CPU. A fed row must be the row as
 * stored (base/seal.h's encoding of what sqlite3_column_* gives back), in
 * the seal's row order.
 */

#include "base/seal.h"
#include "store/serving.h"
#include "store/store-int.h"

/* Whether run 'run' is final (*final 1) or still running (0) (seals.c). */
LR_MUST_CHECK int db_run_final(struct lr_store *st, int64_t run, int64_t *final);

/*
 * When run 'run' is final, a digest of its sealed table 'table' started on
 * the rows it has now, malloc'd in *t, for the writer to feed the rows it
 * adds after them; *t NULL for a running run. Inside the write transaction
 * that adds the rows (seals.c).
 */
LR_MUST_CHECK int db_seal_start(struct lr_store *st, int64_t run, const char *table, struct lr_seal_table **t);

/* Give up a digest db_seal_start made, finished or not (its hash state freed too); NULL is fine. */
void db_seal_drop(struct lr_seal_table *t);

/*
 * Feed the rows of sealed table 'q' (db_seal_queries) of run 'id' into 't',
 * in the order and with the values its query gives.
 */
LR_MUST_CHECK int db_seal_feed_table(struct lr_store *st, const struct db_seal_query *q, int64_t id,
				     struct lr_seal_table *t);

/*
 * Feed the response row of set 'set' that lr_store_set_add stores for 'r'.
 * The seal reads a set's rows by case_id: non-zero (nothing fed) when
 * r->case_id does not follow the case fed last, kept in *last (malloc'd,
 * *cap its size; the caller frees it); the caller then reads the rows back.
 */
int db_seal_response(struct lr_seal_table *t, int64_t set, const struct lr_response *r, char **last, size_t *cap);

/* Feed the comparison_case row of comparison 'id' stored for 'case_id', 'missing' the side's name or NULL. */
void db_seal_compared(struct lr_seal_table *t, int64_t id, const char *case_id, const char *missing,
		      const struct lr_case_outcome *o);

#endif
