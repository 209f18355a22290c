#ifndef LR_TRUST_H
#define LR_TRUST_H

/*
 * Trust anchored outside the store: which keys the user trusts, and which
 * stores the user knows to be signed. Both live in the user's configuration
 * ($XDG_CONFIG_HOME/labrun/, else ~/.config/labrun/), never in a store, so
 * whoever can write a store cannot make their own key trusted nor make a
 * signed store look unsigned. Nothing here prints.
 *
 * trusted-keys ($LABRUN_TRUSTED_KEYS names another file), one key a line,
 * in the manner of ssh's and git's allowed-signers files:
 *
 *     # PRINCIPAL TYPE KEY
 *     alice@lab ed25519 <64 hex digits: the raw public key>
 *     ci-runner sha256 <64 hex digits: the key's fingerprint>
 *
 * signed-stores, one store a line, written by labrun itself the first time
 * it signs a ledger entry of a store:
 *
 *     # STORE-ID FROM-SEQ FINGERPRINT[,FINGERPRINT...] PATH
 *
 * meaning: the store with that id (created at that path) is signed from
 * ledger entry FROM-SEQ on, by those keys; an entry there without a
 * signature is a problem.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/sign.h"

#define LR_STORE_ID_HEX  33 /* 32 hex digits and the NUL */
#define LR_PRINCIPAL_MAX 128

struct lr_trusted_key {
	char principal[LR_PRINCIPAL_MAX];
	char fingerprint[LR_SHA256_HEX];
	char public_key[LR_PUBKEY_HEX]; /* "" when the line gives only a fingerprint */
	const char *origin;             /* the file it came from (borrowed from the lr_trust) */
};

struct lr_known_store {
	char id[LR_STORE_ID_HEX];
	int64_t from_seq;
	char *keys; /* comma-separated fingerprints */
	char *path;
};

struct lr_trust {
	struct lr_trusted_key *keys;
	size_t nkeys, capkeys;
	struct lr_known_store *stores;
	size_t nstores, capstores;
	char *keys_path, *stores_path; /* the user's files */
	char **origins;                /* file names the keys came from */
	size_t norigins;
};

/* A file of the user's labrun configuration: $XDG_CONFIG_HOME/labrun/NAME, else ~/.config/labrun/NAME (malloc'd). */
LR_MUST_CHECK int lr_config_path(const char *name, char **path);

/*
 * Load the user's trusted keys and known stores (missing files are empty),
 * and the public key of the user's own signing key, if one can be read
 * (the user's own key is trusted: it is already their configuration).
 * Release with lr_trust_release() even on failure.
 */
LR_MUST_CHECK int lr_trust_load(struct lr_trust *t);
void lr_trust_release(struct lr_trust *t);

/* Add the keys of 'path' (--trust FILE): a trusted-keys file or an Ed25519 public key in PEM. */
LR_MUST_CHECK int lr_trust_add_file(struct lr_trust *t, const char *path);

/*
 * The trusted key with fingerprint 'fpr', or NULL. When the trusted line
 * gives the public key, a signature must verify with that key, not with
 * one a store or crate carries.
 */
const struct lr_trusted_key *lr_trust_find(const struct lr_trust *t, const char *fpr);

/*
 * The store known by 'id', else by 'path' (its real path): NULL when the
 * user's configuration knows neither. *by_path is set when only the path
 * matched (the store says another id: its identity was rewritten).
 */
const struct lr_known_store *lr_trust_store(const struct lr_trust *t, const char *id, const char *path, int *by_path);

/*
 * Remember, in the signed-stores file, that store 'id' at 'path' is signed
 * from entry 'seq' on by key 'fpr' (a store already known keeps its first
 * sequence; a new key is added to its list). The file is locked while it
 * is rewritten, and replaced whole (rename), so a crash leaves the old one.
 */
LR_MUST_CHECK int lr_trust_remember_store(const char *id, const char *path, int64_t seq, const char *fpr);

/*
 * Add a key to the user's trusted-keys file (principal, and a public key or
 * only a fingerprint); one already there (same fingerprint) is replaced.
 * Remove the key with fingerprint (or unique prefix of at least 8 digits)
 * 'fpr': LR_ENOTFOUND when no line has it.
 */
LR_MUST_CHECK int lr_trust_keys_add(const char *path, const char *principal, const char *public_key, const char *fpr);
LR_MUST_CHECK int lr_trust_keys_remove(const char *path, const char *fpr, char removed[LR_SHA256_HEX]);

#endif
