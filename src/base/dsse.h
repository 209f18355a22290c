#ifndef LR_DSSE_H
#define LR_DSSE_H

/*
 * DSSE v1 envelopes around in-toto Statements and labrun's own signed
 * statements (docs/verify.md): the signature is Ed25519 over
 * PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * lengths in decimal; payload and signatures in standard base64 with
 * padding; keyid the hex sha256 of the canonical JSON
 * {"keytype":"ed25519","keyval":{"public":"<hex>"},"scheme":"ed25519"}
 * (securesystemslib 1.0 and later; its 0.x keys module also hashes
 * "keyid_hash_algorithms", docs/verify.md). A keyid is a hint, never trust: an
 * envelope is trusted when a signature verifies with a trusted key.
 * Read strictly (docs/verify.md): base64 only as above, at most
 * LR_DSSE_MAX_SIGS signatures, an in-toto payload naming each key once;
 * callers load the envelope itself with JSON_REJECT_DUPLICATES.
 * Nothing here prints.
 */

#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/sign.h"

#define LR_INTOTO_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define LR_INTOTO_STATEMENT    "https://in-toto.io/Statement/v1"

struct lr_trust;

/* Signatures an envelope may carry: each costs a verification per trusted key, so more are refused. */
#define LR_DSSE_MAX_SIGS 16

/* The keyid of an Ed25519 public key given as hex. */
LR_MUST_CHECK int lr_dsse_keyid(const char *public_hex, char keyid[LR_SHA256_HEX]);

/* PAE(type, body), malloc'd into *out. */
LR_MUST_CHECK int lr_dsse_pae(const char *type, const void *body, size_t len, unsigned char **out, size_t *outlen);

/*
 * The envelope of 'payload' (len bytes) of 'type', signed by 's' (NULL:
 * no signature). *out is a new JSON object.
 */
LR_MUST_CHECK int lr_dsse_sign(const struct lr_signer *s, const char *type, const void *payload, size_t len,
			       json_t **out);

/* What lr_dsse_open found. */
struct lr_dsse_opened {
	char *payload; /* decoded, NUL-terminated (malloc'd) */
	size_t len;
	const char *type;           /* borrowed from the envelope */
	char signer[LR_SHA256_HEX]; /* fingerprint of the trusted key that verified; "" when none */
	char principal[128];        /* its principal */
	int nsigs;                  /* signatures in the envelope */
	char refused[512];          /* when none counts, why (naming the key id that signed); else "" */
};

/*
 * Decode envelope 'env' and check its signatures against the trusted keys
 * 't' and the public keys pubs[0..npubs) (hex; used only when their
 * fingerprint is trusted: a trusted line may give just a fingerprint;
 * one not trusted that verifies is named as the signer when refusing).
 * Returns 0 when a signature verifies with a trusted key, LR_EREFUSED
 * (message and o->refused: why, naming the key id: a key not trusted, or
 * a trusted key whose signature no longer matches) when the envelope is
 * unsigned or no signature verifies with a trusted key (o is filled all
 * the same), LR_EINVAL when it is not an envelope as docs/verify.md
 * says. Release o with lr_dsse_opened_release().
 */
LR_MUST_CHECK int lr_dsse_open(const json_t *env, const struct lr_trust *t, const char *const *pubs, size_t npubs,
			       struct lr_dsse_opened *o);
void lr_dsse_opened_release(struct lr_dsse_opened *o);

/*
 * Standard base64 with padding (malloc'd, NUL-terminated); decoding refuses
 * anything else: no URL-safe alphabet, no padding left out, no stray bits.
 */
LR_MUST_CHECK int lr_base64_encode(const void *p, size_t len, char **out);
LR_MUST_CHECK int lr_base64_decode(const char *text, unsigned char **out, size_t *len);

#endif
