/* A growable string (base/buf.h). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/list.h"

/* What every empty buffer points to: "" without an allocation; never written. */
char lr_buf_empty[1];

/* Room for 'more' bytes after the text and its NUL: 1, or 0 with the buffer marked failed. */
static int room(struct lr_buf *b, size_t more)
{
	char *p = b->cap ? b->buf : NULL;

	if (b->failed)
		return 0;
	if (more > SIZE_MAX - 1 - b->len || LR_ALLOC_GROW(p, b->len + more + 1, b->cap)) {
		b->failed = LR_ENOMEM;
		return 0;
	}
	if (b->buf == lr_buf_empty)
		p[0] = '\0'; /* the first allocation: len is 0 */
	b->buf = p;
	return 1;
}

void lr_buf_init(struct lr_buf *b, size_t hint)
{
	b->buf = lr_buf_empty;
	b->len = b->cap = 0;
	b->failed = 0;
	if (hint)
		room(b, hint);
}

void lr_buf_add(struct lr_buf *b, const void *data, size_t len)
{
	if (!len || !room(b, len))
		return;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void lr_buf_adds(struct lr_buf *b, const char *s)
{
	lr_buf_add(b, s, strlen(s));
}

void lr_buf_addch(struct lr_buf *b, char c)
{
	if (!room(b, 1))
		return;
	b->buf[b->len++] = c;
	b->buf[b->len] = '\0';
}

void lr_buf_vaddf(struct lr_buf *b, const char *fmt, va_list ap)
{
	size_t avail = b->cap ? b->cap - b->len : 0; /* NUL included */
	va_list again;
	int n;

	if (b->failed)
		return;
	va_copy(again, ap);
	/* straight into the room there is; when that is too small, again into enough */
	n = vsnprintf(avail ? b->buf + b->len : NULL, avail, fmt, ap);
	if (n >= 0 && (size_t)n >= avail && room(b, (size_t)n))
		n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, again);
	va_end(again);
	if (n < 0 && !b->failed)
		b->failed = LR_EINVAL;
	if (b->failed) { /* what the first try wrote is not the text */
		if (b->cap)
			b->buf[b->len] = '\0';
		return;
	}
	b->len += (size_t)n;
}

void lr_buf_addf(struct lr_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void lr_buf_setlen(struct lr_buf *b, size_t len)
{
	if (len > b->len)
		return;
	b->len = len;
	if (b->cap)
		b->buf[len] = '\0';
}

void lr_buf_reset(struct lr_buf *b)
{
	lr_buf_setlen(b, 0);
}

/* lr_buf_error, for a caller that returns something else. */
static int failure(const struct lr_buf *b)
{
	if (b->failed == LR_EINVAL)
		return lr_error_set(LR_EINVAL, "cannot format text: it would be longer than %d bytes", INT_MAX);
	if (b->failed)
		return lr_error_set(b->failed, "out of memory");
	return 0;
}

int lr_buf_error(const struct lr_buf *b)
{
	return failure(b);
}

void lr_buf_release(struct lr_buf *b)
{
	if (b->cap)
		free(b->buf);
	lr_buf_init(b, 0);
}

char *lr_buf_detach(struct lr_buf *b, size_t *len)
{
	char *s;

	if (!b->failed && !b->cap)
		room(b, 0); /* an empty text, still the caller's to free */
	if (b->failed) {
		failure(b);
		lr_buf_release(b);
		return NULL;
	}
	s = b->buf;
	if (len)
		*len = b->len;
	lr_buf_init(b, 0);
	return s;
}
