/* A command's output on its way into the store: capped, scrubbed, written, its tail kept. */
#include "config.h"
#include "base/system.h"

#include "record/capture.h"

int lr_capture_init(struct lr_capture *c, char *const *envp, int64_t cap)
{
	memset(c, 0, sizeof *c);
	c->cap = cap;
	return lr_scrub_init(&c->scrub, envp);
}

/* The scrubber's output: into the object, and the last of it into the tail. */
static int sink(void *arg, const void *data, size_t len)
{
	struct lr_capture *c = arg;
	const char *p = data;
	size_t keep = sizeof c->tail - 1;

	if (len >= keep) {
		memcpy(c->tail, p + len - keep, keep);
		c->ntail = keep;
	} else {
		if (c->ntail + len > keep) {
			memmove(c->tail, c->tail + (c->ntail + len - keep), keep - len);
			c->ntail = keep - len;
		}
		memcpy(c->tail + c->ntail, p, len);
		c->ntail += len;
	}
	c->tail[c->ntail] = '\0';
	return lr_objw_write(c->w, data, len);
}

int lr_capture_write(struct lr_capture *c, const void *data, size_t len)
{
	size_t take = len;

	if (c->cap > 0 && c->kept + (int64_t)len > c->cap)
		take = c->kept < c->cap ? (size_t)(c->cap - c->kept) : 0;
	c->kept += (int64_t)take;
	c->dropped += (int64_t)(len - take);
	return take ? lr_scrub_feed(&c->scrub, data, take, sink, c, NULL) : 0;
}

int lr_capture_end(struct lr_capture *c)
{
	int rc = lr_scrub_flush(&c->scrub, sink, c);

	return rc ? rc : lr_objw_flush(c->w);
}

void lr_capture_release(struct lr_capture *c)
{
	lr_scrub_release(&c->scrub);
}
