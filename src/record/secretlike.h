#ifndef LR_SECRETLIKE_H
#define LR_SECRETLIKE_H

/*
 * Text that looks like a credential, by rules (docs/labrun.md, "scan"): the
 * shapes of known token formats, URL and libpq passwords, .pgpass lines,
 * JWTs, Slack tokens and webhooks, and values assigned to keys named like a
 * secret (password, token, api_key, ...) that are not placeholders. One
 * table for 'labrun scan' and for the definitions 'labrun run' refuses.
 * labrun's own hashes, public keys, signatures and envelopes match no rule.
 */

#include <stddef.h>

#include "base/error.h"

/* Called for each rule a line matches, with the matched text (not NUL-terminated). */
typedef int (*lr_secretlike_fn)(void *arg, const char *rule, const char *match, size_t len);

/* Every rule over one NUL-terminated line; a non-zero return from 'fn' stops and is returned. */
LR_MUST_CHECK int lr_secretlike_line(const char *line, lr_secretlike_fn fn, void *arg);

/* The name of the first rule 'text' matches, or NULL (also when the rules cannot be compiled). */
const char *lr_secretlike(const char *text);

#endif
