/*
 * Presigned GET URLs (AWS Signature Version 4, query parameters): a URL
 * anyone can fetch one object with, without credentials, until it expires.
 * libcurl signs requests but does not presign, so the steps are here, each
 * as the specification names it: the canonical request, the string to sign,
 * the signing key derived from the secret, the signature.
 */
#include "config.h"
#include "base/system.h"

#include <time.h>

#include "base/error.h"
#include "base/sha256.h"
#include "store/s3-int.h"

/* RFC 3986's unreserved characters as they are; the others %XX, upper case; '/' kept when 'slash'. */
static void uri_encode(const char *in, int slash, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *in && o + 4 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-._~", c) ||
		    (slash && c == '/'))
			out[o++] = (char)c;
		else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
}

static void hex32(const unsigned char in[LR_SHA256_LEN], char out[LR_SHA256_HEX])
{
	for (int i = 0; i < LR_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", in[i]);
}

/* The signing key: HMAC chain over the date, region, service and "aws4_request", from "AWS4" + secret. */
static int signing_key(const struct lr_s3 *s, const char *date, unsigned char key[LR_SHA256_LEN])
{
	const char *steps[] = { date, s->c.region, "s3", "aws4_request" };
	char first[300];
	int rc;

	snprintf(first, sizeof first, "AWS4%s", s->c.secret);
	rc = lr_hmac_sha256(first, strlen(first), steps[0], strlen(steps[0]), key);
	for (int i = 1; i < 4 && !rc; i++)
		rc = lr_hmac_sha256(key, LR_SHA256_LEN, steps[i], strlen(steps[i]), key);
	explicit_bzero(first, sizeof first);
	return rc;
}

int lr_s3_presign(struct lr_s3 *s, const char *key, long expires_s, time_t now, char **url)
{
	char stamp[20], date[9], host[600], path[1700], cred[400], sts[400], full[1200];
	char tok[12300] = "", query[13200], creq[16000], hash[LR_SHA256_HEX], sig[LR_SHA256_HEX];
	const char *h = strstr(s->c.endpoint, "://") + 3;
	unsigned char k[LR_SHA256_LEN], mac[LR_SHA256_LEN];
	struct tm tm;
	int rc;

	*url = NULL;
	if (expires_s < 1 || expires_s > 604800)
		return lr_error_set(LR_EINVAL, "a presigned URL lasts 1 s to 7 days, not %ld s", expires_s);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(date, sizeof date, "%.8s", stamp);
	snprintf(full, sizeof full, "%s%s", s->c.prefix, key);
	if (s->c.path_style) {
		snprintf(host, sizeof host, "%.*s", (int)strcspn(h, "/"), h);
		snprintf(creq, sizeof creq, "/%s/%s", s->c.bucket, full);
	} else {
		snprintf(host, sizeof host, "%s.%.*s", s->c.bucket, (int)strcspn(h, "/"), h);
		snprintf(creq, sizeof creq, "/%s", full);
	}
	uri_encode(creq, 1, path, sizeof path);
	snprintf(creq, sizeof creq, "%s/%s/%s/s3/aws4_request", s->c.key_id, date, s->c.region);
	uri_encode(creq, 0, cred, sizeof cred);
	if (s->c.token[0])
		uri_encode(s->c.token, 0, tok, sizeof tok);
	/* the parameters in name order, as the canonical query string has them */
	snprintf(query, sizeof query,
		 "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=%s&X-Amz-Date=%s&X-Amz-Expires=%ld%s%s"
		 "&X-Amz-SignedHeaders=host",
		 cred, stamp, expires_s, tok[0] ? "&X-Amz-Security-Token=" : "", tok);
	snprintf(creq, sizeof creq, "GET\n%s\n%s\nhost:%s\n\nhost\nUNSIGNED-PAYLOAD", path, query, host);
	if ((rc = lr_sha256_buf(creq, strlen(creq), hash)))
		return rc;
	snprintf(sts, sizeof sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/s3/aws4_request\n%s", stamp, date, s->c.region, hash);
	if ((rc = signing_key(s, date, k)) || (rc = lr_hmac_sha256(k, sizeof k, sts, strlen(sts), mac)))
		return rc;
	explicit_bzero(k, sizeof k);
	hex32(mac, sig);
	if (asprintf(url, "%.*s%s%s?%s&X-Amz-Signature=%s", (int)(h - s->c.endpoint), s->c.endpoint, host, path, query,
		     sig) < 0) {
		*url = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	return 0;
}
