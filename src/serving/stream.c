/* Server-sent events and streamed completions, taken apart (stream.h). */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "serving/stream.h"

/* Grow *buf (capacity *cap) to hold need bytes. */
static int reserve(char **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 256;
	char *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(p = realloc(*buf, c)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	*buf = p;
	*cap = c;
	return 0;
}

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
static int line(struct lr_sse *p, lr_sse_fn fn, void *arg)
{
	const char *v;
	size_t n;
	int rc;

	if (!p->len) {
		if (!p->has_data)
			return 0;
		p->data[p->dlen] = '\0';
		rc = fn(arg, p->data, p->dlen);
		p->dlen = 0;
		p->has_data = 0;
		return rc;
	}
	if (p->len < 5 || memcmp(p->line, "data:", 5))
		return 0; /* a comment (":..."), or a field labrun does not use (event, id, retry) */
	v = p->line + 5;
	n = p->len - 5;
	if (n && *v == ' ')
		v++, n--;
	if (p->dlen + n + 2 > p->max)
		return too_long(p);
	if ((rc = reserve(&p->data, &p->dcap, p->dlen + n + 2)))
		return rc;
	if (p->has_data)
		p->data[p->dlen++] = '\n';
	memcpy(p->data + p->dlen, v, n);
	p->dlen += n;
	p->has_data = 1;
	return 0;
}

int lr_sse_feed(struct lr_sse *p, const char *bytes, size_t n, lr_sse_fn fn, void *arg)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		char c = bytes[i];

		if (c == '\n' && p->cr) { /* the LF of a CRLF */
			p->cr = 0;
			continue;
		}
		p->cr = c == '\r';
		if (c == '\n' || c == '\r') {
			rc = line(p, fn, arg);
			p->len = 0;
			if (rc)
				return rc;
			continue;
		}
		if (p->len + 1 > p->max)
			return too_long(p);
		if ((rc = reserve(&p->line, &p->cap, p->len + 1)))
			return rc;
		p->line[p->len++] = c;
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
	if (s->ntokens == s->tcap) {
		size_t c = s->tcap ? s->tcap * 2 : 64;
		int64_t *t = realloc(s->tokens, c * sizeof *t);

		if (!t)
			return lr_error_set(LR_ENOMEM, "out of memory");
		s->tokens = t;
		s->tcap = c;
	}
	s->tokens[s->ntokens++] = id;
	return 0;
}

/* Token ids of one kind in array a; a source other than the stream's first is a malformed stream. */
static int take_ids(struct lr_stream *s, json_t *a, enum lr_token_source src, int *took)
{
	size_t i;
	int rc;

	if (!json_is_array(a))
		return 0;
	if (s->source != LR_TOKENS_NONE && s->source != src)
		return fail(s, "malformed stream: token ids as both '%s' and '%s'", lr_token_source_name(s->source),
			    lr_token_source_name(src));
	s->source = src;
	for (i = 0; i < json_array_size(a); i++) {
		json_t *v = json_array_get(a, i);
		json_int_t id = -1;

		if (json_is_integer(v))
			id = json_integer_value(v);
		else if (json_is_string(v) && !strncmp(json_string_value(v), "token_id:", 9))
			id = strtoll(json_string_value(v) + 9, NULL, 10);
		else if (json_is_object(v) && json_is_string(json_object_get(v, "token")) &&
			 !strncmp(json_string_value(json_object_get(v, "token")), "token_id:", 9))
			id = strtoll(json_string_value(json_object_get(v, "token")) + 9, NULL, 10);
		if (id < 0)
			return fail(s, "malformed stream: a token id that is not a whole number >= 0");
		if ((rc = add_token(s, id)))
			return rc;
		(*took)++;
	}
	return 0;
}

static int take_text(struct lr_stream *s, json_t *v, int *took)
{
	size_t n;
	int rc;

	if (!json_is_string(v) || !(n = json_string_length(v)))
		return 0;
	if ((rc = reserve(&s->text, &s->text_cap, s->text_len + n + 1)))
		return rc;
	memcpy(s->text + s->text_len, json_string_value(v), n);
	s->text_len += n;
	s->text[s->text_len] = '\0';
	*took += 1;
	return 0;
}

/* The choice of a completions or chat chunk: text, token ids, finish reason. */
static int take_choice(struct lr_stream *s, json_t *c, int *took)
{
	json_t *delta = json_object_get(c, "delta"), *lp = json_object_get(c, "logprobs"), *fin;
	int rc, ids = 0;

	if ((rc = take_text(s, json_object_get(c, "text"), took)) ||
	    (json_is_object(delta) && (rc = take_text(s, json_object_get(delta, "content"), took))) ||
	    (rc = take_ids(s, json_object_get(c, "token_ids"), LR_TOKENS_IDS, &ids)))
		return rc;
	if (!ids && json_is_object(lp)) /* completions: logprobs.tokens; chat: logprobs.content[].token */
		rc = take_ids(s, json_is_array(json_object_get(lp, "tokens")) ? json_object_get(lp, "tokens")
									   : json_object_get(lp, "content"),
			      LR_TOKENS_LOGPROBS, &ids);
	*took += ids;
	fin = json_object_get(c, "finish_reason");
	if (!rc && json_is_string(fin))
		snprintf(s->finish, sizeof s->finish, "%s", json_string_value(fin));
	return rc;
}

/* An event's object: an error, a chunk with choices (and maybe usage), or llama.cpp's native shape. */
static int take_chunk(struct lr_stream *s, json_t *o, int *took)
{
	json_t *choices = json_object_get(o, "choices"), *usage = json_object_get(o, "usage"), *err = json_object_get(o, "error");
	size_t i;
	int rc = 0;

	if (err) {
		json_t *msg = json_is_object(err) ? json_object_get(err, "message") : err;

		return fail(s, "server error in the stream: %.180s", json_is_string(msg) ? json_string_value(msg) : "(no message)");
	}
	if (json_is_array(choices)) {
		for (i = 0; i < json_array_size(choices) && !rc; i++)
			if (json_integer_value(json_object_get(json_array_get(choices, i), "index")) == 0)
				rc = take_choice(s, json_array_get(choices, i), took);
	} else if (json_object_get(o, "content") || json_object_get(o, "tokens")) { /* llama.cpp's /completion */
		json_t *stop = json_object_get(o, "stop");

		if (!(rc = take_text(s, json_object_get(o, "content"), took)))
			rc = take_ids(s, json_object_get(o, "tokens"), LR_TOKENS_LLAMACPP, took);
		if (!rc && json_is_true(stop))
			snprintf(s->finish, sizeof s->finish, "%s",
				 json_is_string(json_object_get(o, "stop_type")) &&
				 !strcmp(json_string_value(json_object_get(o, "stop_type")), "limit") ? "length" : "stop");
	} else {
		return fail(s, "malformed stream: an event with neither 'choices' nor 'error'");
	}
	if (!rc && json_is_object(usage)) {
		if (json_is_integer(json_object_get(usage, "prompt_tokens")))
			s->prompt_tokens = json_integer_value(json_object_get(usage, "prompt_tokens"));
		if (json_is_integer(json_object_get(usage, "completion_tokens")))
			s->completion_tokens = json_integer_value(json_object_get(usage, "completion_tokens"));
	}
	return rc;
}

static int mark_content(struct lr_stream *s, double now)
{
	if (s->events++ == 0) {
		s->first_s = s->last_s = now;
		return 0;
	}
	if (s->nitl == s->icap) {
		size_t c = s->icap ? s->icap * 2 : 64;
		double *v = realloc(s->itl_ms, c * sizeof *v);

		if (!v)
			return lr_error_set(LR_ENOMEM, "out of memory");
		s->itl_ms = v;
		s->icap = c;
	}
	s->itl_ms[s->nitl++] = (now - s->last_s) * 1e3;
	s->last_s = now;
	return 0;
}

int lr_stream_event(struct lr_stream *s, const char *data, size_t len, double now)
{
	json_error_t err;
	json_t *o;
	int rc, took = 0;

	if (s->done)
		return fail(s, "malformed stream: an event after [DONE]");
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		s->done = 1;
		return 0;
	}
	if (!(o = json_loadb(data, len, 0, &err)) && strstr(err.text, "unable to decode byte"))
		return fail(s, "invalid UTF-8 in an event");
	if (!o)
		return fail(s, "malformed stream: an event that is not JSON (%.80s)", err.text);
	if (!json_is_object(o))
		rc = fail(s, "malformed stream: an event that is not a JSON object");
	else
		rc = take_chunk(s, o, &took);
	json_decref(o);
	if (!rc && took)
		rc = mark_content(s, now);
	return rc;
}
