#ifndef LR_ISSUEREF_H
#define LR_ISSUEREF_H

#include "base/error.h"
#include <stddef.h>

/*
 * Normalise an issue reference into 'out' (at least 256 bytes): "#270" and
 * "270" become "270"; "owner/repo#827" stays. LR_EINVAL with a message
 * naming the reference otherwise.
 */
LR_MUST_CHECK int lr_issue_normalize(const char *ref, char *out, size_t outlen);

#endif
