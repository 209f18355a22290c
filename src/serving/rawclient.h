#ifndef LR_SERVING_RAWCLIENT_H
#define LR_SERVING_RAWCLIENT_H

/*
 * The raw client of 'labrun bench collect': the CPU floor under any
 * streaming client on this machine. It sends the same requests to the null
 * server (serving/nullserver.h) on the same schedule, and does only what no
 * client can skip: one epoll loop, a recv when a socket is readable, a clock
 * read for each, HTTP/1.1's chunked framing followed to count the events and
 * find a response's end. It parses no JSON and keeps nothing. Only for the
 * null server on loopback: blocking sockets, keep-alive, 200 or a failure.
 * It runs in a process of its own (fork, no exec) so that its CPU time is its
 * own, as the other clients' are.
 */

#include <stdint.h>

#include "base/error.h"

struct lr_rawclient_opts {
	int port;           /* the null server's, on 127.0.0.1 */
	int concurrency;    /* requests in flight at most */
	int64_t requests;   /* sent in a pass */
	int64_t tokens;     /* max_tokens of each */
	const double *at_s; /* each request's arrival, seconds after the start; NULL: all at once */
};

struct lr_rawclient_result {
	int64_t completed, tokens; /* responses read whole; token events in them */
	double pass_s;             /* first send to last response's end */
	double user_s, sys_s;      /* its CPU time, from wait4 */
	double *lag_ms;            /* each request's send time less its arrival (malloc'd, 'completed' of them) */
};

/* Run a pass in a child process and wait for it; LR_EIO when it failed or did not read every response. */
LR_MUST_CHECK int lr_rawclient_run(const struct lr_rawclient_opts *o, struct lr_rawclient_result *r);

#endif
