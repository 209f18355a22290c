#ifndef LR_SERVING_H
#define LR_SERVING_H

/*
 * Serving evidence: the responses a serving harness produced per route,
 * compared case by case with a reference, and scored against a frozen
 * answer key. Strict by design: a response file is ingested whole or not at
 * all, a comparison never skips a case (absent ones are 'missing'), and a
 * gate never normalises a text beyond trimming surrounding whitespace.
 * docs/serving.md is the user's description. Nothing here prints.
 */

#include "base/error.h"
#include <stdint.h>

#include "store/serving.h"
#include "store/store.h"

/* ---- responses (responses.c) ---- */

/*
 * Ingest responses file 'path' (JSON lines, see docs/serving.md) as a set of
 * route 'route' of run 'run' (cond/seq: the command experiment's condition
 * and execution, -1 when ingested by hand). Every line is checked before
 * anything is written: a malformed line, a wrong type, invalid UTF-8 or a
 * duplicate case id is LR_EINVAL "FILE:LINE: reason" and leaves the store
 * as it was. The file itself is stored as an object (unknown fields kept);
 * one holding the value of a secret environment variable ('envp') is
 * refused. *set gets the new set's id, *cases its responses.
 */
LR_MUST_CHECK int lr_responses_ingest(struct lr_store *st, int64_t run, const char *route, int cond, int seq,
				      const char *path, char *const *envp, int64_t *set, int64_t *cases);

/*
 * The same, with the set's source given apart from the file it is read from
 * ('labrun collect' writes a file and names the endpoint), and 'extra'
 * called with the set's writer before the commit, for rows that belong to
 * the set's transaction (NULL: none).
 */
typedef int (*lr_ingest_extra_fn)(void *arg, struct lr_set_writer *w);
LR_MUST_CHECK int lr_responses_ingest_with(struct lr_store *st, int64_t run, const char *route, int cond, int seq,
					   const char *path, const char *source, char *const *envp,
					   lr_ingest_extra_fn extra, void *arg, int64_t *set, int64_t *cases);

#define LR_RESPONSES_MAX ((size_t)4 << 30) /* a responses file: 4 GiB (it is stored whole, then mapped) */

/* Check a responses file without storing anything (the first pass of ingest). */
LR_MUST_CHECK int lr_responses_check(const char *path, int64_t *cases);

/* ---- comparisons (compare.c) ---- */

struct lr_compare_counts {
	int64_t exact, token_mismatch, text_mismatch, finish_mismatch, missing, total;
};

/*
 * Compare set 'cand' (of run 'run') against set 'ref', case by case: exact
 * when token arrays and texts are both equal; a token mismatch records the
 * first differing position; finish reasons are compared apart; a case on one
 * side only is missing. Stored in one transaction; 'counts' summarises it.
 */
LR_MUST_CHECK int lr_compare_sets(struct lr_store *st, int64_t run, const char *kind, int64_t ref, int64_t cand,
				  struct lr_compare_counts *counts, int64_t *id);

/*
 * The set a route reference names: "ROUTE" (of run 'run') or "RUN:ROUTE",
 * in condition 'cond' (-1: a set ingested by hand, or the only condition
 * that has one). The route's first set there. LR_ENOTFOUND naming the route.
 */
LR_MUST_CHECK int lr_route_set(struct lr_store *st, int64_t run, const char *ref, int cond,
			       struct lr_response_set *out);

/* ---- frozen quality gates (gate.c) ---- */

struct lr_gate_counts {
	int64_t strict, formats, eos, missing, total;
};

/*
 * Score set 'set' of run 'run' against answer key 'key_path' (JSON lines
 * {"case_id", "answer", "keys"}; checked whole first, LR_EINVAL
 * "FILE:LINE: reason"). The key is stored as an object, its sha256 with the
 * gate. Stored in one transaction.
 */
LR_MUST_CHECK int lr_gate_score(struct lr_store *st, int64_t run, int64_t set, const char *key_path,
				struct lr_gate_counts *counts, int64_t *id);

#endif
