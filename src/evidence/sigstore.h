#ifndef LR_SIGSTORE_H
#define LR_SIGSTORE_H

/*
 * Each run's attestation also as a Sigstore bundle (docs/verify.md,
 * "Sigstore's verifier"): run-ID/run.sigstore.json, written after
 * run-ID/run.intoto.json from its envelope, is
 * {"dsseEnvelope": ENVELOPE, "mediaType": LR_SIGSTORE_MEDIA_TYPE,
 *  "verificationMaterial": {"publicKey": {"hint": KEYID}, "tlogEntries": []}}:
 * the envelope field for field, the hint its signature's DSSE key id, no
 * transparency-log entry and no timestamp, so Sigstore's own verifier
 * checks it offline with the lab's public key. An envelope with no
 * signature (a store without a key) gets no bundle: a bundle needs exactly
 * one. Nothing here prints.
 */

#include <stddef.h>

#include "base/error.h"

#define LR_SIGSTORE_FILE       "run.sigstore.json"
#define LR_SIGSTORE_MEDIA_TYPE "application/vnd.dev.sigstore.bundle.v0.3+json"

/*
 * Write the bundle of envelope file dir/env_rel beside it (same directory,
 * LR_SIGSTORE_FILE); its name relative to 'dir' goes to out[0..n), or ""
 * when the envelope is unsigned and no bundle is written.
 */
LR_MUST_CHECK int lr_sigstore_write(const char *dir, const char *env_rel, char *out, size_t n);

/*
 * Whether dir/bundle_rel is the bundle lr_sigstore_write makes of envelope
 * dir/env_rel (both opened as regular files only, no link followed):
 * LR_EINVAL with a message saying what differs when it is not.
 */
LR_MUST_CHECK int lr_sigstore_check(const char *dir, const char *bundle_rel, const char *env_rel);

#endif
