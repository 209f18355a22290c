#ifndef LR_STORE_COLLECT_H
#define LR_STORE_COLLECT_H

/*
 * The rows of a pass 'labrun collect' made (migration 21): its settings
 * and the server's identity, and every request, completed or not. Written
 * in the transaction of the pass's response set, so a pass is stored
 * whole or not at all.
 */

#include "base/error.h"
#include <stdint.h>

#include "store/serving.h"

/* One sample of a server's gauges during a pass (serving/sampler.h takes them). */
struct lr_gauge_sample {
	double t_s;              /* after the pass start */
	double running, waiting; /* NAN: the gauge was not in the answer */
	const char *failed;      /* the scrape failed (a gap, no value): why; NULL: it answered */
};

struct lr_store_pass {
	const char *endpoint, *api, *model; /* model may be NULL */
	int concurrency;
	double rate, burstiness; /* 0: none (all at once) */
	int has_seed;
	int64_t seed;
	const char *server, *models; /* NULL when GET /models failed */
	const char *version, *props; /* GET /version, /props (vLLM, llama-server): JSON bodies, NULL when none */
	double duration_s;
	int cancelled;
	const char *metrics_url;               /* NULL: no gauges sampled */
	double slo_ms[3];                      /* goodput's SLOs: TTFT, TPOT, E2EL; 0: none */
	const struct lr_gauge_sample *samples; /* the server's gauges during the pass */
	size_t nsamples;
	/* its validity rules and verdict (migration 24; serving/passes.h computes them) */
	double min_duration_s, ttft_limit_ms, tpot_limit_ms, percentile; /* 0: no rule */
	int64_t min_requests;
	int linear; /* the percentile convention: 0 nearest-rank, 1 linear */
	int early;  /* LoadGen's early stopping applied */
	double little_n, little_xr;
	int valid;
	const char *failed; /* the failed rules; NULL when valid */
};

struct lr_store_request {
	const char *case_id, *body;
	int sent;
	double sent_ms, end_ms;
	long status;                              /* 0: none came */
	const char *failure;                      /* NULL: completed */
	double ttft_ms, e2el_ms;                  /* NAN: none */
	const char *itl_json;                     /* NULL: none */
	const char *token_source;                 /* NULL: never streamed */
	int64_t prompt_tokens, completion_tokens; /* -1: not reported */
	int inflight;
	/* what the client checked of it (collect_check) */
	double scheduled_ms;     /* when it was due */
	int64_t received_tokens; /* -1: text only */
	int finishes, first_ok;  /* first_ok -1: no token came */
	const char *cut_tokens;  /* JSON: a failed request's received ids; NULL: none */
	const char *cut_text;    /* its text */
	size_t cut_text_len;
};

/* Store the pass of set 'w' and its requests[0..n), seq = index, inside w's transaction. */
LR_MUST_CHECK int lr_store_collect(struct lr_set_writer *w, const struct lr_store_pass *p,
				   const struct lr_store_request *r, size_t n);

/* A pass of run 'run' and its requests, as the report reads them. */
struct lr_collect_row {
	int64_t set;
	int failed; /* failure IS NOT NULL */
	int sent;
	double sent_ms, end_ms, ttft_ms, e2el_ms; /* NAN: none */
	const char *itl_json;                     /* NULL: none */
	int64_t prompt_tokens, output_tokens;     /* -1: unknown; output: the tokens received, else the usage */
	/* what the client checked (collect_check; NAN and -1 for a pass stored before migration 24) */
	double lag_ms;                         /* sent - scheduled */
	int64_t usage_tokens, received_tokens; /* -1: not reported, text only */
	int first_ok;                          /* -1: unknown */
};
struct lr_collect_pass_row {
	int64_t set;
	const char *route;
	int cond, concurrency, cancelled;
	double rate, duration_s; /* rate 0: all at once */
	double slo_ms[3];        /* goodput's SLOs: TTFT, TPOT, E2EL; 0: none */
	/* its validity rules (0: none); has_rules 0 for a pass stored before migration 24 */
	int has_rules, linear, early;
	double min_duration_s, ttft_limit_ms, tpot_limit_ms, percentile;
	int64_t min_requests;
};
typedef int (*lr_collect_pass_fn)(void *arg, const struct lr_collect_pass_row *p);
typedef int (*lr_collect_row_fn)(void *arg, const struct lr_collect_row *r);
/* Run 'run''s passes by set, then (fn_row) every request of each, by set and seq. */
LR_MUST_CHECK int lr_store_collect_passes(struct lr_store *st, int64_t run, lr_collect_pass_fn fn, void *arg);
LR_MUST_CHECK int lr_store_collect_rows(struct lr_store *st, int64_t set, lr_collect_row_fn fn, void *arg);

/* What the engine of each pass of run 'run' said of itself (any may be NULL), by set. */
struct lr_identity_row {
	int64_t set;
	const char *route, *server, *models, *version, *props;
};
typedef int (*lr_identity_fn)(void *arg, const struct lr_identity_row *r);
LR_MUST_CHECK int lr_store_collect_identities(struct lr_store *st, int64_t run, lr_identity_fn fn, void *arg);

/* A pass's gauge samples, in time order (a failed scrape with 'failed' set). */
typedef int (*lr_gauge_fn)(void *arg, const struct lr_gauge_sample *g);
LR_MUST_CHECK int lr_store_collect_gauges(struct lr_store *st, int64_t set, lr_gauge_fn fn, void *arg);

/* A request of a pass of run 'run' that did not complete. */
struct lr_collect_failure {
	int64_t set;
	const char *route, *case_id, *failure;
	int cond;
};
typedef int (*lr_collect_failure_fn)(void *arg, const struct lr_collect_failure *f);
/* Every failed or unsent request of run 'run''s passes, by set and case order. */
LR_MUST_CHECK int lr_store_collect_failures(struct lr_store *st, int64_t run, lr_collect_failure_fn fn, void *arg);

/*
 * The cut streams of run 'run' (requests that ended without completing,
 * with the tokens they received), each with its case's reference: the
 * response in the run's earliest set before its pass (ref_set 0: none) and
 * the replacement, in its earliest set after it (repl_set 0: none).
 */
struct lr_collect_cut {
	int64_t set;
	const char *route;
	int cond;
	const char *case_id, *failure, *tokens; /* tokens: JSON array of the ids received */
	int64_t ref_set, repl_set;
	const char *ref_tokens, *repl_tokens; /* NULL: no such set */
};
typedef int (*lr_collect_cut_fn)(void *arg, const struct lr_collect_cut *c);
LR_MUST_CHECK int lr_store_collect_cuts(struct lr_store *st, int64_t run, lr_collect_cut_fn fn, void *arg);
/* Per pass with a cut stream: its completed requests (survivors), how many equal the reference's tokens, how many have none. */
typedef int (*lr_collect_survivors_fn)(void *arg, int64_t set, int64_t survivors, int64_t exact, int64_t no_ref);
LR_MUST_CHECK int lr_store_collect_survivors(struct lr_store *st, int64_t run, lr_collect_survivors_fn fn, void *arg);

#endif
