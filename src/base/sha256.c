#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/error.h"
#include "base/sha256.h"

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

int lr_sha256_file(const char *path, char hex[LR_SHA256_HEX], int64_t *size)
{
	static _Thread_local unsigned char buf[1 << 16];
	struct lr_sha256 h;
	int64_t total = 0;
	int fd, rc;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	rc = lr_sha256_init(&h);
	if (rc)
		goto out;
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
			lr_sha256_release(&h);
			goto out;
		}
		lr_sha256_update(&h, buf, (size_t)n);
		total += n;
	}
	lr_sha256_final(&h, hex);
	if (size)
		*size = total;
out:
	close(fd);
	return rc;
}
