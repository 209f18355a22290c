/* A bucket of an S3-compatible store: requests signed by libcurl, retried on 500, 503 and SlowDown (s3.h). */
#include "config.h"
#include "base/system.h"

#include <expat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>

#include "base/curl.h"
#include "base/error.h"
#include "base/buf.h"
#include "store/objects.h"
#include "store/s3-int.h"

#define LIST_BODY (16 << 20) /* bytes of one page of a listing */
#define TRIES     5          /* attempts of a request that meets 500, 503 or SlowDown */

/* ---- XML: the text of elements by name (expat) ---- */

struct xml {
	void (*fn)(void *arg, const char *name, const char *text);
	void *arg;
	char text[2048];
	size_t n;
};

static void XMLCALL xml_start(void *arg, const XML_Char *name, const XML_Char **attrs)
{
	(void)name, (void)attrs;
	((struct xml *)arg)->n = 0;
}

static void XMLCALL xml_chars(void *arg, const XML_Char *s, int len)
{
	struct xml *x = arg;
	size_t k = (size_t)len < sizeof x->text - 1 - x->n ? (size_t)len : sizeof x->text - 1 - x->n;

	memcpy(x->text + x->n, s, k);
	x->n += k;
}

static void XMLCALL xml_end(void *arg, const XML_Char *name)
{
	struct xml *x = arg;

	x->text[x->n] = '\0';
	x->fn(x->arg, name, x->text);
	x->n = 0;
}

/* Call fn for every element's name and text (cut at 2 KiB); 0, or -1 when it is not XML. */
int lr_s3_xml_each(const char *body, size_t len, void (*fn)(void *, const char *, const char *), void *arg)
{
	struct xml x = { fn, arg, "", 0 };
	XML_Parser p = XML_ParserCreate("UTF-8");
	int ok;

	if (!p)
		return -1;
	XML_SetUserData(p, &x);
	XML_SetElementHandler(p, xml_start, xml_end);
	XML_SetCharacterDataHandler(p, xml_chars);
	ok = XML_Parse(p, body, (int)len, 1) == XML_STATUS_OK;
	XML_ParserFree(p);
	return ok ? 0 : -1;
}

struct s3_error {
	char code[128], message[512];
};

static void on_error_field(void *arg, const char *name, const char *text)
{
	struct s3_error *e = arg;

	if (!strcmp(name, "Code"))
		lr_visible(e->code, sizeof e->code, text);
	else if (!strcmp(name, "Message"))
		lr_visible(e->message, sizeof e->message, text);
}

/* ---- requests ---- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct req *q = arg;
	size_t n = size * nmemb;

	if (q->status < 200 || q->status > 299 || !q->sink) {
		size_t k = n < sizeof q->err - 1 - q->errlen ? n : sizeof q->err - 1 - q->errlen;

		memcpy(q->err + q->errlen, data, k);
		q->errlen += k;
		return n;
	}
	if (q->max >= 0 && q->got + (int64_t)n > q->max) {
		q->sink_rc = lr_error_set(LR_EINVAL, "'%s' is larger than %lld bytes", q->key ? q->key : "a listing",
					  (long long)q->max);
		return 0;
	}
	q->got += (int64_t)n;
	return (q->sink_rc = q->sink(q->arg, data, n)) ? 0 : n;
}

/*
 * The headers are in: acknowledge them now. A server that writes its headers and then a short body
 * without TCP_NODELAY (RADOS Gateway's default) holds the body back until this side ACKs the
 * headers, which Linux delays up to 40 ms: a pull of many small keys then waits 40 ms a key. Setting
 * TCP_QUICKACK sends the pending ACK at once. Best effort: nothing else depends on it. The socket is
 * the one libcurl said it opened (on_socket) and has not closed (on_close).
 */
static void ack_now(const struct lr_s3 *s)
{
#ifdef TCP_QUICKACK
	int one = 1;

	if (s->sock >= 0 && setsockopt(s->sock, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) != 0)
		errno = 0;
#else
	(void)s;
#endif
}

static int on_socket(void *arg, curl_socket_t fd, curlsocktype purpose)
{
	if (purpose == CURLSOCKTYPE_IPCXN)
		((struct lr_s3 *)arg)->sock = fd;
	return CURL_SOCKOPT_OK;
}

static int on_close(void *arg, curl_socket_t fd)
{
	struct lr_s3 *s = arg;

	if (s->sock == fd)
		s->sock = -1;
	return close(fd);
}

/* The status is known before the body: taken from the status line. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct req *q = arg;
	size_t n = size * nmemb;
	int major, minor, code;

	if (n > 9 && !strncmp(data, "HTTP/", 5) && sscanf(data, "HTTP/%d.%d %d", &major, &minor, &code) >= 3)
		q->status = code;
	else if (n > 5 && !strncasecmp(data, "ETag:", 5)) /* a part's, which completing the upload names */
		snprintf(q->etag, sizeof q->etag, "%.*s", (int)strcspn(data + 5 + strspn(data + 5, " "), "\r\n"),
			 data + 5 + strspn(data + 5, " "));
	else if (n > 9 && !strncmp(data, "HTTP/2 ", 7))
		q->status = strtol(data + 7, NULL, 10);
	else if (n == 2 && !memcmp(data, "\r\n", 2))
		ack_now(q->s3);
	return n;
}

static size_t on_read(char *out, size_t size, size_t nmemb, void *arg)
{
	struct req *q = arg;
	const struct lr_s3_body *b = q->body;
	size_t n = size * nmemb;
	ssize_t got;

	if (b->fd < 0) {
		n = n < b->len - q->off ? n : b->len - q->off;
		memcpy(out, (const char *)b->data + q->off, n);
		q->off += n;
		return n;
	}
	while ((got = read(b->fd, out, n)) < 0 && errno == EINTR)
		;
	if (got > 0 && q->key && !q->query) /* an object's bytes, not an upload's part */
		lr_obj_step(q->key, (int64_t)(q->off += (size_t)got), b->size);
	return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
}

/* The request's URL: path style ENDPOINT/BUCKET/PREFIXKEY, else SCHEME://BUCKET.HOST/PREFIXKEY. */
static void url(const struct lr_s3 *s, const struct req *q, char *out, size_t size)
{
	const char *host = strstr(s->c.endpoint, "://") + 3;
	int n;

	if (s->c.path_style) /* the bucket itself is /BUCKET, with no slash after it */
		n = snprintf(out, size, "%s/%s%s", s->c.endpoint, s->c.bucket, q->key ? "/" : "");
	else
		n = snprintf(out, size, "%.*s%s.%s/", (int)(host - s->c.endpoint), s->c.endpoint, s->c.bucket, host);
	if (q->key)
		snprintf(out + n, size - (size_t)n, "%s%s", s->c.prefix, q->key);
	if (q->query)
		snprintf(out + strlen(out), size - strlen(out), "?%s", q->query);
}

static struct curl_slist *headers(const struct lr_s3 *s, const struct req *q)
{
	struct curl_slist *h = NULL;
	char line[4200];

	snprintf(line, sizeof line, "x-amz-content-sha256: %s", q->body ? q->body->sha256 : EMPTY_SHA256);
	h = curl_slist_append(h, line);
	if (s->c.token[0]) {
		snprintf(line, sizeof line, "x-amz-security-token: %s", s->c.token);
		h = curl_slist_append(h, line);
	}
	if (!strcmp(q->method, "POST")) /* not a form: a server would read the body as one */
		h = curl_slist_append(h, "Content-Type: application/xml");
	/* no "Expect:" to turn 100-continue off: libcurl would sign the header it then leaves out */
	return q->only_new ? curl_slist_append(h, "If-None-Match: *") : h;
}

/* One attempt: 0 with q->status set, or a libcurl code. */
static CURLcode attempt(struct lr_s3 *s, struct req *q, struct curl_slist *h)
{
	char u[2048];
	CURLcode cc;

	url(s, q, u, sizeof u);
	q->status = 0;
	q->errlen = 0;
	q->off = 0;
	if (q->body && q->body->fd >= 0 && lseek(q->body->fd, 0, SEEK_SET) < 0)
		return CURLE_READ_ERROR;
	curl_easy_reset(s->easy);
	curl_easy_setopt(s->easy, CURLOPT_URL, u);
	curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(s->easy, CURLOPT_LOW_SPEED_LIMIT, 1L); /* a stalled transfer ends after a minute */
	curl_easy_setopt(s->easy, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(s->easy, CURLOPT_AWS_SIGV4, s->sigv4);
	curl_easy_setopt(s->easy, CURLOPT_USERNAME, s->c.key_id);
	curl_easy_setopt(s->easy, CURLOPT_PASSWORD, s->c.secret);
	curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(s->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(s->easy, CURLOPT_HEADERDATA, q);
	q->s3 = s;
	curl_easy_setopt(s->easy, CURLOPT_SOCKOPTFUNCTION, on_socket);
	curl_easy_setopt(s->easy, CURLOPT_SOCKOPTDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETFUNCTION, on_close);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, q);
	if (!strcmp(q->method, "HEAD"))
		curl_easy_setopt(s->easy, CURLOPT_NOBODY, 1L);
	else if (!strcmp(q->method, "DELETE"))
		curl_easy_setopt(s->easy, CURLOPT_CUSTOMREQUEST, "DELETE");
	if (!strcmp(q->method, "POST")) {
		curl_easy_setopt(s->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, q->body->data);
		curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->body->len);
	} else if (q->body) {
		curl_easy_setopt(s->easy, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(s->easy, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(s->easy, CURLOPT_READDATA, q);
		curl_easy_setopt(s->easy, CURLOPT_INFILESIZE_LARGE,
				 (curl_off_t)(q->body->fd >= 0 ? q->body->size : (int64_t)q->body->len));
	}
	if ((cc = curl_easy_perform(s->easy)) == CURLE_OK) {
		curl_off_t len = -1;

		curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &q->status);
		curl_easy_getinfo(s->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
		q->size = (int64_t)len;
	}
	return cc;
}

/* Whether a finished attempt is worth another: the service said so (500, 503, SlowDown) or never answered. */
static int transient(const struct req *q, CURLcode cc)
{
	struct s3_error e = { "", "" };

	if (q->got) /* bytes were handed on: a retry would repeat them */
		return 0;
	if (cc != CURLE_OK)
		return cc == CURLE_COULDNT_CONNECT || cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR ||
		       cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE || cc == CURLE_OPERATION_TIMEDOUT;
	if (q->status == 500 || q->status == 503)
		return 1;
	lr_s3_xml_each(q->err, q->errlen, on_error_field, &e);
	return !strcmp(e.code, "SlowDown");
}

/* Name what failed: the service's code and message, the key id that signed it (never the secret). */
int lr_s3_failed(struct lr_s3 *s, const struct req *q, const char *what, int cc)
{
	struct s3_error e = { "", "" };

	if (q->sink_rc)
		return q->sink_rc;
	if (cc != CURLE_OK) {
		lr_error_set(LR_ESTORE, "cannot %s on remote '%s' (%s): %s", what, s->name, s->where,
			     curl_easy_strerror((CURLcode)cc));
		lr_error_hint("is the endpoint right and the service up? 'labrun remote list' shows the URI");
		return LR_ESTORE;
	}
	lr_s3_xml_each(q->err, q->errlen, on_error_field, &e);
	lr_error_set(LR_ESTORE, "cannot %s on remote '%s' (%s): HTTP %ld%s%s%s%s (signed with access key %s from %s)",
		     what, s->name, s->where, q->status, e.code[0] ? ", " : "", e.code, e.message[0] ? ": " : "",
		     e.message, s->c.key_id, s->c.source);
	if (!strcmp(e.code, "NoSuchBucket"))
		lr_error_hint("create bucket '%s' first (for example with the service's console or 'aws s3 mb')",
			      s->c.bucket);
	else if (!strcmp(e.code, "SignatureDoesNotMatch") || !strcmp(e.code, "InvalidAccessKeyId"))
		lr_error_hint("check the secret that goes with access key %s, and the region; labrun never stores it",
			      s->c.key_id);
	else if (q->status == 403)
		lr_error_hint("access key %s may lack a permission on bucket '%s'", s->c.key_id, s->c.bucket);
	return LR_ESTORE;
}

/* Run a request, retried with backoff (0.1 s doubling) while it meets what is worth retrying. */
int lr_s3_perform(struct lr_s3 *s, struct req *q, const char *what)
{
	struct curl_slist *h = headers(s, q);
	CURLcode cc = CURLE_OK;

	if (!h)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (int i = 0; i < TRIES; i++) {
		long ms = 100L << i;
		struct timespec pause = { ms / 1000, ms % 1000 * 1000000L };

		if (i)
			nanosleep(&pause, NULL);
		cc = attempt(s, q, h);
		if (!transient(q, cc))
			break;
	}
	curl_slist_free_all(h);
	if (cc == CURLE_OK && !q->sink_rc && q->status >= 200 && q->status <= 299)
		return 0;
	if (cc == CURLE_OK && !q->sink_rc && (q->status == 404 || q->status == 412)) {
		struct s3_error e = { "", "" };

		lr_s3_xml_each(q->err, q->errlen, on_error_field, &e);
		if (strcmp(e.code, "NoSuchBucket")) /* the caller's to judge */
			return 0;
	}
	return lr_s3_failed(s, q, what, cc);
}

/* ---- the interface ---- */

int lr_s3_open(struct lr_s3 **out, const char *name, const char *uri)
{
	struct lr_s3 *s;
	int rc;

	*out = NULL;
	if ((rc = lr_curl_load()))
		return rc;
	if ((s = calloc(1, sizeof *s)))
		s->sock = -1;
	if (!s || !(s->name = strdup(name)) || !(s->easy = curl_easy_init())) {
		lr_s3_free(s);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if ((rc = lr_s3_conf_read(name, uri, &s->c))) {
		lr_s3_free(s);
		return rc;
	}
	snprintf(s->sigv4, sizeof s->sigv4, "aws:amz:%s:s3", s->c.region);
	snprintf(s->where, sizeof s->where, "bucket '%s'%s%s%s at %s", s->c.bucket, s->c.prefix[0] ? ", prefix '" : "",
		 s->c.prefix, s->c.prefix[0] ? "'" : "", s->c.endpoint);
	*out = s;
	return 0;
}

void lr_s3_free(struct lr_s3 *s)
{
	if (!s)
		return;
	if (s->easy)
		curl_easy_cleanup(s->easy);
	explicit_bzero(s->c.secret, sizeof s->c.secret);
	explicit_bzero(s->c.token, sizeof s->c.token);
	free(s->name);
	free(s);
}

int lr_s3_open_object(struct lr_s3 **out, const char *who, const char *uri, char *key, size_t size)
{
	const char *q = uri + strcspn(uri, "?"), *name = q;
	char *base = NULL, *shown = NULL;
	int rc;

	*out = NULL;
	while (name > uri && name[-1] != '/')
		name--;
	if (strchr(uri, '@')) /* not repeated: it may hold a secret */
		return lr_error_set(LR_EINVAL, "%s: the URI holds a user or a secret; credentials never go in it", who);
	if (strncmp(uri, "s3://", 5) || name <= uri + 5 || name == q || (size_t)(q - name) >= size ||
	    strspn(name, PREFIX_CHARS) < (size_t)(q - name)) {
		lr_error_set(LR_EINVAL, "%s: '%.*s' is not the URI of an object in a bucket", who, (int)(q - uri), uri);
		lr_error_hint(
			"s3://BUCKET/PREFIX/NAME?endpoint=URL&region=R, NAME of letters, digits, '.', '_' and '-' "
			"(as 'labrun archive --to' prints it)");
		return LR_EINVAL;
	}
	snprintf(key, size, "%.*s", (int)(q - name), name);
	if (asprintf(&base, "%.*s%s", (int)(name - uri - 1), uri, q) < 0)
		base = NULL;
	if (!base || !(shown = strndup(uri, (size_t)(name - uri - 1)))) { /* messages name the bucket and prefix */
		free(base);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	rc = lr_s3_open(out, shown, base);
	free(shown);
	free(base);
	return rc;
}

int lr_s3_uri_of(const struct lr_s3 *s, const char *key, char **uri)
{
	if (asprintf(uri, "s3://%s/%s%s?endpoint=%s&region=%s&style=%s", s->c.bucket, s->c.prefix, key, s->c.endpoint,
		     s->c.region, s->c.path_style ? "path" : "virtual") < 0) {
		*uri = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	return 0;
}

const char *lr_s3_where(const struct lr_s3 *s)
{
	return s->where;
}

const char *lr_s3_key_id(const struct lr_s3 *s)
{
	return s->c.key_id;
}

int lr_s3_put(struct lr_s3 *s, const char *key, const struct lr_s3_body *b, int only_new, int *exists)
{
	struct req q = { .method = "PUT", .key = key, .body = b, .only_new = only_new, .max = -1 };
	char what[600];
	int rc;

	*exists = 0;
	snprintf(what, sizeof what, "write '%s'", key);
	if ((rc = lr_s3_perform(s, &q, what)))
		return rc;
	if (q.status == 412 && only_new) {
		*exists = 1;
		return 0;
	}
	return q.status == 404 ? lr_s3_failed(s, &q, what, CURLE_OK) : 0;
}

int lr_s3_head(struct lr_s3 *s, const char *key, int *found, int64_t *size)
{
	struct req q = { .method = "HEAD", .key = key, .max = -1 };
	char what[600];
	int rc;

	*found = 0;
	*size = 0;
	snprintf(what, sizeof what, "look for '%s'", key);
	if ((rc = lr_s3_perform(s, &q, what)) || q.status == 404)
		return rc;
	if (q.size < 0) { /* every size read from a bucket bounds what is taken: one it does not say bounds nothing */
		lr_error_set(LR_ESTORE, "cannot %s on %s: the service did not say its size (no Content-Length)", what,
			     lr_s3_where(s));
		lr_error_hint(
			"an S3 service answers HEAD with the object's Content-Length; is the endpoint an S3 service?");
		return LR_ESTORE;
	}
	*found = 1;
	*size = q.size;
	return 0;
}

int lr_s3_get(struct lr_s3 *s, const char *key, int64_t max, lr_s3_sink_fn sink, void *arg, int *found)
{
	struct req q = { .method = "GET", .key = key, .sink = sink, .arg = arg, .max = max };
	char what[600];
	int rc;

	*found = 0;
	snprintf(what, sizeof what, "read '%s'", key);
	if ((rc = lr_s3_perform(s, &q, what)) || q.status == 404)
		return rc;
	*found = 1;
	return 0;
}

/* ---- listing ---- */

struct page {
	struct lr_buf xml;
	lr_s3_key_fn fn;
	void *arg;
	size_t skip; /* the prefix's length */
	char next[1200];
	int truncated, rc;
};

int lr_s3_to_buf(void *arg, const void *data, size_t len)
{
	lr_buf_add(arg, data, len);
	return lr_buf_error(arg);
}

static void on_list_field(void *arg, const char *name, const char *text)
{
	struct page *p = arg;

	if (!strcmp(name, "Key") && !p->rc && strlen(text) > p->skip)
		p->rc = p->fn(p->arg, text + p->skip);
	else if (!strcmp(name, "IsTruncated"))
		p->truncated = !strcmp(text, "true");
	else if (!strcmp(name, "NextContinuationToken"))
		snprintf(p->next, sizeof p->next, "%s", text);
}

/* One page of ListObjectsV2 (up to 'max_keys' keys), its keys to p->fn. */
static int list_page(struct lr_s3 *s, const char *sub, int max_keys, struct page *p)
{
	char prefix[1100], query[4096], *ep = NULL, *et = NULL;
	struct req q = { .method = "GET", .sink = lr_s3_to_buf, .arg = &p->xml, .max = LIST_BODY };
	int rc;

	snprintf(prefix, sizeof prefix, "%s%s", s->c.prefix, sub);
	if (!(ep = curl_easy_escape(s->easy, prefix, 0)) ||
	    (p->next[0] && !(et = curl_easy_escape(s->easy, p->next, 0))))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else {
		/* in name order, as the signature's canonical query has them: libcurl signs the query as given */
		snprintf(query, sizeof query, "%s%s%slist-type=2&max-keys=%d&prefix=%s",
			 et ? "continuation-token=" : "", et ? et : "", et ? "&" : "", max_keys, ep);
		q.query = query;
		lr_buf_reset(&p->xml);
		p->next[0] = '\0';
		p->truncated = 0;
		rc = lr_s3_perform(s, &q, "list the bucket");
	}
	curl_free(ep);
	curl_free(et);
	if (!rc && q.status == 404)
		rc = lr_s3_failed(s, &q, "list the bucket", CURLE_OK);
	if (!rc && lr_s3_xml_each(p->xml.buf, p->xml.len, on_list_field, p))
		rc = lr_error_set(LR_ESTORE, "remote '%s' (%s) answered a listing that is not XML", s->name, s->where);
	return rc ? rc : p->rc;
}

int lr_s3_list(struct lr_s3 *s, const char *sub, lr_s3_key_fn fn, void *arg)
{
	struct page p = { LR_BUF_INIT, fn, arg, strlen(s->c.prefix), "", 0, 0 };
	int rc;

	do
		rc = list_page(s, sub, 1000, &p);
	while (!rc && p.truncated && p.next[0]);
	lr_buf_release(&p.xml);
	return rc;
}

static int any_key(void *arg, const char *key)
{
	(void)arg, (void)key;
	return 0;
}

int lr_s3_check(struct lr_s3 *s)
{
	struct page p = { LR_BUF_INIT, any_key, NULL, strlen(s->c.prefix), "", 0, 0 };
	int rc = list_page(s, "", 1, &p);

	lr_buf_release(&p.xml);
	return rc;
}
