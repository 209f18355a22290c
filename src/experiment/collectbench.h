#ifndef LR_COLLECTBENCH_H
#define LR_COLLECTBENCH_H

/*
 * 'labrun bench collect': the CPU time a streaming client spends per token
 * and the request rate it sustains, 'labrun collect' (storing everything in
 * a throwaway store, as a user runs it) beside a Python asyncio client of
 * the kind vLLM's 'bench serve' is (serving/aiohttp-client.py, carried in
 * labrun and run by o->python), both sending the same requests to the null
 * streaming server (serving/nullserver.h) and keeping the same fields of
 * every response, and beside them the raw client (serving/rawclient.h), the
 * CPU floor under any client. At each concurrency level they alternate,
 * labrun first in even repetitions and last in odd ones; every pass gets
 * a fresh server, whose own CPU time is measured beside the client's. The
 * first repetition of each is a warm-up and is dropped.
 */

#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_COLLECTBENCH_LEVELS  8
#define LR_COLLECTBENCH_MAXREPS 21

struct lr_collectbench_opts {
	int level[LR_COLLECTBENCH_LEVELS], nlevels; /* the concurrency levels */
	int64_t requests, tokens;                   /* per pass; tokens streamed per request */
	int reps, burst;                            /* the null server's chunks a write */
	double gap_s, ttft_s;                       /* paced server (either above 0): between tokens, to the first */
	double rate;                                /* requests per second, Poisson arrivals; 0: all at once */
	int cpu_server, cpu_client;                 /* pinned to these CPUs; -1: not pinned */
	const char *dir, *self, *python; /* the scratch directory; labrun's executable; the peer's interpreter */
	const char *peer;                /* what the peer is, from lr_collectbench_check_peer */
	char *const *argv, *const *envp;
};

/*
 * Check that o->python can run the peer (it imports aiohttp), and say what
 * it is ("python 3.11.2, aiohttp 3.8.4", 'size' bytes at version): LR_EINVAL
 * with a hint when it cannot.
 */
LR_MUST_CHECK int lr_collectbench_check_peer(const struct lr_collectbench_opts *o, char *version, size_t size);

/*
 * Every level, every repetition; a pass that did not stream every token
 * fails the benchmark. Its samples (benchjob.h), subject the level
 * ("concurrency 16"), variant "CLIENT: FIGURE" (CLIENT labrun, python or raw;
 * FIGURE cpu, wall, pass, server cpu, lag p50, lag p99 or lag max: the
 * client process's user + sys time, its wall time, its own pass time, the
 * null server's user + sys time in that pass, and the send lag's
 * percentiles over the pass's requests (each request's send time, as the
 * client itself took it, less its scheduled time; labrun's from its store,
 * the peer's from its own summary)), at every repetition, in seconds; a step
 * after each level.
 */
extern const struct lr_bench_ops lr_collectbench_ops;

#endif
