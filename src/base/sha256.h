#ifndef LR_SHA256_H
#define LR_SHA256_H

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

/* Length of a hex sha256 including its terminating NUL; of a binary one. */
#define LR_SHA256_HEX 65
#define LR_SHA256_LEN 32

/* A sha256 as lowercase hex, or "" for none. */
struct lr_digest {
	char hex[LR_SHA256_HEX];
};

/*
 * Incremental sha256 over OpenSSL's SHA256_* functions. _init allocates the
 * context (returns LR_ENOMEM on failure), _final writes the lower-case hex
 * digest and releases the context; _release alone abandons it.
 */
struct lr_sha256 {
	void *ctx; /* SHA256_CTX */
};

LR_MUST_CHECK int lr_sha256_init(struct lr_sha256 *h);
void lr_sha256_update(struct lr_sha256 *h, const void *data, size_t len);
void lr_sha256_final(struct lr_sha256 *h, char hex[LR_SHA256_HEX]);
void lr_sha256_release(struct lr_sha256 *h);

/* Hash a whole memory buffer. */
LR_MUST_CHECK int lr_sha256_buf(const void *data, size_t len, char hex[LR_SHA256_HEX]);
/* The same, the 32 bytes of the digest; safe on any thread. */
LR_MUST_CHECK int lr_sha256_raw(const void *data, size_t len, unsigned char out[LR_SHA256_LEN]);

/* HMAC-SHA-256 of 'data' under 'key' (AWS Signature Version 4's step); safe on any thread. */
LR_MUST_CHECK int lr_hmac_sha256(const void *key, size_t klen, const void *data, size_t dlen,
				 unsigned char out[LR_SHA256_LEN]);

/* The MD5 of a buffer in lower-case hex: what an S3 service gives as a part's ETag; not for integrity. */
LR_MUST_CHECK int lr_md5_buf(const void *data, size_t len, char hex[33]);

/*
 * Hash a file by streaming it (never read whole). On success stores the
 * digest and, if size is not NULL, the byte count. LR_EIO with a message
 * naming the path on failure.
 */
LR_MUST_CHECK int lr_sha256_file(const char *path, char hex[LR_SHA256_HEX], int64_t *size);

/* The same for a regular file only, no link followed (lr_open_regular): LR_EREFUSED for anything else. */
LR_MUST_CHECK int lr_sha256_regular(const char *path, char hex[LR_SHA256_HEX], int64_t *size);

#endif
