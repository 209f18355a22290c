/* Server-sent events and streamed completions, taken apart (stream.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/jsonscan.h"
#include "base/list.h"
#include "record/redact.h"
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

static const char *const source_names[] = { [LR_TOKENS_NONE] = "text",
					    [LR_TOKENS_IDS] = "token_ids",
					    [LR_TOKENS_LOGPROBS] = "logprobs",
					    [LR_TOKENS_LLAMACPP] = "tokens" };
const struct lr_enum_names lr_token_sources = LR_ENUM_NAMES("token source", source_names);

const char *lr_token_source_name(enum lr_token_source s)
{
	return lr_enum_name(&lr_token_sources, (int)s);
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

	if (v->type != LR_JSON_STRING || v->n >= sizeof buf || lr_json_string(v, buf) < 10 ||
	    strncmp(buf, "token_id:", 9))
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

/*
 * The members labrun reads of each object of an event, each the last of its
 * name (as jansson keeps it): a chunk, one of its choices, a delta, the
 * logprobs, the usage, an error.
 */
#define NAME(s) LR_JSON_NAME(s)
enum { C_CHOICES, C_USAGE, C_ERROR, C_CONTENT, C_TOKENS, C_STOP, C_STOP_TYPE, C_N };
static const struct lr_jname chunk_names[C_N] = { NAME("choices"), NAME("usage"), NAME("error"),    NAME("content"),
						  NAME("tokens"),  NAME("stop"),  NAME("stop_type") };
enum { CH_INDEX, CH_TEXT, CH_DELTA, CH_TOKEN_IDS, CH_LOGPROBS, CH_FINISH, CH_N };
static const struct lr_jname choice_names[CH_N] = { NAME("index"),     NAME("text"),     NAME("delta"),
						    NAME("token_ids"), NAME("logprobs"), NAME("finish_reason") };
enum { LP_CONTENT, LP_TOKENS, LP_N }; /* a delta's: LP_CONTENT alone */
static const struct lr_jname content_names[LP_N] = { NAME("content"), NAME("tokens") };
enum { U_PROMPT, U_COMPLETION, U_N };
static const struct lr_jname usage_names[U_N] = { NAME("prompt_tokens"), NAME("completion_tokens") };
static const struct lr_jname error_names[] = { NAME("message") };
#undef NAME
LR_JSON_FIELDS_FIT(chunk_names);
LR_JSON_FIELDS_FIT(choice_names);
LR_JSON_FIELDS_FIT(content_names);
LR_JSON_FIELDS_FIT(usage_names);
LR_JSON_FIELDS_FIT(error_names);

static const struct lr_jval none = { LR_JSON_NULL, "null", 4, NULL };

/* Member i of f, or a null when it is absent. */
static const struct lr_jval *field(const struct lr_jfields *f, int i)
{
	const struct lr_jval *v = lr_json_field(f, (size_t)i);

	return v ? v : &none;
}

static int is_integer(const struct lr_jfields *f, int i)
{
	return field(f, i)->type == LR_JSON_INTEGER;
}

/* A string value into buf (truncated to size): 1, or 0 when it is not a string. */
static int copy_string(const struct lr_jval *v, char *buf, size_t size)
{
	char tmp[512];
	const char *from = tmp;
	size_t n;

	if (v->type != LR_JSON_STRING)
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
	struct lr_jfields f, d, lp;
	int rc, ids = 0;

	if ((rc = lr_json_fields(&f, c, choice_names, CH_N)))
		return rc;
	if (is_integer(&f, CH_INDEX) &&
	    lr_json_integer(field(&f, CH_INDEX)) != 0) /* no index, or not a number: jansson's 0 */
		return 0;
	if ((rc = lr_json_fields(&d, field(&f, CH_DELTA), content_names, 1)) ||
	    (rc = take_text(s, field(&f, CH_TEXT), took)) || (rc = take_text(s, field(&d, LP_CONTENT), took)) ||
	    (rc = take_ids(s, field(&f, CH_TOKEN_IDS), LR_TOKENS_IDS, &ids)))
		return rc;
	if (!ids && field(&f, CH_LOGPROBS)->type ==
			    LR_JSON_OBJECT) { /* completions: logprobs.tokens; chat: logprobs.content[].token */
		if ((rc = lr_json_fields(&lp, field(&f, CH_LOGPROBS), content_names, LP_N)))
			return rc;
		rc = take_ids(s, field(&lp, field(&lp, LP_TOKENS)->type == LR_JSON_ARRAY ? LP_TOKENS : LP_CONTENT),
			      LR_TOKENS_LOGPROBS, &ids);
	}
	*took += ids;
	if (!rc && copy_string(field(&f, CH_FINISH), s->finish, sizeof s->finish))
		s->finishes++;
	return rc;
}

/* A server's error event: its message, from {"error": {"message": ...}} or {"error": "..."}. */
static int take_error(struct lr_stream *s, const struct lr_jval *error)
{
	const struct lr_jval *m;
	struct lr_jfields e;
	char msg[512];
	int rc;

	if ((rc = lr_json_fields(&e, error, error_names, 1)))
		return rc;
	m = error->type == LR_JSON_OBJECT ? field(&e, 0) : error;
	if (!copy_string(m, msg, sizeof msg))
		snprintf(msg, sizeof msg, "(no message)");
	else if (m->n > sizeof msg) /* the message went on: its last word may be a token's start */
		lr_drop_cut_word(msg);
	if (lr_redact_secretlike(msg, sizeof msg)) /* scrubbed whole, before the cap below cuts a token */
		snprintf(msg, sizeof msg, "%s", LR_REDACTED);
	lr_cut_redacted(msg, 180);
	return fail(s, "server error in the stream: %s", msg);
}

/* An event's object: an error, a chunk with choices (and maybe usage), or llama.cpp's native shape. */
static int take_chunk(struct lr_stream *s, const struct lr_jval *o, int *took)
{
	struct lr_jfields f, u;
	int rc;

	if ((rc = lr_json_fields(&f, o, chunk_names, C_N)))
		return rc;
	if (lr_json_field(&f, C_ERROR))
		return take_error(s, field(&f, C_ERROR));
	if (field(&f, C_CHOICES)->type == LR_JSON_ARRAY) {
		struct lr_jiter it;
		struct lr_jval c;

		lr_json_iter(&it, field(&f, C_CHOICES));
		while (!rc && lr_json_next(&it, NULL, &c))
			rc = take_choice(s, &c, took);
	} else if (lr_json_field(&f, C_CONTENT) || lr_json_field(&f, C_TOKENS)) { /* llama.cpp's /completion */
		char type[16];

		if (!(rc = take_text(s, field(&f, C_CONTENT), took)))
			rc = take_ids(s, field(&f, C_TOKENS), LR_TOKENS_LLAMACPP, took);
		if (!rc && field(&f, C_STOP)->type == LR_JSON_TRUE) {
			int limit = copy_string(field(&f, C_STOP_TYPE), type, sizeof type) && !strcmp(type, "limit");

			snprintf(s->finish, sizeof s->finish, "%s", limit ? "length" : "stop");
			s->finishes++;
		}
	} else {
		return fail(s, "malformed stream: an event with neither 'choices' nor 'error'");
	}
	if (!rc)
		rc = lr_json_fields(&u, field(&f, C_USAGE), usage_names, U_N);
	if (!rc && is_integer(&u, U_PROMPT))
		s->prompt_tokens = lr_json_integer(field(&u, U_PROMPT));
	if (!rc && is_integer(&u, U_COMPLETION))
		s->completion_tokens = lr_json_integer(field(&u, U_COMPLETION));
	return rc;
}

static int mark_content(struct lr_stream *s, double now)
{
	if (s->events++ == 0) {
		s->first_s = s->last_s = now;
		s->first_ntokens = s->ntokens;
		s->first_text_len = s->text_len;
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
	if (lr_json_check_nul(&doc, data, len, &o, &why, &bad_utf8))
		return bad_utf8 ? fail(s, "invalid UTF-8 in an event")
				: fail(s, "malformed stream: an event that is not JSON (%s)", why);
	if (o.type != LR_JSON_OBJECT)
		return fail(s, "malformed stream: an event that is not a JSON object");
	rc = take_chunk(s, &o, &took);
	if (!rc && s->finishes && !(s->finish_s > 0))
		s->finish_s = now;
	if (!rc && took)
		rc = mark_content(s, now);
	return rc;
}
