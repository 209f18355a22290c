/* The streaming HTTP client on libcurl's multi interface (client.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "record/redact.h"
#include "serving/client.h"
#include "base/curl.h"

#define LR_ERROR_BODY 512  /* bytes of an HTTP error's body kept for its failure */
#define LR_POLL_MS    100  /* the longest wait, so a cancel is seen soon */
#define LR_STALL_SCAN 0.01 /* seconds between two looks for stalled or timed-out streams */

struct transfer {
	CURL *easy;
	struct lr_result *res;
	const struct lr_request *req;
	struct lr_sse sse;
	char errbody[LR_ERROR_BODY + 1];
	size_t errlen;
	int failed;         /* the write callback stopped the transfer, res->s.failure says why */
	int sse_seen;       /* the body's first bytes were looked at */
	int not_sse;        /* a 2xx whose body is no event stream (HTML, JSON, gzip): kept like an error's */
	double last_byte_s; /* when a byte last came (or it was sent), lr_monotonic_s's clock */
	double sent_at_s;   /* when it was handed to libcurl, lr_monotonic_s's clock */
};

struct pass {
	const struct lr_client_opts *o;
	CURLM *multi;
	struct lr_sampler *sampler; /* or NULL */
	double start;
	int inflight;
	int epfd;                   /* libcurl's sockets (on_socket) and the timer */
	int timer;                  /* a timerfd that wakes the loop at the next arrival */
	double armed_s;             /* the arrival the timer is set for (pass seconds), -1: none */
	double curl_due;            /* when libcurl wants its timeouts run, lr_monotonic_s's clock; -1: never */
	double stall_check;         /* when stalled streams are next looked for, lr_monotonic_s's clock */
	size_t first;               /* the transfers before it have all ended */
	struct curl_slist *headers; /* every request's, made once */
	CURL **idle;                /* easy handles of ended transfers, kept for the next (at most concurrency) */
	int nidle;
};

static int on_event(void *arg, const char *data, size_t len)
{
	struct transfer *t = arg;

	return lr_stream_event(&t->res->s, data, len, t->last_byte_s); /* when its bytes came */
}

/* Whether a 2xx body is not server-sent events: a content type other than text/event-stream, or gzip. */
static int not_a_stream(CURL *easy, const char *data, size_t len)
{
	char *type = NULL;

	curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &type);
	if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b)
		return 1;
	return type && strncasecmp(type, "text/event-stream", 17);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n;
	long status = 0;
	int rc;

	t->last_byte_s = lr_monotonic_s();
	if (!t->sse_seen) { /* the status is the headers', the same for every call of the body */
		curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
		t->res->status = status;
		if (status >= 200 && status <= 299)
			t->not_sse = not_a_stream(t->easy, data, len);
		t->sse_seen = 1;
	}
	status = t->res->status;
	if (status < 200 || status > 299 || t->not_sse) { /* an HTTP error: keep the start of its body to name it */
		size_t k = len < LR_ERROR_BODY - t->errlen ? len : LR_ERROR_BODY - t->errlen;

		memcpy(t->errbody + t->errlen, data, k);
		t->errlen += k;
		return len;
	}
	if ((rc = lr_sse_feed(&t->sse, data, len, on_event, t))) {
		if (!t->res->s.failure[0]) /* the SSE reader's own: an oversized event; or out of memory */
			snprintf(t->res->s.failure, sizeof t->res->s.failure, "%s", lr_error_msg());
		t->failed = 1;
		return 0; /* libcurl ends the transfer with CURLE_WRITE_ERROR */
	}
	return len;
}

static int start(struct pass *p, struct transfer *t, const struct lr_request *req, struct lr_result *res)
{
	const struct lr_client_opts *o = p->o;

	memset(t, 0, sizeof *t);
	t->res = res;
	t->req = req;
	lr_stream_init(&res->s);
	lr_sse_init(&t->sse, o->max_event);
	if (!(t->easy = p->nidle ? p->idle[--p->nidle] : curl_easy_init()))
		return lr_error_set(LR_ENOMEM, "out of memory for a request");
	curl_easy_setopt(t->easy, CURLOPT_URL, req->url);
	curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, req->body);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, p->headers);
	curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https"); /* a redirect never leaves HTTP */
	if (curl_multi_add_handle(p->multi, t->easy) != CURLM_OK)
		return lr_error_set(LR_EIO, "cannot start a request to '%s'", req->url);
	res->sent = 1;
	t->sent_at_s = t->last_byte_s = lr_monotonic_s();
	res->sent_s = t->last_byte_s - p->start;
	res->inflight_at_send = ++p->inflight;
	return 0;
}

/* The start of a body, one line: bytes outside printable ASCII as \xNN. */
static void escape_start(const char *in, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c >= ' ' && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

/* An HTTP answer that is no stream: the URL, the status, what came (content type, first bytes) and the fix. */
static void http_failure(struct transfer *t, char *f, size_t len)
{
	struct lr_result *r = t->res;
	char *type = NULL, *to = NULL, start[4 * LR_ERROR_BODY + 1]; /* all of it, each byte maybe \xNN */
	const char *ct;
	long status = 0;

	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status); /* a body-less answer never reached on_body */
	curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &type);
	curl_easy_getinfo(t->easy, CURLINFO_REDIRECT_URL, &to);
	r->status = status;
	escape_start(t->errbody, t->errlen, start, sizeof start);
	if (t->errlen == LR_ERROR_BODY) /* the body went on: its last word may be a token's start */
		lr_drop_cut_word(start);
	if (lr_redact_secretlike(start, sizeof start)) /* scrubbed whole, before any cap cuts a token */
		snprintf(start, sizeof start, "%s", LR_REDACTED);
	ct = t->errlen >= 2 && (unsigned char)t->errbody[0] == 0x1f && (unsigned char)t->errbody[1] == 0x8b
		     ? "a gzip body"
	     : type ? type
		    : "no content type";
	if (status >= 300 && status <= 399)
		snprintf(f, len,
			 "HTTP %ld from %.80s: a redirect to %.80s, not followed; give that URL as the endpoint",
			 status, t->req->url, to ? to : "(no Location)");
	else if (t->not_sse) {
		lr_cut_redacted(start, 59);
		snprintf(f, len,
			 "HTTP %ld from %.60s: %.40s, not text/event-stream, began '%s'; is this the API's URL?",
			 status, t->req->url, ct, start);
	} else {
		int k = snprintf(f, len, "HTTP %ld from %.60s (%.40s): ", status, t->req->url, ct);

		lr_cut_redacted(start, len - 1 - (size_t)k); /* the prefix is at most 130 bytes of 'len' */
		snprintf(f + k, len - (size_t)k, "%s", start);
	}
}

/* The named failure of a transfer that libcurl ended with 'code' (the stream's own, if it set one). */
static void name_failure(const struct pass *p, struct transfer *t, CURLcode code)
{
	struct lr_result *r = t->res;
	char *f = r->s.failure;
	size_t len = sizeof r->s.failure;

	if (f[0])
		return;
	if (code == CURLE_OK && (r->status < 200 || r->status > 299 || t->not_sse)) {
		http_failure(t, f, len);
	} else if (code == CURLE_COULDNT_CONNECT) {
		snprintf(f, len, "connection refused by %.180s", t->req->url);
	} else if (code == CURLE_OPERATION_TIMEDOUT) {
		snprintf(f, len, "timed out after %g s", p->o->timeout_s);
	} else if (code == CURLE_OUT_OF_MEMORY) { /* libcurl's answer to a header over its limit (100 KB) */
		snprintf(f, len, "stream cut from %.80s: %s (most often a response header over libcurl's 100 KB limit)",
			 t->req->url, curl_easy_strerror(code));
	} else if (code != CURLE_OK) {
		snprintf(f, len, "stream cut from %.80s: %s", t->req->url, curl_easy_strerror(code));
	} else if (!r->s.done) {
		snprintf(f, len, "stream cut: %s",
			 lr_sse_pending(&t->sse) ? "it ended inside an event" : "it ended before [DONE]");
	} else if (!r->s.finishes) { /* TEST06: exactly one finish; an empty stream has none */
		snprintf(f, len, "%s",
			 r->s.events ? "no finish: [DONE] came without a finish reason"
				     : "empty stream: [DONE] came with no token and no finish reason");
	} else if (r->s.finishes > 1) {
		snprintf(f, len, "malformed stream: %d finish reasons, not one", r->s.finishes);
	}
}

static void finish(struct pass *p, struct transfer *t, CURLcode code)
{
	t->res->end_s = lr_monotonic_s() - p->start;
	name_failure(p, t, code);
	curl_multi_remove_handle(p->multi, t->easy);
	if (p->nidle < p->o->concurrency) /* kept for the next: a new handle costs allocations and page faults */
		p->idle[p->nidle++] = t->easy;
	else
		curl_easy_cleanup(t->easy);
	lr_sse_release(&t->sse);
	t->easy = NULL;
	p->inflight--;
}

/* Take every transfer libcurl has ended. */
static void reap(struct pass *p)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(p->multi, &left)))
		if (m->msg == CURLMSG_DONE) {
			struct transfer *t = NULL;

			if (lr_sampler_done(p->sampler, m->easy_handle, m->data.result, lr_monotonic_s()))
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&t);
			finish(p, t, m->data.result);
		}
}

/*
 * End every stream sent timeout_s ago, or that no byte has reached for
 * stall_s (libcurl's low-speed limit averages over seconds). The timeout is
 * labrun's too, not libcurl's: a transfer with a timeout of its own stays in
 * libcurl's timer tree for its whole life, and every event of every stream
 * walks that tree.
 */
static void end_stalled(struct pass *p, struct transfer *ts, size_t n)
{
	double now = lr_monotonic_s();

	for (size_t i = 0; i < n; i++)
		if (ts[i].easy && p->o->timeout_s > 0 && now - ts[i].sent_at_s >= p->o->timeout_s)
			finish(p, &ts[i], CURLE_OPERATION_TIMEDOUT); /* named as libcurl's own timeout was */
		else if (ts[i].easy && p->o->stall_s > 0 && now - ts[i].last_byte_s >= p->o->stall_s) {
			snprintf(ts[i].res->s.failure, sizeof ts[i].res->s.failure, "stalled: no byte for %g s",
				 p->o->stall_s);
			finish(p, &ts[i], CURLE_OK);
		}
}

static void cancel_all(struct pass *p, struct transfer *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ts[i].easy) {
			snprintf(ts[i].res->s.failure, sizeof ts[i].res->s.failure,
				 "not collected: cancelled while streaming");
			finish(p, &ts[i], CURLE_OK);
		}
}

/* libcurl's sockets in the pass's epoll set, as it asks (CURLMOPT_SOCKETFUNCTION). */
static int on_socket(CURL *easy, curl_socket_t fd, int what, void *arg, void *sockp)
{
	struct pass *p = arg;
	struct epoll_event ev = { .events = 0, .data.fd = fd };

	(void)easy, (void)sockp;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(p->epfd, EPOLL_CTL_MOD, fd, &ev) && errno == ENOENT)
		return epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) ? -1 : 0;
	return 0;
}

/* When libcurl wants its own timeouts run (CURLMOPT_TIMERFUNCTION); ms -1: none. */
static int on_timeout(CURLM *multi, long ms, void *arg)
{
	struct pass *p = arg;

	(void)multi;
	p->curl_due = ms < 0 ? -1 : lr_monotonic_s() + (double)ms / 1e3;
	return 0;
}

/* libcurl's timeouts, when they are due: 0, or 1 when libcurl failed. */
static int run_timeouts(struct pass *p)
{
	int running;

	if (p->curl_due < 0 || lr_monotonic_s() < p->curl_due)
		return 0;
	p->curl_due = -1; /* on_timeout sets the next */
	return curl_multi_socket_action(p->multi, CURL_SOCKET_TIMEOUT, 0, &running) != CURLM_OK;
}

/*
 * Wait up to wait_ms for libcurl's sockets, and until the pass's second at_s
 * when it is not negative: that deadline by the timerfd, since epoll's
 * timeout counts whole milliseconds and a send would be up to a millisecond
 * late. Then hand each ready socket to libcurl: only the transfers that have
 * bytes run (curl_multi_perform would look at every transfer in flight),
 * until the arrival is due. 0, or 1 when libcurl failed.
 */
static int wait_and_run(struct pass *p, double at_s, double wait_ms)
{
	struct epoll_event ev[64];
	int n, running, failed = 0;
	uint64_t fired;

	if (at_s >= 0 && at_s != p->armed_s) {
		double t = p->start + at_s;
		struct itimerspec its = { .it_value = { (time_t)t, (long)((t - floor(t)) * 1e9) } };

		its.it_value.tv_nsec += !its.it_value.tv_sec && !its.it_value.tv_nsec; /* zero would disarm it */
		p->armed_s = timerfd_settime(p->timer, TFD_TIMER_ABSTIME, &its, NULL) ? -1 : at_s;
	}
	n = epoll_wait(p->epfd, ev, 64, (int)ceil(wait_ms) + (at_s >= 0)); /* the timer wakes it first */
	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd, mask = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
					       (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
					       (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

		if (fd == p->timer) {
			p->armed_s = read(p->timer, &fired, sizeof fired) < 0 ? p->armed_s : -1;
			continue;
		}
		failed |= curl_multi_socket_action(p->multi, fd, mask, &running) != CURLM_OK;
		if (at_s >= 0 && lr_monotonic_s() - p->start >= at_s)
			break; /* an arrival is due: the sockets left stay ready for the next wait */
	}
	return failed | run_timeouts(p);
}

/* The pass's multi handle driven through epoll and a timer: 0, or an error. */
static int pass_open(struct pass *p)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!(p->multi = curl_multi_init()) || !(p->idle = calloc((size_t)p->o->concurrency, sizeof *p->idle)) ||
	    !(p->headers = curl_slist_append(NULL, "Content-Type: application/json")) ||
	    !(p->headers = curl_slist_append(p->headers, "Accept: text/event-stream")))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((p->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (p->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    (ev.data.fd = p->timer, epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->timer, &ev)))
		return lr_error_set(LR_EIO, "cannot start the HTTP client's loop: %s", strerror(errno));
	curl_multi_setopt(p->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(p->multi, CURLMOPT_SOCKETDATA, p);
	curl_multi_setopt(p->multi, CURLMOPT_TIMERFUNCTION, on_timeout);
	curl_multi_setopt(p->multi, CURLMOPT_TIMERDATA, p);
	return 0;
}

static void pass_close(struct pass *p)
{
	if (p->multi) { /* the handles and headers came after it */
		while (p->nidle)
			curl_easy_cleanup(p->idle[--p->nidle]);
		curl_slist_free_all(p->headers);
		curl_multi_cleanup(p->multi);
	}
	free(p->idle);
	if (p->timer >= 0)
		close(p->timer);
	if (p->epfd >= 0)
		close(p->epfd);
}

/* What is left to do after the sockets ran: ended transfers taken, stalled ones ended (every LR_STALL_SCAN). */
static void tidy(struct pass *p, struct transfer *ts, size_t next)
{
	reap(p);
	while (p->first < next && !ts[p->first].easy)
		p->first++;
	if (lr_monotonic_s() >= p->stall_check) {
		end_stalled(p, ts + p->first, next - p->first);
		p->stall_check = lr_monotonic_s() + LR_STALL_SCAN;
	}
}

int lr_client_run(const struct lr_client_opts *o, const struct lr_request *req, size_t n, struct lr_result *res,
		  double *startp, int *cancelled)
{
	struct transfer *ts = calloc(n ? n : 1, sizeof *ts);
	struct pass p = { .o = o, .epfd = -1, .timer = -1, .armed_s = -1, .curl_due = -1 };
	struct lr_progress *progress;
	size_t next = 0;
	int rc = 0;

	*cancelled = 0;
	memset(res, 0, n * sizeof *res);
	for (size_t i = 0; i < n; i++)
		lr_stream_init(&res[i].s);
	if (!ts)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_curl_load()) || (rc = pass_open(&p))) {
		pass_close(&p);
		free(ts);
		return rc;
	}
	*startp = p.start = lr_monotonic_s();
	if (o->metrics_url && (rc = lr_sampler_start(&p.sampler, p.multi, o->metrics_url, o->gauge_running,
						     o->gauge_waiting, o->sample_s, p.start))) {
		pass_close(&p);
		free(ts);
		return rc;
	}
	progress = lr_progress_start("ended", "requests", (int64_t)n);
	while (!rc && (next < n || p.inflight)) {
		double now = lr_monotonic_s() - p.start, wait_ms = LR_POLL_MS;
		int arrival;

		if (o->cancel && atomic_load(o->cancel)) {
			*cancelled = 1;
			break;
		}
		if (p.sampler)
			lr_sampler_tick(p.sampler, lr_monotonic_s());
		while (!rc && next < n && p.inflight < o->concurrency && req[next].at_s <= now) {
			rc = start(&p, &ts[next], &req[next], &res[next]);
			next++;
		}
		if (rc || run_timeouts(&p)) { /* a request just added is started in its timeout */
			rc = rc ? rc : lr_error_set(LR_EIO, "the HTTP client failed");
			break;
		}
		tidy(&p, ts, next);
		if (p.sampler)
			wait_ms = fmin(wait_ms, lr_sampler_wait(p.sampler, lr_monotonic_s()) * 1e3);
		if (p.curl_due >= 0)
			wait_ms = fmin(wait_ms, fmax(0, (p.curl_due - lr_monotonic_s()) * 1e3));
		if ((arrival = next < n && p.inflight < o->concurrency)) /* sleep no longer than the next arrival */
			wait_ms = fmin(wait_ms, fmax(0, (req[next].at_s - (lr_monotonic_s() - p.start)) * 1e3));
		if ((next < n || p.inflight) && wait_and_run(&p, arrival ? req[next].at_s : -1, wait_ms))
			rc = lr_error_set(LR_EIO, "the HTTP client failed");
		tidy(&p, ts, next);
		lr_progress_update(progress, (int64_t)(next - (size_t)p.inflight));
	}
	lr_progress_stop(&progress);
	cancel_all(&p, ts, next);
	if (p.sampler)
		lr_sampler_stop(p.sampler, o->samples, o->nsamples);
	for (size_t i = next; i < n; i++)
		snprintf(res[i].s.failure, sizeof res[i].s.failure, "not sent: %s",
			 rc ? "the client failed" : "cancelled");
	pass_close(&p);
	free(ts);
	return rc;
}

void lr_result_release(struct lr_result *r)
{
	lr_stream_release(&r->s);
}

struct get_body {
	struct lr_buf body;
	char *server;
};

static size_t get_write(char *data, size_t size, size_t n, void *arg)
{
	struct get_body *b = arg;
	size_t len = size * n;

	if (b->body.len + len > ((size_t)1 << 20))
		return 0;
	lr_buf_add(&b->body, data, len);
	return b->body.failed ? 0 : len; /* 0 stops curl; lr_client_get reports the failure */
}

static size_t get_header(char *data, size_t size, size_t n, void *arg)
{
	struct get_body *b = arg;
	size_t len = size * n, i, k = 0;

	if (len > 7 && !strncasecmp(data, "server:", 7)) {
		for (i = 7; i < len && data[i] == ' '; i++)
			;
		for (; i < len && k < 127 && data[i] >= ' ' && data[i] < 0x7f; i++)
			b->server[k++] = data[i];
		b->server[k] = '\0';
	}
	return len;
}

int lr_client_get(const char *url, double timeout_s, long *status, char **body, char server[128])
{
	struct get_body b = { LR_BUF_INIT, server };
	CURLcode code;
	CURL *e;
	int rc;

	*body = NULL;
	*status = 0;
	server[0] = '\0';
	if ((rc = lr_curl_load()))
		return rc;
	if (!(e = curl_easy_init()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, get_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, get_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, &b);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1e3));
	code = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(e);
	if (code != CURLE_OK) {
		if (!(rc = lr_buf_error(&b.body)))
			rc = lr_error_set(LR_EIO, "cannot GET '%s': %s", url, curl_easy_strerror(code));
		lr_buf_release(&b.body);
		return rc;
	}
	return (*body = lr_buf_detach(&b.body, NULL)) ? 0 : LR_ENOMEM;
}

/* The port after ':' (at most 'n' bytes): 1 when it is 1-65535. */
static int good_port(const char *s, size_t n)
{
	long v = 0;

	if (!n || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535;
}

const char *lr_url_problem(const char *url)
{
	const char *h, *auth_end, *colon;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return "an http:// or https:// URL, such as http://127.0.0.1:8000/v1";
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return "a URL without blanks or control characters (write a blank as %20)";
	if (strpbrk(url, "?#"))
		return "a URL without ?query or #fragment (labrun appends /completions or reads it as it is)";
	h = strstr(url, "://") + 3;
	auth_end = h + strcspn(h, "/");
	if (memchr(h, '@', (size_t)(auth_end - h)))
		return "a URL without user:password@: labrun sends no credentials and would record them with the "
		       "command; reach a server that needs none (e.g. through a local proxy that adds them)";
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(auth_end - h));

		if (!close || close == h + 1)
			return "a URL with a host, such as http://[::1]:8000/v1";
		colon = close + 1 < auth_end ? close + 1 : NULL;
		if (colon && *colon != ':')
			return "a URL with a host, such as http://[::1]:8000/v1";
	} else {
		colon = memchr(h, ':', (size_t)(auth_end - h));
		if ((colon ? colon : auth_end) == h)
			return "a URL with a host, such as http://127.0.0.1:8000/v1";
	}
	if (colon && !good_port(colon + 1, (size_t)(auth_end - colon - 1)))
		return "a URL whose port is a number from 1 to 65535";
	return NULL;
}
