#ifndef LR_CAPTURE_H
#define LR_CAPTURE_H

/*
 * A command's stdout or stderr on its way into the store: capped (the first
 * 'cap' bytes are kept, the rest counted and dropped), scrubbed of secret
 * values, written to an object writer, and its last bytes kept for a failure
 * message. One for 'record' (logs streamed into the spool) and for command
 * experiments (straight into objects, with no scratch copy).
 */

#include <stdint.h>

#include "base/error.h"
#include "record/redact.h"
#include "store/objects.h"

#define LR_CAPTURE_TAIL 240

struct lr_capture {
	struct lr_scrub scrub;
	struct lr_objw *w;          /* where the kept bytes go (the caller opens and commits it) */
	int64_t cap;                /* bytes kept at most; 0: all */
	int64_t kept, dropped;      /* of what the command wrote */
	char tail[LR_CAPTURE_TAIL]; /* the last bytes stored (scrubbed), NUL-terminated */
	size_t ntail;
};

/* Scrubbing the secret values of 'envp', capped at 'cap' bytes (0: no cap); c->w is set by the caller. */
LR_MUST_CHECK int lr_capture_init(struct lr_capture *c, char *const *envp, int64_t cap);
/* What the command wrote next. */
LR_MUST_CHECK int lr_capture_write(struct lr_capture *c, const void *data, size_t len);
/* The stream ended: what the scrubber held back is written, and the writer flushed. */
LR_MUST_CHECK int lr_capture_end(struct lr_capture *c);
void lr_capture_release(struct lr_capture *c);

#endif
