#ifndef LR_SERVING_CLIENT_H
#define LR_SERVING_CLIENT_H

/*
 * An HTTP client for OpenAI-compatible servers on libcurl's multi_socket
 * interface: one thread, waiting in epoll (never a busy loop), libcurl
 * running only the transfers whose sockets are ready, with at most
 * 'concurrency' requests in flight, each sent at its arrival time (a
 * timerfd wakes the loop for it, to the microsecond). Every request ends as a result: a streamed completion, or a named
 * failure (refused, timed out, stalled, an HTTP error, a malformed or cut
 * stream, invalid UTF-8, an oversized event, cancelled). Nothing here
 * touches the store.
 */

#include "base/error.h"
#include <stdatomic.h>
#include <stddef.h>

#include "serving/sampler.h"
#include "serving/stream.h"

struct lr_client_opts {
	int concurrency;    /* requests in flight at most, >= 1 */
	double timeout_s;   /* a request's whole time at most; 0: none */
	double stall_s;     /* no byte for this long ends a stream; 0: none */
	size_t max_event;   /* bytes of one event at most */
	atomic_int *cancel; /* set asynchronously (Ctrl-C): stop, keeping what ended; or NULL */
	/* the server's gauges during the pass (sampler.h), when metrics_url is set */
	const char *metrics_url, *gauge_running, *gauge_waiting;
	double sample_s;
	struct lr_gauge_sample **samples; /* filled with the samples taken (malloc'd) */
	size_t *nsamples;
};

struct lr_request {
	const char *url;
	const char *body; /* JSON, POSTed */
	double at_s;      /* when to send it, seconds after the pass starts */
};

struct lr_result {
	int sent;             /* 0: never sent (cancelled first) */
	long status;          /* HTTP status, 0 when none came */
	double sent_s, end_s; /* after the pass start: handed to libcurl, ended */
	struct lr_stream s;   /* what the stream held; s.failure names a failure */
	int inflight_at_send; /* requests in flight when it was sent, itself included */
};

/*
 * Send req[0..n), results into res[0..n) (released with lr_result_release).
 * *start gets the pass's start on lr_monotonic_s's clock; *cancelled is 1
 * when the cancel flag stopped it (the results say which ended). Returns 0
 * when the pass ran, each request's outcome in its result, or an error of
 * the client itself (libcurl missing, out of memory).
 */
LR_MUST_CHECK int lr_client_run(const struct lr_client_opts *o, const struct lr_request *req, size_t n,
				struct lr_result *res, double *start, int *cancelled);
void lr_result_release(struct lr_result *r);

/* GET url: its body (up to 1 MiB, malloc'd) and its Server header ("" when none); for a server's identity. */
LR_MUST_CHECK int lr_client_get(const char *url, double timeout_s, long *status, char **body, char server[128]);

/*
 * What is wrong with an endpoint or metrics URL, as the 'expected ...' a
 * message ends with, or NULL when it is usable: http or https, a host, a
 * port of 1-65535, no blank, no query or fragment (the endpoint's path
 * gets /completions appended), no user:password@.
 */
const char *lr_url_problem(const char *url);

#endif
