/*
 * libFuzzer target: the server-sent events reader and each event's JSON
 * (serving/stream.c), as the client feeds them. The same bytes fed whole
 * and cut into pieces (their sizes taken from the input) must give the same
 * events and the same completion: how the bytes arrive changes nothing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/buf.h"
#include "serving/stream.h"

#define MAX_EVENT 4096 /* small, so that the fuzzer reaches the bound */

struct seen {
	struct lr_buf events; /* each event's data and a NUL */
	struct lr_stream s;
	int rc;
};

static int take(void *arg, const char *data, size_t len)
{
	struct seen *w = arg;

	if (strlen(data) > len)
		abort(); /* the data is len bytes and a NUL; a NUL inside it is the stream's */
	lr_buf_add(&w->events, data, len + 1);
	if (!w->rc && (w->rc = lr_stream_event(&w->s, data, len, 0.0)) == LR_ENOMEM)
		abort();
	return 0;
}

/* Feed 'data' in pieces of 1 + cuts[i] bytes (whole when ncuts is 0). */
static int feed(struct seen *w, const uint8_t *data, size_t size, const uint8_t *cuts, size_t ncuts)
{
	struct lr_sse p;
	size_t at = 0, i = 0;
	int rc = 0, pending;

	lr_buf_init(&w->events, 0);
	lr_stream_init(&w->s);
	w->rc = 0;
	lr_sse_init(&p, MAX_EVENT);
	while (!rc && at < size) {
		size_t n = ncuts ? 1 + cuts[i++ % ncuts] : size;

		n = n > size - at ? size - at : n;
		rc = lr_sse_feed(&p, (const char *)data + at, n, take, w);
		at += n;
	}
	pending = lr_sse_pending(&p);
	lr_sse_release(&p);
	return rc ? rc : pending;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen whole, cut;
	size_t ncuts = size ? data[0] % 8 : 0;
	int a, b;

	if (size < 1 + ncuts)
		return 0;
	a = feed(&whole, data + 1 + ncuts, size - 1 - ncuts, NULL, 0);
	b = feed(&cut, data + 1 + ncuts, size - 1 - ncuts, data + 1, ncuts);
	if ((a < 0) != (b < 0) || (a >= 0 && a != b) || whole.events.len != cut.events.len ||
	    (whole.events.len && memcmp(whole.events.buf, cut.events.buf, whole.events.len)) || whole.rc != cut.rc ||
	    whole.s.text_len != cut.s.text_len || whole.s.ntokens != cut.s.ntokens ||
	    strcmp(whole.s.finish, cut.s.finish) || strcmp(whole.s.failure, cut.s.failure)) {
		fprintf(stderr, "fuzz-sse: whole %d (%zu bytes of events, '%s') and cut %d (%zu, '%s') differ\n", a,
			whole.events.len, whole.s.failure, b, cut.events.len, cut.s.failure);
		abort();
	}
	lr_buf_release(&whole.events);
	lr_buf_release(&cut.events);
	lr_stream_release(&whole.s);
	lr_stream_release(&cut.s);
	return 0;
}
