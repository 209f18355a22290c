#ifndef LR_EVIDENCE_SELECT_H
#define LR_EVIDENCE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/list.h"
#include "store/store.h"

/*
 * The runs a piece of evidence (a crate, an archive, a scan) holds: each of
 * 'runs' (references: short ids, uuid prefixes, 'last') and every run of each
 * of 'issues', oldest first and each once, into *ids (*n of them, malloc'd).
 * 'name' gets what the evidence is called by default ("run-3", "issue-270",
 * "runs-2-to-9", no '/' or '#'). An issue with no runs is LR_ENOTFOUND,
 * naming it in "cannot WHAT issue ...".
 */
LR_MUST_CHECK int lr_evidence_select(struct lr_store *st, const struct lr_strlist *runs,
				     const struct lr_strlist *issues, const char *what, int64_t **ids, int *n,
				     char *name, size_t len);

#endif
