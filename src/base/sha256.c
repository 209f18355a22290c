#include "config.h"
#include "base/system.h"

#include <openssl/evp.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/walk.h"

int lr_sha256_init(struct lr_sha256 *h)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	h->ctx = NULL;
	if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(c);
		return lr_error_set(LR_ENOMEM, "cannot start sha256: out of memory");
	}
	h->ctx = c;
	return 0;
}

void lr_sha256_update(struct lr_sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void lr_sha256_final(struct lr_sha256 *h, char hex[LR_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	lr_sha256_release(h);
}

void lr_sha256_release(struct lr_sha256 *h)
{
	EVP_MD_CTX_free(h->ctx);
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
