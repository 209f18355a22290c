#ifndef LR_COLLECTBENCH_H
#define LR_COLLECTBENCH_H

/*
 * 'labrun bench collect': the CPU time a streaming client spends per token
 * and the request rate it sustains, 'labrun collect' (storing everything in
 * a throwaway store, as a user runs it) beside a Python asyncio client of
 * the kind vLLM's 'bench serve' is (serving/aiohttp-client.py, carried in
 * labrun and run by o->python), both sending the same requests to the null
 * streaming server (serving/nullserver.h) and keeping the same fields of
 * every response. At each concurrency level the two alternate, labrun
 * first in even repetitions and the peer first in odd ones; every pass gets
 * a fresh server, whose own CPU time is measured beside the client's. The
 * first repetition of each is a warm-up and is dropped.
 */

#include "base/error.h"
#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_COLLECTBENCH_LEVELS 8
#define LR_COLLECTBENCH_MAXREPS 21

enum { LR_COLLECTBENCH_LABRUN, LR_COLLECTBENCH_PEER, LR_COLLECTBENCH_CLIENTS };
extern const char *const lr_collectbench_clients[LR_COLLECTBENCH_CLIENTS]; /* "labrun", "python" */

struct lr_collectbench_result;

struct lr_collectbench_opts {
	int level[LR_COLLECTBENCH_LEVELS], nlevels;	/* the concurrency levels */
	int64_t requests, tokens;	/* per pass; tokens streamed per request */
	int reps, burst;		/* the null server's chunks a write */
	const char *dir, *self, *python;	/* the scratch directory; labrun's executable; the peer's interpreter */
	const char *peer;		/* what the peer is, from lr_collectbench_check_peer */
	char *const *argv, *const *envp;
	/* after each level, r summarised so far (may be NULL); nonzero stops the benchmark and is returned */
	int (*on_level)(void *arg, const struct lr_collectbench_result *r, int level);
	void *arg;
};

/* One pass of one client: its process's CPU time (user + sys) and wall time, its own pass time, the server's CPU. */
struct lr_collectbench_pass {
	double cpu_s, wall_s, pass_s, server_s;
};

struct lr_collectbench_client {
	struct lr_collectbench_pass p[LR_COLLECTBENCH_MAXREPS];
	/* medians over the repetitions after the first */
	double cpu_us_per_token, requests_per_s, server_us_per_token, server_busy; /* busy: server CPU / pass time */
};

struct lr_collectbench_level {
	int concurrency;
	struct lr_collectbench_client c[LR_COLLECTBENCH_CLIENTS];
	double ratio;	/* median over repetitions of labrun's CPU per token over the peer's */
};

struct lr_collectbench_result {
	struct lr_collectbench_level l[LR_COLLECTBENCH_LEVELS];
	int n;
};

/*
 * Check that o->python can run the peer (it imports aiohttp), and say what
 * it is ("python 3.11.2, aiohttp 3.8.4", 'size' bytes at version): LR_EINVAL
 * with a hint when it cannot.
 */
LR_MUST_CHECK int lr_collectbench_check_peer(const struct lr_collectbench_opts *o, char *version, size_t size);

/* Every level, every repetition; a pass that did not stream every token fails the benchmark. */
LR_MUST_CHECK int lr_collectbench(const struct lr_collectbench_opts *o, struct lr_collectbench_result *r);

/* From the passes in r: the medians and ratios. */
void lr_collectbench_summarise(struct lr_collectbench_result *r, int reps, int64_t tokens_per_pass,
			       int64_t requests_per_pass);

/*
 * As a run of kind 'bench' (binding benchmark = collect, concurrency, requests,
 * tokens, reps, burst, python, peer): samples subject "concurrency N", variant CLIENT or
 * "server (CLIENT)", rep K, in units "s cpu" (both), "s wall" and "s pass"
 * (the client). lr_collectbench_job_results reads them back.
 */
LR_MUST_CHECK int lr_collectbench_job_begin(struct lr_bench_job *j, struct lr_store *st,
					    const struct lr_collectbench_opts *o);
LR_MUST_CHECK int lr_collectbench_job_add(struct lr_bench_job *j, int reps, const struct lr_collectbench_result *r);
LR_MUST_CHECK int lr_collectbench_job_results(const struct lr_run *run, struct lr_collectbench_result *r,
					      int64_t *requests, int64_t *tokens, int *reps);

#endif
