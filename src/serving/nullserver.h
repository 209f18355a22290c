#ifndef LR_SERVING_NULLSERVER_H
#define LR_SERVING_NULLSERVER_H

/*
 * The null streaming server of 'labrun bench collect': an OpenAI-compatible
 * /v1/completions on loopback that computes nothing and streams each request's
 * max_tokens tokens at once, in vLLM's chunk shape (token_ids per chunk, a
 * final usage chunk, [DONE]), each streaming connection advancing a few
 * tokens a turn as a batch does, those chunks in one write (a write a token
 * costs the server more than any client spends on it: it would be the
 * bottleneck). It answers GET /v1/models too.
 * It runs in a process of its own (fork, no exec), so that its CPU time is
 * its own and can be shown beside the client's: a client's figure counts only
 * when the server was not the bottleneck. Only for the benchmark's own
 * clients: one epoll loop, HTTP/1.1 keep-alive, requests of up to 64 KiB.
 *
 * Paced (gap_s or ttft_s above 0), it streams as an engine does instead: the
 * first token ttft_s after the request came, then one event a write every
 * gap_s on a fixed schedule (a late write does not move the next), the last
 * token's write carrying the usage chunk and [DONE]; its timer is a timerfd,
 * so the pacing is not rounded to milliseconds.
 */

#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct lr_nullserver {
	pid_t pid;
	int port;   /* on 127.0.0.1 */
	int report; /* the read end of the pipe its counts come back on */
};

struct lr_nullserver_stats {
	int64_t requests, tokens; /* completions served whole, tokens streamed in them */
	double user_s, sys_s;     /* its CPU time, from wait4 */
};

#define LR_NULLSERVER_MAXBURST 64

struct lr_nullserver_opts {
	int burst;            /* unpaced: chunks a write, 1-64 */
	double gap_s, ttft_s; /* paced when either is above 0: between tokens, before the first */
	int cpu;              /* the CPU it is pinned to; -1: none */
};

/* Listen on an ephemeral loopback port and serve in a child process, as 'o' says. */
LR_MUST_CHECK int lr_nullserver_start(struct lr_nullserver *s, const struct lr_nullserver_opts *o);

/* Stop it (SIGTERM), wait for it and say what it served and what it cost. */
LR_MUST_CHECK int lr_nullserver_stop(struct lr_nullserver *s, struct lr_nullserver_stats *out);

#endif
