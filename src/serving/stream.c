/* Server-sent events and streamed completions, taken apart (stream.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/jsonscan.h"
#include "base/list.h"
#include "serving/stream.h"

/* ---- server-sent events ------------------------------------------------------------------ */

void lr_sse_init(struct lr_sse *p, size_t max)
{
	memset(p, 0, sizeof *p);
	p->max = max;
}

void lr_sse_release(struct lr_sse *p)
{
	free(p->line);
	free(p->data);
	memset(p, 0, sizeof *p);
}

int lr_sse_pending(const struct lr_sse *p)
{
	return p->len > 0 || p->has_data;
}

static int too_long(const struct lr_sse *p)
{
	return lr_error_set(LR_EINVAL, "an event longer than %zu bytes", p->max);
}

/* One complete line (without its end): a field, a comment, or the blank line that ends an event. */
static int line(struct lr_sse *p, const char *text, size_t len, lr_sse_fn fn, void *arg)
{
	const char *v;
	size_t n;
	int rc;

	if (!len) {
		if (!p->has_data)
			return 0;
		p->data[p->dlen] = '\0';
		rc = fn(arg, p->data, p->dlen);
		p->dlen = 0;
		p->has_data = 0;
		return rc;
	}
	if (len < 5 || memcmp(text, "data:", 5))
		return 0; /* a comment (":..."), or a field labrun does not use (event, id, retry) */
	v = text + 5;
	n = len - 5;
	if (n && *v == ' ')
		v++, n--;
	if (p->dlen + n + 2 > p->max)
		return too_long(p);
	if ((rc = LR_ALLOC_GROW(p->data, p->dlen + n + 2, p->dcap)))
		return rc;
	if (p->has_data)
		p->data[p->dlen++] = '\n';
	memcpy(p->data + p->dlen, v, n);
	p->dlen += n;
	p->has_data = 1;
	return 0;
}

/* Bytes of a line that has not ended yet, kept until it does. */
static int hold(struct lr_sse *p, const char *b, size_t n)
{
	int rc;

	if (p->len + n > p->max)
		return too_long(p);
	if ((rc = LR_ALLOC_GROW(p->line, p->len + n, p->cap)))
		return rc;
	memcpy(p->line + p->len, b, n);
	p->len += n;
	return 0;
}

int lr_sse_feed(struct lr_sse *p, const char *bytes, size_t n, lr_sse_fn fn, void *arg)
{
	const char *b = bytes, *end = bytes + n;
	int rc;

	while (b < end) {
		const char *eol, *cr;

		if (p->cr) { /* the LF of a CRLF */
			p->cr = 0;
			if (*b == '\n' && ++b == end)
				break;
		}
		eol = memchr(b, '\n', (size_t)(end - b));
		if ((cr = memchr(b, '\r', (size_t)((eol ? eol : end) - b))))
			eol = cr;
		if (!eol)
			return hold(p, b, (size_t)(end - b));
		if (p->len) { /* the line began in an earlier feed */
			if ((rc = hold(p, b, (size_t)(eol - b))))
				return rc;
			rc = line(p, p->line, p->len, fn, arg);
			p->len = 0;
		} else if ((size_t)(eol - b) > p->max) {
			return too_long(p);
		} else {
			rc = line(p, b, (size_t)(eol - b), fn, arg);
		}
		if (rc)
			return rc;
		p->cr = *eol == '\r';
		b = eol + 1;
	}
	return 0;
}

/* ---- one streamed completion ------------------------------------------------------------- */

void lr_stream_init(struct lr_stream *s)
{
	memset(s, 0, sizeof *s);
	s->prompt_tokens = s->completion_tokens = -1;
}

void lr_stream_release(struct lr_stream *s)
{
	free(s->text);
	free(s->tokens);
	free(s->itl_ms);
	memset(s, 0, sizeof *s);
}

const char *lr_token_source_name(enum lr_token_source s)
{
	static const char *const names[] = { "text", "token_ids", "logprobs", "tokens" };

	return names[s];
}

static int fail(struct lr_stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct lr_stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->failure, sizeof s->failure, fmt, ap);
	va_end(ap);
	return lr_error_set(LR_EINVAL, "%s", s->failure);
}

static int add_token(struct lr_stream *s, int64_t id)
{
	int rc;

	if ((rc = LR_ALLOC_GROW(s->tokens, s->ntokens + 1, s->tcap)))
		return rc;
	s->tokens[s->ntokens++] = id;
	return 0;
}

/* "token_id:N" as an id, or -1. */
static int64_t logprob_id(const struct lr_jval *v)
{
	char buf[32];

	if (v->type != LR_JSON_STRING || v->n >= sizeof buf || lr_json_string(v, buf) < 10 || strncmp(buf, "token_id:", 9))
		return -1;
	return strtoll(buf + 9, NULL, 10);
}

/* Token ids of one kind in array a; a source other than the stream's first is a malformed stream. */
static int take_ids(struct lr_stream *s, const struct lr_jval *a, enum lr_token_source src, int *took)
{
	struct lr_jiter it;
	struct lr_jval v, tok;
	int rc;

	if (a->type != LR_JSON_ARRAY)
		return 0;
	if (s->source != LR_TOKENS_NONE && s->source != src)
		return fail(s, "malformed stream: token ids as both '%s' and '%s'", lr_token_source_name(s->source),
			    lr_token_source_name(src));
	s->source = src;
	lr_json_iter(&it, a);
	while (lr_json_next(&it, NULL, &v)) {
		int64_t id = -1;

		if (v.type == LR_JSON_INTEGER)
			id = lr_json_integer(&v);
		else if (v.type == LR_JSON_STRING)
			id = logprob_id(&v);
		else if (lr_json_get(&v, "token", &tok))
			id = logprob_id(&tok);
		if (id < 0)
			return fail(s, "malformed stream: a token id that is not a whole number >= 0");
		if ((rc = add_token(s, id)))
			return rc;
		(*took)++;
	}
	return 0;
}

static int take_text(struct lr_stream *s, const struct lr_jval *v, int *took)
{
	size_t n;
	int rc;

	if (v->type != LR_JSON_STRING || v->n == 2)
		return 0;
	if ((rc = LR_ALLOC_GROW(s->text, s->text_len + v->n, s->text_cap))) /* decoded, a string is never longer */
		return rc;
	if ((n = lr_json_string(v, s->text + s->text_len))) {
		s->text_len += n;
		*took += 1;
	}
	return 0;
}

/* The members of an event that labrun reads, each the last of its name (as jansson keeps it); type NULL when absent. */
enum { F_CHOICES, F_USAGE, F_ERROR, F_CONTENT, F_TOKENS, F_STOP, F_STOP_TYPE, F_INDEX, F_TEXT, F_DELTA, F_TOKEN_IDS,
       F_LOGPROBS, F_FINISH, F_PROMPT_TOKENS, F_COMPLETION_TOKENS, F_MESSAGE, F_N };
#define NAME(s) LR_JSON_NAME(s)
static const struct lr_jname field_names[F_N] = {
	NAME("choices"), NAME("usage"), NAME("error"), NAME("content"), NAME("tokens"), NAME("stop"), NAME("stop_type"),
	NAME("index"), NAME("text"), NAME("delta"), NAME("token_ids"), NAME("logprobs"), NAME("finish_reason"),
	NAME("prompt_tokens"), NAME("completion_tokens"), NAME("message")
};
#undef NAME

struct fields {
	struct lr_jval v[F_N];
	int has[F_N];
};

/* One pass over object o, keeping the members named in [from, to). */
static void read_fields(const struct lr_jval *o, int from, int to, struct fields *f)
{
	lr_json_members(o, field_names + from, (size_t)(to - from), f->v + from, f->has + from);
}

static const struct lr_jval none = { LR_JSON_NULL, "null", 4, NULL };

static const struct lr_jval *field(const struct fields *f, int i)
{
	return f->has[i] ? &f->v[i] : &none;
}

static int is_integer(const struct fields *f, int i)
{
	return f->has[i] && f->v[i].type == LR_JSON_INTEGER;
}

/* A string member into buf (truncated to size): 1, or 0 when it is absent or not a string. */
static int copy_string(const struct fields *f, int i, char *buf, size_t size)
{
	const struct lr_jval *v = &f->v[i];
	char tmp[512];
	const char *from = tmp;
	size_t n;

	if (!f->has[i] || v->type != LR_JSON_STRING)
		return 0;
	if (v->n <= sizeof tmp) {
		n = lr_json_string(v, tmp);
	} else { /* longer than anything labrun keeps of it: its start, as sent */
		from = v->p + 1;
		n = v->n - 2;
	}
	n = n < size ? n : size - 1;
	memcpy(buf, from, n);
	buf[n] = '\0';
	return 1;
}

/* The choice of a completions or chat chunk: text, token ids, finish reason. */
static int take_choice(struct lr_stream *s, const struct lr_jval *c, int *took)
{
	struct fields f, d, lp;
	int rc, ids = 0;

	read_fields(c, F_INDEX, F_FINISH + 1, &f);
	if (is_integer(&f, F_INDEX) && lr_json_integer(&f.v[F_INDEX]) != 0) /* no index, or not a number: jansson's 0 */
		return 0;
	read_fields(field(&f, F_DELTA), F_CONTENT, F_CONTENT + 1, &d);
	if ((rc = take_text(s, field(&f, F_TEXT), took)) || (rc = take_text(s, field(&d, F_CONTENT), took)) ||
	    (rc = take_ids(s, field(&f, F_TOKEN_IDS), LR_TOKENS_IDS, &ids)))
		return rc;
	if (!ids && field(&f, F_LOGPROBS)->type == LR_JSON_OBJECT) { /* completions: logprobs.tokens; chat: logprobs.content[].token */
		read_fields(field(&f, F_LOGPROBS), F_CONTENT, F_TOKENS + 1, &lp);
		rc = take_ids(s, field(&lp, field(&lp, F_TOKENS)->type == LR_JSON_ARRAY ? F_TOKENS : F_CONTENT),
			      LR_TOKENS_LOGPROBS, &ids);
	}
	*took += ids;
	if (!rc)
		copy_string(&f, F_FINISH, s->finish, sizeof s->finish);
	return rc;
}

/* An event's object: an error, a chunk with choices (and maybe usage), or llama.cpp's native shape. */
static int take_chunk(struct lr_stream *s, const struct lr_jval *o, int *took)
{
	struct fields f, u;
	int rc = 0;

	read_fields(o, F_CHOICES, F_STOP_TYPE + 1, &f);
	if (f.has[F_ERROR]) {
		struct fields e;
		char msg[181];

		read_fields(field(&f, F_ERROR), F_MESSAGE, F_MESSAGE + 1, &e);
		if (!copy_string(f.v[F_ERROR].type == LR_JSON_OBJECT ? &e : &f,
				 f.v[F_ERROR].type == LR_JSON_OBJECT ? F_MESSAGE : F_ERROR, msg, sizeof msg))
			snprintf(msg, sizeof msg, "(no message)");
		return fail(s, "server error in the stream: %s", msg);
	}
	if (field(&f, F_CHOICES)->type == LR_JSON_ARRAY) {
		struct lr_jiter it;
		struct lr_jval c;

		lr_json_iter(&it, &f.v[F_CHOICES]);
		while (!rc && lr_json_next(&it, NULL, &c))
			rc = take_choice(s, &c, took);
	} else if (f.has[F_CONTENT] || f.has[F_TOKENS]) { /* llama.cpp's /completion */
		char type[16];

		if (!(rc = take_text(s, field(&f, F_CONTENT), took)))
			rc = take_ids(s, field(&f, F_TOKENS), LR_TOKENS_LLAMACPP, took);
		if (!rc && field(&f, F_STOP)->type == LR_JSON_TRUE)
			snprintf(s->finish, sizeof s->finish, "%s",
				 copy_string(&f, F_STOP_TYPE, type, sizeof type) && !strcmp(type, "limit") ? "length" : "stop");
	} else {
		return fail(s, "malformed stream: an event with neither 'choices' nor 'error'");
	}
	read_fields(field(&f, F_USAGE), F_PROMPT_TOKENS, F_COMPLETION_TOKENS + 1, &u);
	if (!rc && is_integer(&u, F_PROMPT_TOKENS))
		s->prompt_tokens = lr_json_integer(&u.v[F_PROMPT_TOKENS]);
	if (!rc && is_integer(&u, F_COMPLETION_TOKENS))
		s->completion_tokens = lr_json_integer(&u.v[F_COMPLETION_TOKENS]);
	return rc;
}

static int mark_content(struct lr_stream *s, double now)
{
	if (s->events++ == 0) {
		s->first_s = s->last_s = now;
		return 0;
	}
	if (LR_ALLOC_GROW(s->itl_ms, s->nitl + 1, s->icap))
		return LR_ENOMEM;
	s->itl_ms[s->nitl++] = (now - s->last_s) * 1e3;
	s->last_s = now;
	return 0;
}

int lr_stream_event(struct lr_stream *s, const char *data, size_t len, double now)
{
	struct lr_jdoc doc;
	struct lr_jval o;
	const char *why;
	int rc, bad_utf8, took = 0;

	if (s->done)
		return fail(s, "malformed stream: an event after [DONE]");
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		s->done = 1;
		return 0;
	}
	if (lr_json_check(&doc, data, len, &o, &why, &bad_utf8))
		return bad_utf8 ? fail(s, "invalid UTF-8 in an event")
				: fail(s, "malformed stream: an event that is not JSON (%s)", why);
	if (o.type != LR_JSON_OBJECT)
		return fail(s, "malformed stream: an event that is not a JSON object");
	rc = take_chunk(s, &o, &took);
	if (!rc && took)
		rc = mark_content(s, now);
	return rc;
}
