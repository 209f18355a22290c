/* The streaming HTTP client on libcurl's multi interface (client.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "record/redact.h"
#include "serving/client.h"
#include "serving/curl.h"

#define LR_ERROR_BODY 512 /* bytes of an HTTP error's body kept for its failure */
#define LR_POLL_MS    100 /* the longest wait, so a cancel is seen soon */

struct transfer {
	CURL *easy;
	struct curl_slist *headers;
	struct lr_result *res;
	const struct lr_request *req;
	struct lr_sse sse;
	char errbody[LR_ERROR_BODY + 1];
	size_t errlen;
	int failed;         /* the write callback stopped the transfer, res->s.failure says why */
	int sse_seen;       /* the body's first bytes were looked at */
	int not_sse;        /* a 2xx whose body is no event stream (HTML, JSON, gzip): kept like an error's */
	double last_byte_s; /* when a byte last came (or it was sent), lr_monotonic_s's clock */
};

struct pass {
	const struct lr_client_opts *o;
	CURLM *multi;
	struct lr_sampler *sampler; /* or NULL */
	double start;
	int inflight;
};

static int on_event(void *arg, const char *data, size_t len)
{
	struct transfer *t = arg;

	return lr_stream_event(&t->res->s, data, len, lr_monotonic_s());
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
	curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
	t->res->status = status;
	if (!t->errlen && !t->not_sse && !t->sse_seen && status >= 200 && status <= 299)
		t->not_sse = not_a_stream(t->easy, data, len);
	t->sse_seen = 1;
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
	if (!(t->easy = curl_easy_init()) ||
	    !(t->headers = curl_slist_append(NULL, "Content-Type: application/json")) ||
	    !(t->headers = curl_slist_append(t->headers, "Accept: text/event-stream")))
		return lr_error_set(LR_ENOMEM, "out of memory for a request");
	curl_easy_setopt(t->easy, CURLOPT_URL, req->url);
	curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, req->body);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
	curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https"); /* a redirect never leaves HTTP */
	if (o->timeout_s > 0)
		curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1e3));
	if (curl_multi_add_handle(p->multi, t->easy) != CURLM_OK)
		return lr_error_set(LR_EIO, "cannot start a request to '%s'", req->url);
	res->sent = 1;
	t->last_byte_s = lr_monotonic_s();
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
	curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->headers);
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

/* End every stream no byte has reached for stall_s (libcurl's low-speed limit averages over seconds). */
static void end_stalled(struct pass *p, struct transfer *ts, size_t n)
{
	double now = lr_monotonic_s();

	if (!(p->o->stall_s > 0))
		return;
	for (size_t i = 0; i < n; i++)
		if (ts[i].easy && now - ts[i].last_byte_s >= p->o->stall_s) {
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

int lr_client_run(const struct lr_client_opts *o, const struct lr_request *req, size_t n, struct lr_result *res,
		  double *startp, int *cancelled)
{
	struct transfer *ts = calloc(n ? n : 1, sizeof *ts);
	struct pass p = { o, NULL, NULL, 0, 0 };
	struct lr_progress *progress;
	size_t next = 0;
	int rc = 0, running = 0;

	*cancelled = 0;
	memset(res, 0, n * sizeof *res);
	for (size_t i = 0; i < n; i++)
		lr_stream_init(&res[i].s);
	if (!ts)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_curl_load()) || !(p.multi = curl_multi_init())) {
		free(ts);
		return rc ? rc : lr_error_set(LR_ENOMEM, "out of memory");
	}
	*startp = p.start = lr_monotonic_s();
	if (o->metrics_url && (rc = lr_sampler_start(&p.sampler, p.multi, o->metrics_url, o->gauge_running,
						     o->gauge_waiting, o->sample_s, p.start))) {
		curl_multi_cleanup(p.multi);
		free(ts);
		return rc;
	}
	progress = lr_progress_start("ended", "requests", (int64_t)n);
	while (!rc && (next < n || p.inflight)) {
		double now = lr_monotonic_s() - p.start, wait_ms = LR_POLL_MS;

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
		if (rc || curl_multi_perform(p.multi, &running) != CURLM_OK) {
			rc = rc ? rc : lr_error_set(LR_EIO, "the HTTP client failed");
			break;
		}
		reap(&p);
		end_stalled(&p, ts, next);
		lr_progress_update(progress, (int64_t)(next - (size_t)p.inflight));
		if (p.sampler)
			wait_ms = fmin(wait_ms, lr_sampler_wait(p.sampler, lr_monotonic_s()) * 1e3);
		if (next < n && p.inflight < o->concurrency) /* sleep no longer than the next arrival */
			wait_ms = fmin(wait_ms, fmax(0, (req[next].at_s - (lr_monotonic_s() - p.start)) * 1e3));
		if (next < n || p.inflight)
			curl_multi_poll(p.multi, NULL, 0, (int)ceil(wait_ms), NULL);
	}
	lr_progress_stop(&progress);
	cancel_all(&p, ts, next);
	if (p.sampler)
		lr_sampler_stop(p.sampler, o->samples, o->nsamples);
	for (size_t i = next; i < n; i++)
		snprintf(res[i].s.failure, sizeof res[i].s.failure, "not sent: %s",
			 rc ? "the client failed" : "cancelled");
	curl_multi_cleanup(p.multi);
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
