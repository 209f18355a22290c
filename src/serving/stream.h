#ifndef LR_SERVING_STREAM_H
#define LR_SERVING_STREAM_H

/*
 * A streamed completion as OpenAI-compatible servers send it: server-sent
 * events (lines "data: <json>", a blank line after each event, "data:
 * [DONE]" last), read incrementally, and each event's JSON taken apart into
 * text, token ids, finish reason and usage, with the time of every event
 * that carried content. No I/O here: the client (client.c) feeds the bytes
 * as they arrive and says when. docs/serving.md names the shapes read.
 */

#include "base/enumname.h"
#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

/* ---- server-sent events ---- */

struct lr_sse {
	char *line; /* the line being read */
	size_t len, cap;
	char *data; /* the event's data lines so far, joined with '\n' */
	size_t dlen, dcap;
	int has_data;
	int cr;     /* the last byte was CR: an LF next ends nothing */
	size_t max; /* bytes of one event at most */
};

typedef int (*lr_sse_fn)(void *arg, const char *data, size_t len);

void lr_sse_init(struct lr_sse *p, size_t max);
/*
 * Feed bytes; fn gets the data of each complete event (NUL-terminated).
 * LR_EINVAL "an event longer than N bytes" past max; fn's own non-zero
 * return stops the feed and is returned.
 */
LR_MUST_CHECK int lr_sse_feed(struct lr_sse *p, const char *bytes, size_t n, lr_sse_fn fn, void *arg);
/* 1 when bytes of an unfinished event are held (a stream cut mid-event). */
int lr_sse_pending(const struct lr_sse *p);
void lr_sse_release(struct lr_sse *p);

/* ---- one streamed completion ---- */

enum lr_token_source {
	LR_TOKENS_NONE,     /* text only: parity is by text */
	LR_TOKENS_IDS,      /* vLLM's "token_ids" (return_token_ids) */
	LR_TOKENS_LOGPROBS, /* "token_id:N" logprob tokens (return_tokens_as_token_ids) */
	LR_TOKENS_LLAMACPP, /* llama.cpp's "tokens" */
};

struct lr_stream {
	char *text; /* the generated text, NUL-terminated */
	size_t text_len, text_cap;
	int64_t *tokens; /* generated token ids, when the server sent them */
	size_t ntokens, tcap;
	enum lr_token_source source;
	char finish[32];                          /* "stop", "length", ... ("" until sent) */
	int64_t prompt_tokens, completion_tokens; /* usage, -1 when not sent */
	int done;                                 /* "[DONE]" seen */
	char failure[256];                        /* why the stream is not a completion ("" while it is one) */
	double first_s, last_s;                   /* clock of the first and the last content event, 0 before one */
	double *itl_ms;                           /* gaps between successive content events */
	size_t nitl, icap;
	size_t events; /* content events */
	/* what the client checks of itself (MLPerf's TEST06): */
	int finishes;          /* events that carried a finish reason */
	double finish_s;       /* clock of the first of them, 0 before one */
	size_t first_ntokens;  /* token ids the first content event carried (the one TTFT is timed on) */
	size_t first_text_len; /* and its text's bytes */
};

void lr_stream_init(struct lr_stream *s);
void lr_stream_release(struct lr_stream *s);
/*
 * Take one event's data, received at 'now' (seconds, any clock). A
 * malformed event, an error object, invalid UTF-8 or data after "[DONE]"
 * set s->failure and return LR_EINVAL; LR_ENOMEM is the only other error.
 */
LR_MUST_CHECK int lr_stream_event(struct lr_stream *s, const char *data, size_t len, double now);
/* "token_ids", "logprobs", "tokens" or "text" (LR_TOKENS_NONE): one table, read both ways (base/enumname.h). */
extern const struct lr_enum_names lr_token_sources;
const char *lr_token_source_name(enum lr_token_source s);

#endif
