#ifndef LR_SERVING_COLLECT_H
#define LR_SERVING_COLLECT_H

/*
 * 'labrun collect': one pass of a cases file against an OpenAI-compatible
 * endpoint, streamed, its responses stored exactly as 'labrun ingest'
 * stores a harness's (so compare, gate and report work unchanged), and
 * every request, completed or not, with its timings, as rows of the pass
 * (store/collect.h). docs/serving.md is the user's description.
 */

#include "base/error.h"
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "serving/passes.h"
#include "store/store.h"

struct lr_collect_opts {
	const char *endpoint; /* the API's base URL, ".../v1" */
	const char *route;
	const char *cases;       /* the cases file (JSON lines) */
	const char *model;       /* or NULL: none named */
	int chat;                /* /chat/completions with 'messages', else /completions */
	int concurrency;         /* >= 1; 0: no cap (as many as there are cases) */
	double rate, burstiness; /* requests per second (0: all at once); the gamma shape of the gaps */
	int64_t max_tokens;      /* for cases without their own */
	int ignore_eos;
	int has_seed;
	int64_t seed;
	double temperature;
	double timeout_s, stall_s;
	const char *token_ids;   /* how to ask for token ids: "vllm", "logprobs", "llama.cpp" or "none" */
	atomic_int *cancel;      /* Ctrl-C: stop, keeping what ended */
	const char *metrics_url; /* the server's Prometheus gauges, sampled during the pass; or NULL */
	const char *gauge_running, *gauge_waiting; /* their names (vLLM's by default) */
	double sample_s;                           /* the sampling period */
	double slo_ms[3];                          /* goodput's SLOs: TTFT, TPOT, E2EL in ms; 0: none */
	struct lr_valid_rules rules;               /* the pass's validity rules (percentile 0: 99) */
	char *const *envp;                         /* its secrets never reach the store */
};

struct lr_collect_result {
	int64_t set; /* the response set stored */
	int64_t cases, completed, failed, unsent;
	int cancelled;
	double duration_s;
	char server[128];   /* the Server header, "" when none */
	int valid;          /* the pass's verdict (passes.h) */
	char invalid[1024]; /* every rule it failed */
	int64_t failed_scrapes;
	char engine[64], engine_version[128]; /* the engine it reached, as it said (serving/engine.h) */
};

/* The cases file checked whole, before anything is sent: LR_EINVAL "FILE:LINE: reason". */
LR_MUST_CHECK int lr_collect_check_cases(const char *path, int chat, int64_t *cases);

/* Run one pass into run 'run' (condition 'cond', -1 by hand) and store it. */
LR_MUST_CHECK int lr_collect(struct lr_store *st, int64_t run, int cond, const struct lr_collect_opts *o,
			     struct lr_collect_result *out);

/*
 * The same pass without a store, for a serving experiment's execution: the
 * responses to 'out' (a new file, as ingest reads them); with 'pass', the
 * pass and every request to that new file (serving/passfile.h), which the
 * experiment stores with the responses; when 'metrics'
 * is not NULL the pass's figures appended to it as $LABRUN_METRICS lines
 * (output_throughput, total_throughput, request_throughput, mean_inflight,
 * and ttft, tpot, itl, e2el with _mean, _median and _p99); with 'log', every
 * request as a JSON line (case_id, sent_ms, end_ms, status, failure,
 * ttft_ms, e2el_ms, itl_ms).
 */
LR_MUST_CHECK int lr_collect_file(const struct lr_collect_opts *o, const char *out, const char *pass,
				  const char *metrics, FILE *log, struct lr_collect_result *res);

/* Arrival times as vLLM's bench serve draws them, into req[0..n).at_s ('labrun bench collect' gives its peer the same). */
struct lr_request;
void lr_arrivals(const struct lr_collect_opts *o, struct lr_request *req, size_t n);

#endif
