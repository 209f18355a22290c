#ifndef LR_STORE_SERVING_H
#define LR_STORE_SERVING_H

/* Serving evidence: response sets, comparisons, gates (store/serving.c). */

#include "store/store.h"

/* ---- serving evidence: response sets, comparisons, gates (store/serving.c) ---- */

/* One response. Optional numbers are NAN (doubles) or -1 (counts) when absent. */
struct lr_response {
	const char *case_id;
	int64_t line;
	const char *tokens; /* a compact JSON array of integers */
	int64_t ntokens;
	const char *text;
	size_t text_len; /* bytes (a JSON string may hold NUL) */
	const char *finish_reason;
	double latency_ms, ttft_ms;
	int64_t input_tokens, output_tokens, lane;
	const char *model; /* or NULL */
};

struct lr_response_set {
	int64_t id, run;
	char route[128];
	int cond, seq; /* -1 when ingested by hand */
	int64_t cases;
};

/* Writing one set: begin (a write transaction), add each response, commit (or abort: nothing stays). */
struct lr_set_writer;
LR_MUST_CHECK int lr_store_set_begin(struct lr_store *st, int64_t run, const char *route, int cond, int seq,
				     const char *source, struct lr_set_writer **out);
LR_MUST_CHECK int lr_store_set_add(struct lr_set_writer *w, const struct lr_response *r);
/*
 * Commit with the stored file's digest (known once the object is stored,
 * after its rows); a final run is resealed in the same transaction. *id gets
 * the set's id.
 */
LR_MUST_CHECK int lr_store_set_commit(struct lr_set_writer *w, const char *raw_sha256, int64_t *id);
/* The id of the set being written (its rows may be joined to it before the commit). */
int64_t lr_store_set_id(const struct lr_set_writer *w);
struct lr_store *lr_store_set_store(const struct lr_set_writer *w);
void lr_store_set_abort(struct lr_set_writer *w);

/* The sets of run 'run' (route NULL: every route), by id. */
typedef int (*lr_set_fn)(void *arg, const struct lr_response_set *s);
LR_MUST_CHECK int lr_store_sets(struct lr_store *st, int64_t run, const char *route, lr_set_fn fn, void *arg);

/* Each response of set 'set', by case id. */
typedef int (*lr_response_fn)(void *arg, const struct lr_response *r);
LR_MUST_CHECK int lr_store_set_responses(struct lr_store *st, int64_t set, lr_response_fn fn, void *arg);
/* How many responses set 'set' holds. */
LR_MUST_CHECK int lr_store_set_cases(struct lr_store *st, int64_t set, int64_t *n);

/* What one case of a comparison found (comparison_case). */
struct lr_case_outcome {
	int missing; /* 0, 1: the reference lacks it, 2: the candidate lacks it */
	int tokens_equal, text_equal, finish_equal;
	int64_t first_token_diff; /* -1 when equal or missing */
};

/*
 * Compare set 'cand' against set 'ref' in one transaction: every case of
 * either set, by case id, goes through 'judge' (NULL for the side lacking
 * it; of a response, case_id, tokens, text and finish_reason are read, the
 * rest zero) and is stored. 'run' is the candidate's run, resealed when final.
 */
typedef int (*lr_judge_fn)(void *arg, const struct lr_response *ref, const struct lr_response *cand,
			   struct lr_case_outcome *out);
LR_MUST_CHECK int lr_store_comparison(struct lr_store *st, int64_t run, const char *kind, int64_t ref, int64_t cand,
				      lr_judge_fn judge, void *arg, int64_t *id);

/* Every case of comparison 'id' that is not exact with equal finish reasons, by case id. */
typedef int (*lr_outcome_fn)(void *arg, const char *case_id, const struct lr_case_outcome *o);
LR_MUST_CHECK int lr_store_comparison_failures(struct lr_store *st, int64_t id, lr_outcome_fn fn, void *arg);

/* One case of a gate (gate_case). */
struct lr_gate_case {
	char *case_id;
	int missing, format_ok, answer_ok, eos;
};

/* A stored comparison with its counts (comparison_summary). */
struct lr_comparison_row {
	int64_t id, run, ref_set, cand_set, ref_run;
	char kind[16], ref_route[128], cand_route[128];
	int cond; /* the candidate's, -1 when ingested by hand */
	int64_t exact, token_mismatch, text_mismatch, finish_mismatch, missing, total;
};
typedef int (*lr_comparison_fn)(void *arg, const struct lr_comparison_row *c);
/* The comparisons whose candidate belongs to run 'run', by id. */
LR_MUST_CHECK int lr_store_comparisons(struct lr_store *st, int64_t run, lr_comparison_fn fn, void *arg);

/* A stored gate with its scores (gate_summary). */
struct lr_gate_row {
	int64_t id, run, set;
	char route[128], key_sha256[LR_SHA256_HEX];
	int cond;
	int64_t strict, formats, eos, missing, total;
};
typedef int (*lr_gate_fn)(void *arg, const struct lr_gate_row *g);
/* The gates of run 'run', by id. */
LR_MUST_CHECK int lr_store_gates(struct lr_store *st, int64_t run, lr_gate_fn fn, void *arg);

/* Every case of gate 'id' that did not pass all three checks, by case id. */
typedef int (*lr_gate_case_fn)(void *arg, const struct lr_gate_case *c);
LR_MUST_CHECK int lr_store_gate_failures(struct lr_store *st, int64_t id, lr_gate_case_fn fn, void *arg);

/* Store a gate of set 'set' of run 'run' with its cases, in one transaction (resealing a final run). */
LR_MUST_CHECK int lr_store_gate(struct lr_store *st, int64_t run, int64_t set, const char *key_path,
				const char *key_sha256, const struct lr_gate_case *cases, int n, int64_t *id);

#endif
