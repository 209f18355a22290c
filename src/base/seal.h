#ifndef LR_SEAL_H
#define LR_SEAL_H

/*
 * The seal hash policy: how a run's rows become one digest. The store reads
 * the rows; this file alone decides how they are hashed, so a reader can
 * check a seal against this description:
 *
 *  - each table's rows, in the store's fixed order, feed one sha256: every
 *    value as a type byte (the values of enum lr_seal_type), then integers and
 *    reals as their 8-byte little-endian binary value (text forms of doubles
 *    differ between SQLite builds), text and blobs as their bytes, nothing for
 *    NULL, then 0x1f; every row ends with 0x1e;
 *  - the run's seal is the sha256 of the compact, key-sorted JSON object
 *    {"table": "hex digest", ...}, which is stored beside it.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "base/sha256.h"

/* Type bytes; the same numbers as SQLite's fundamental types. */
enum lr_seal_type {
	LR_SEAL_INTEGER = 1,
	LR_SEAL_FLOAT = 2,
	LR_SEAL_TEXT = 3,
	LR_SEAL_BLOB = 4,
	LR_SEAL_NULL = 5,
};

struct lr_seal_table {
	struct lr_sha256 h;
	size_t n;                /* bytes waiting in buf */
	unsigned char buf[4096]; /* values are small: hashed a buffer at a time, not a value at a time */
};

LR_MUST_CHECK int lr_seal_table_init(struct lr_seal_table *t);
void lr_seal_int(struct lr_seal_table *t, int64_t v);
void lr_seal_real(struct lr_seal_table *t, double v);
/* Text or blob bytes (type LR_SEAL_TEXT or LR_SEAL_BLOB). */
void lr_seal_bytes(struct lr_seal_table *t, enum lr_seal_type type, const void *p, size_t len);
void lr_seal_null(struct lr_seal_table *t);
void lr_seal_row_end(struct lr_seal_table *t);
/* The table's digest as hex. */
void lr_seal_table_final(struct lr_seal_table *t, char hex[LR_SHA256_HEX]);

/* The seal of table -> digest pairs: the JSON text (malloc'd) and its sha256. */
LR_MUST_CHECK int lr_seal_digest(const struct lr_kvlist *tables, char **json, char digest[LR_SHA256_HEX]);

/*
 * The seal digest of 'now' as the stored seal (its JSON) was written: a
 * table newer than that seal and still empty for the run was not part of
 * it, so it is left out; every other table counts. With stored NULL (no
 * seal yet), lr_seal_digest's.
 */
LR_MUST_CHECK int lr_seal_digest_as_sealed(const struct lr_kvlist *now, const char *stored, char digest[LR_SHA256_HEX]);

/*
 * Compare a stored seal's JSON with the digests computed now: 'changed' is
 * called with every table whose digest differs, or is missing from the seal
 * while it now has rows (a seal written before a table existed covers it
 * as empty), or with "run_seal" when the stored JSON cannot be read. Returns the first non-zero
 * result of 'changed', else 0.
 */
/*
 * The digest of ledger entry 'seq': the sha256 of the text
 * "labrun-ledger-1\nSEQ\nRUN_UUID\nKIND\nCONTENT\nPREV\n" (SEQ in decimal,
 * the digests in lowercase hex). Entry 1's PREV is 64 zeros.
 */
LR_MUST_CHECK int lr_ledger_digest(int64_t seq, const char *run_uuid, const char *kind, const char *content,
				   const char *prev, char digest[LR_SHA256_HEX]);
#define LR_LEDGER_GENESIS "0000000000000000000000000000000000000000000000000000000000000000"

LR_MUST_CHECK int lr_seal_compare(const char *stored, const struct lr_kvlist *now,
				  int (*changed)(void *arg, const char *table), void *arg);

#endif
