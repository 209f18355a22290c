#ifndef LR_SIGN_H
#define LR_SIGN_H

/*
 * Ed25519 signing keys (OpenSSL's libcrypto): one key per user, in a PEM
 * file only its owner can read. A public key is written as 64 hex digits
 * (its 32 raw bytes); its fingerprint is the sha256 of those raw bytes, in
 * hex; a signature is 128 hex digits. Nothing here prints.
 */

#include "base/error.h"
#include "base/sha256.h"

#include <stddef.h>

#define LR_PUBKEY_HEX   65                 /* 32 bytes as hex, with the NUL */
#define LR_KEY_FILE_MAX ((size_t)64 << 10) /* a PEM key file read: 64 KiB (an Ed25519 key is ~120 bytes) */
#define LR_SIG_HEX      129                /* 64 bytes as hex, with the NUL */

struct lr_signer;

/* The key file: $LABRUN_KEY, else $XDG_CONFIG_HOME/labrun/signing-key.pem, else ~/.config/labrun/... (malloc'd). */
LR_MUST_CHECK int lr_key_path(char **path);

/* Make a new key at 'path' (its directory created 0700, the file 0600); never replaces one. */
LR_MUST_CHECK int lr_key_generate(const char *path);

/*
 * Load the key at 'path': *out is NULL when there is no file. A key file
 * that others can read is refused (LR_EREFUSED), as ssh does.
 */
LR_MUST_CHECK int lr_signer_load(const char *path, struct lr_signer **out);
void lr_signer_free(struct lr_signer *s);

const char *lr_signer_public(const struct lr_signer *s);      /* hex */
const char *lr_signer_fingerprint(const struct lr_signer *s); /* hex */

/*
 * Sign / verify 'len' raw bytes: a 64-byte signature. lr_verify_raw returns 0 when it holds, LR_EINVAL when not
 * (also for a key lr_key_check refuses, and for a signature whose s, its last 32 bytes, is not below the group order).
 */
LR_MUST_CHECK int lr_sign_raw(const struct lr_signer *s, const void *msg, size_t len, unsigned char sig[64]);
LR_MUST_CHECK int lr_verify_raw(const char *public_hex, const void *msg, size_t len, const unsigned char *sig,
				size_t siglen);

/* Sign / verify the bytes of 'msg'. lr_verify returns 0 when the signature holds, LR_EINVAL when not. */
LR_MUST_CHECK int lr_sign(const struct lr_signer *s, const char *msg, char sig[LR_SIG_HEX]);
LR_MUST_CHECK int lr_verify(const char *public_hex, const char *msg, const char *sig_hex);

/*
 * The public key (hex) of the Ed25519 key in the PEM file 'path': a public
 * key ('openssl pkey -pubout', 'labrun key export') or a private key.
 * LR_EINVAL when the file holds neither.
 */
LR_MUST_CHECK int lr_key_public_read(const char *path, char pub[LR_PUBKEY_HEX]);

/* The signer's public key in PEM (SubjectPublicKeyInfo), malloc'd into *pem. */
LR_MUST_CHECK int lr_signer_public_pem(const struct lr_signer *s, char **pem);

/*
 * Whether 'public_hex' is a public key to trust: 64 hex digits (else
 * LR_EINVAL) of a canonical encoding (y below 2^255-19) of a point not of
 * small order (else LR_EREFUSED): signatures by the 8 small-order points
 * can be forged without a private key. Every verification checks it too.
 */
LR_MUST_CHECK int lr_key_check(const char *public_hex);

/* The fingerprint of a public key given as hex; LR_EINVAL when it is not 64 hex digits. */
LR_MUST_CHECK int lr_key_fingerprint(const char *public_hex, char fpr[LR_SHA256_HEX]);

#endif
