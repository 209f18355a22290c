#ifndef LR_BASE_BUF_H
#define LR_BASE_BUF_H

/*
 * A growable string, after git's strbuf: text whose length labrun does not
 * know in advance (a path, a name, a message, a command's output) is built
 * here, never cut into a char[N].
 *
 *	struct lr_buf b = LR_BUF_INIT;
 *
 *	lr_buf_addf(&b, "%s/%s", dir, name);
 *	lr_buf_addch(&b, '/');
 *	if ((rc = lr_buf_error(&b)))
 *		goto out;
 *	use(b.buf, b.len);
 *   out:
 *	lr_buf_release(&b);
 *
 * b.buf is never NULL and always NUL-terminated (an empty buffer points to a
 * shared "" until something is added: never write to it through b.buf).
 * b.len is the length of the text, b.cap the bytes allocated (0 before the
 * first add). The text may hold NUL bytes (lr_buf_add); then b.len, not
 * strlen, says how long it is.
 *
 * Out of memory: like a struct lr_table (base/table.h), a buffer remembers
 * a failure instead of every add returning one. An add that cannot be done
 * leaves the text as it was and marks the buffer; later adds do nothing.
 * lr_buf_error() reports it once, after the text is built, and sets the
 * message then (not during the adds, so a buffer that builds an error
 * message does not overwrite the one it is about). lr_buf_detach() of a
 * failed buffer returns NULL. So building text takes one check, not one a
 * call, and a failure cannot pass unseen as long as that check is made.
 */

#include <stdarg.h>
#include <stddef.h>

#include "base/error.h"

struct lr_buf {
	char *buf;
	size_t len, cap;
	int failed; /* 0, or the LR_E* code lr_buf_error will return */
};

extern char lr_buf_empty[1];
#define LR_BUF_INIT \
	{ \
		lr_buf_empty, 0, 0, 0 \
	}

/* An empty buffer, with room for 'hint' bytes when hint > 0 (a failure is kept for lr_buf_error). */
void lr_buf_init(struct lr_buf *b, size_t hint);

/* Append len bytes (may hold NUL bytes), a NUL-terminated string, one byte. */
void lr_buf_add(struct lr_buf *b, const void *data, size_t len);
void lr_buf_adds(struct lr_buf *b, const char *s);
void lr_buf_addch(struct lr_buf *b, char c);

/* Append printf-style, with whatever room it needs. */
void lr_buf_addf(struct lr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lr_buf_vaddf(struct lr_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Cut the text to its first len bytes (len <= b->len). */
void lr_buf_setlen(struct lr_buf *b, size_t len);

/* Empty the text, keeping the memory for the next one (and a failure, for lr_buf_error). */
void lr_buf_reset(struct lr_buf *b);

/*
 * 0 when every add so far was done; else LR_ENOMEM ("out of memory") or
 * LR_EINVAL (text that printf cannot produce, over INT_MAX bytes), with the
 * message set now.
 */
LR_MUST_CHECK int lr_buf_error(const struct lr_buf *b);

/* Free the memory; the buffer is as LR_BUF_INIT left it, its failure forgotten. */
void lr_buf_release(struct lr_buf *b);

/*
 * The text, malloc'd and NUL-terminated, now the caller's (free()); its
 * length in *len when len is not NULL. The buffer is left empty as
 * LR_BUF_INIT. NULL (with lr_buf_error's message set) when an add failed or
 * the memory for an empty text cannot be had; the buffer is then released.
 */
char *lr_buf_detach(struct lr_buf *b, size_t *len);

#endif
