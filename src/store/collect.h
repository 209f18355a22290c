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
	int64_t prompt_tokens, output_tokens;     /* -1: unknown; output: usage, else the response's token count */
};
struct lr_collect_pass_row {
	int64_t set;
	const char *route;
	int cond, concurrency, cancelled;
	double rate, duration_s; /* rate 0: all at once */
	double slo_ms[3];        /* goodput's SLOs: TTFT, TPOT, E2EL; 0: none */
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

/* A pass's gauge samples, in time order. */
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

#endif
