#ifndef LR_ATTEST_H
#define LR_ATTEST_H

/*
 * Attestations in crates and archives (docs/verify.md): in-toto Statements
 * v1 in DSSE envelopes, signed with the store's key. Each run's
 * run-ID/run.intoto.json has every file of that run in the crate as its
 * subjects and the run's record (uuid, kind, status, seal digest, bundle
 * hash, ledger entries) as its predicate; crate.intoto.json, written last,
 * has every other file of the crate as its subjects. Nothing here prints.
 */

#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "base/sign.h"

#define LR_RUN_PREDICATE     "urn:labrun:run:v1"
#define LR_CRATE_PREDICATE   "urn:labrun:crate:v1"
#define LR_ARCHIVE_PREDICATE "urn:labrun:archive:v1"
#define LR_CRATE_STATEMENT   "crate.intoto.json"
#define LR_HEAD_FILE         "ledger-head.intoto.json"

/*
 * Write dir/rel: the Statement of 'subjects' (an array of {"name", "digest":
 * {"sha256"}}), of 'predicate_type' with 'predicate' (a reference is taken),
 * in a DSSE envelope signed by 's' (NULL: unsigned). Compact, key-sorted
 * JSON, so the same evidence gives the same bytes.
 */
LR_MUST_CHECK int lr_attest_write(const struct lr_signer *s, const char *dir, const char *rel, json_t *subjects,
				  const char *predicate_type, json_t *predicate);

/* The same envelope as compact text, no newline (malloc'd into *text). */
LR_MUST_CHECK int lr_attest_text(const struct lr_signer *s, json_t *subjects, const char *predicate_type,
				 json_t *predicate, char **text);

/* {"name": rel, "digest": {"sha256": hex}} for the file dir/rel, appended to 'subjects'. */
LR_MUST_CHECK int lr_attest_subject(json_t *subjects, const char *dir, const char *rel);

#endif
