#ifndef LR_STORE_LEDGER_H
#define LR_STORE_LEDGER_H

/* Seals, the hash-chained ledger, its signatures and its signed head (store/seals.c, store/ledger.c, store/head.c). */

#include "store/store.h"

/*
 * Recompute run 'id's seal and call 'changed' with the name of every table
 * whose rows differ from the sealed digest. *sealed is 0 for a run that was
 * never sealed (still running, or recorded before seals existed).
 */
LR_MUST_CHECK int lr_store_seal_check(struct lr_store *st, int64_t id, lr_str_fn changed, void *arg, int *sealed);

/*
 * The seal checks of several connections to one store, for the ledger walk
 * of one: lr_store_write_stamp says what a connection has seen written (two
 * equal stamps: nothing was written between them, by it or another), and
 * lr_store_seal_memo_adopt gives 'to' the run digests 'from' computed,
 * unless 'to' has seen a write since 'stamp'. Neither connection may be in
 * use on another thread meanwhile.
 */
int64_t lr_store_write_stamp(struct lr_store *st);
void lr_store_seal_memo_adopt(struct lr_store *to, struct lr_store *from, int64_t stamp);

/* The newest ledger entry: what a report or comment publishes as SEQ:DIGEST. */
struct lr_ledger_head {
	int64_t seq; /* 0: the ledger is empty */
	char digest[LR_SHA256_HEX];
	int64_t signed_entries;  /* lr_store_ledger_check: entries whose signature verified */
	int64_t trusted_entries; /* ... and whose key is trusted */
	char newest_at[40];      /* when the newest entry was appended (ISO 8601, UTC) */
};

/*
 * What lr_store_ledger_check holds signatures to: with 'trust', a signed
 * entry must be signed by one of its keys (with the public key the trust
 * gives, when it gives one), and from entry 'signed_from' on (0: none)
 * every entry must be signed so.
 */
struct lr_trust;
struct lr_ledger_policy {
	const struct lr_trust *trust;
	int64_t signed_from;
};
typedef int (*lr_ledger_fn)(void *arg, int64_t seq, const char *run_uuid, const char *text);

/*
 * The objects a run holds beyond its artifacts (command experiments and
 * serving evidence): each execution's stdout and stderr, its declared
 * outputs, each ingested responses file and each answer key a gate used.
 * 'fn' gets a relative name for it (not yet a safe member name: it holds
 * routes and declared paths as stored), its sha256 and whether it is an
 * input (an answer key) rather than a result.
 */
typedef int (*lr_run_object_fn)(void *arg, const char *name, const char *sha256, int input);
LR_MUST_CHECK int lr_store_run_evidence_objects(struct lr_store *st, int64_t id, lr_run_object_fn fn, void *arg);

/* Sign every ledger entry appended from now on with 'signer', which the store now owns. */
struct lr_signer;
void lr_store_set_signer(struct lr_store *st, struct lr_signer *signer);

/* The signer set on the store, or NULL (borrowed: lives as long as the store). */
const struct lr_signer *lr_store_signer(const struct lr_store *st);

/*
 * Called inside the write transaction before ledger entry 'seq' is signed:
 * a non-zero return refuses the append (and so the whole transaction).
 */
typedef int (*lr_sign_hook_fn)(void *arg, struct lr_store *st, int64_t seq);
void lr_store_set_sign_hook(struct lr_store *st, lr_sign_hook_fn fn, void *arg);

/*
 * Refuse every unsigned ledger append from now on (no signer set): it fails
 * with LR_EREFUSED, message 'why' and hint 'hint' (copied). For a key that
 * is configured but unusable, and for a store known to be signed.
 */
LR_MUST_CHECK int lr_store_refuse_unsigned(struct lr_store *st, const char *why, const char *hint);

/* The store's id (migration 17: random, given when the store was created). */
#define LR_STORE_ID_LEN 33
LR_MUST_CHECK int lr_store_id(struct lr_store *st, char id[LR_STORE_ID_LEN]);

/*
 * Each key that signed entries: its fingerprint, the entries' numbers and
 * their runs' ids (each once, "N deleted" for runs no longer here), as
 * space-separated ranges: "1-4 7".
 */
typedef int (*lr_signing_key_fn)(void *arg, const char *fingerprint, const char *entries, const char *runs);
LR_MUST_CHECK int lr_store_signing_keys(struct lr_store *st, lr_signing_key_fn fn, void *arg);

/* A ledger entry as stored, with the public key of its signer (NULL fields: unsigned). */
struct lr_ledger_entry {
	int64_t seq;
	const char *run_uuid, *kind, *content, *prev, *digest, *appended_at;
	const char *key_fingerprint, *signature, *public_key;
};
typedef int (*lr_ledger_entry_fn)(void *arg, const struct lr_ledger_entry *e);

/* Every ledger entry of run 'id' (0: of every run), oldest first. */
LR_MUST_CHECK int lr_store_ledger_entries(struct lr_store *st, int64_t id, lr_ledger_entry_fn fn, void *arg);

/*
 * The signed head: an in-toto Statement v1 in a DSSE envelope (compact,
 * key-sorted JSON, malloc'd into *envelope), signed with the store's signer
 * when it has one (else with no signature). Its subject is the ledger's
 * newest digest; its predicate (urn:labrun:ledger-head:v1) the store id,
 * the head's sequence number and digest, when the newest entry was
 * appended, and every entry's seq, run uuid and digest up to it. Built
 * from the ledger alone, so the same ledger gives the same bytes.
 * *envelope is NULL when the ledger is empty.
 */
#define LR_HEAD_PREDICATE "urn:labrun:ledger-head:v1"
LR_MUST_CHECK int lr_store_head_statement(struct lr_store *st, char **envelope);

/* The newest ledger entry, read without checking the chain (seq 0: empty). */
LR_MUST_CHECK int lr_store_ledger_head(struct lr_store *st, struct lr_ledger_head *head);

/*
 * Walk the ledger: every entry links to the one before and matches its
 * fields, numbers run without a gap, names a run still in the store, and
 * each run's newest entry matches its rows now (only runs only[0..nonly)
 * when 'only' is not NULL: the chain itself is always walked whole): a
 * final or amend entry its seal; a design entry, which is its run's first
 * and holds no seal, the design its rows give (store/designreg.h). Every
 * sealed run has a final entry; every signature verifies with the public
 * key stored for its fingerprint, and is held to 'policy' (NULL: no key is
 * trusted or distrusted). 'fn' gets each problem (seq 0 for a run with no
 * final entry), naming the run and the entry. *head is the newest entry.
 */
LR_MUST_CHECK int lr_store_ledger_check(struct lr_store *st, const int64_t *only, int nonly,
					const struct lr_ledger_policy *policy, lr_ledger_fn fn, void *arg,
					struct lr_ledger_head *head);

/*
 * digest gets entry 'seq''s digest ("" when there is none); 'fn' gets every
 * later entry, with its kind as text.
 */
LR_MUST_CHECK int lr_store_ledger_after(struct lr_store *st, int64_t seq, char digest[LR_SHA256_HEX], lr_ledger_fn fn,
					void *arg);

#endif
