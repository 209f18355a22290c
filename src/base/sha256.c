#include "config.h"
#include "base/system.h"

/*
 * The streaming digest uses OpenSSL's SHA256_* functions, deprecated in 3.0
 * in favour of EVP but kept by every 3.x release, with the same assembly:
 * the first EVP digest of a process initialises OpenSSL (its configuration
 * file, every algorithm of the default provider registered by name), which
 * was a fifth of the instructions of 'labrun record -- true' (22% of 24
 * million under callgrind), for a command whose only use of OpenSSL is
 * SHA-256. Signing and lr_sha256_raw stay on EVP.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/walk.h"

int lr_sha256_init(struct lr_sha256 *h)
{
	SHA256_CTX *c = malloc(sizeof *c);

	h->ctx = NULL;
	if (!c || SHA256_Init(c) != 1) {
		free(c);
		return lr_error_set(LR_ENOMEM, "cannot start sha256: out of memory");
	}
	h->ctx = c;
	return 0;
}

void lr_sha256_update(struct lr_sha256 *h, const void *data, size_t len)
{
	SHA256_Update(h->ctx, data, len);
}

void lr_sha256_final(struct lr_sha256 *h, char hex[LR_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[SHA256_DIGEST_LENGTH];
	size_t i;

	SHA256_Final(md, h->ctx);
	for (i = 0; i < sizeof md; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * sizeof md] = '\0';
	lr_sha256_release(h);
}

void lr_sha256_release(struct lr_sha256 *h)
{
	if (h->ctx)
		OPENSSL_cleanse(h->ctx, sizeof(SHA256_CTX));
	free(h->ctx);
	h->ctx = NULL;
}

int lr_sha256_buf(const void *data, size_t len, char hex[LR_SHA256_HEX])
{
	struct lr_sha256 h;
	int rc = lr_sha256_init(&h);

	if (rc)
		return rc;
	lr_sha256_update(&h, data, len);
	lr_sha256_final(&h, hex);
	return 0;
}

struct file_hash {
	struct lr_sha256 h;
	int64_t total;
};

static int hash_chunk(void *arg, const void *data, size_t len)
{
	struct file_hash *f = arg;

	lr_sha256_update(&f->h, data, len);
	f->total += (int64_t)len;
	return 0;
}

/* A file's digest, read by 'read' (lr_read_chunks or lr_read_regular_chunks). */
static int hash_file(int (*read)(const char *, lr_chunk_fn, void *), const char *path, char hex[LR_SHA256_HEX],
		     int64_t *size)
{
	struct file_hash f = { .total = 0 };
	int rc;

	if ((rc = lr_sha256_init(&f.h)))
		return rc;
	if ((rc = read(path, hash_chunk, &f))) {
		lr_sha256_release(&f.h);
		return rc;
	}
	lr_sha256_final(&f.h, hex);
	if (size)
		*size = f.total;
	return 0;
}

int lr_sha256_file(const char *path, char hex[LR_SHA256_HEX], int64_t *size)
{
	return hash_file(lr_read_chunks, path, hex, size);
}

int lr_sha256_regular(const char *path, char hex[LR_SHA256_HEX], int64_t *size)
{
	return hash_file(lr_read_regular_chunks, path, hex, size);
}

int lr_sha256_raw(const void *data, size_t len, unsigned char out[LR_SHA256_LEN])
{
	unsigned int n = 0;

	if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1 || n != LR_SHA256_LEN)
		return lr_error_set(LR_ENOMEM, "cannot compute a sha256 (OpenSSL failed)");
	return 0;
}

int lr_md5_buf(const void *data, size_t len, char hex[33])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (!EVP_Digest(data, len, md, &n, EVP_md5(), NULL) || n != 16)
		return lr_error_set(LR_EIO, "cannot take an MD5 digest");
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int lr_hmac_sha256(const void *key, size_t klen, const void *data, size_t dlen, unsigned char out[LR_SHA256_LEN])
{
	unsigned n = 0;

	if (klen > INT_MAX || !HMAC(EVP_sha256(), key, (int)klen, data, dlen, out, &n) || n != LR_SHA256_LEN)
		return lr_error_set(LR_EIO, "cannot take an HMAC-SHA-256");
	return 0;
}
