#ifndef LR_STORE_S3_H
#define LR_STORE_S3_H

/*
 * A bucket of an S3-compatible object store, spoken to over HTTP through
 * libcurl (base/curl.h), every request signed with AWS Signature Version 4
 * by libcurl itself (CURLOPT_AWS_SIGV4); labrun only adds the payload's
 * SHA-256 header, which Debian 12's libcurl does not. A remote's URI is
 *
 *   s3://BUCKET[/PREFIX][?endpoint=URL&region=REGION&style=path|virtual]
 *
 * with PREFIX of letters, digits and '.', '_', '-', '/'. Without an
 * endpoint: $AWS_ENDPOINT_URL, else AWS (https://s3.REGION.amazonaws.com,
 * virtual-host style); without a region: $AWS_REGION, $AWS_DEFAULT_REGION,
 * else us-east-1; style path unless the endpoint is AWS's. The credentials
 * are the user's, never in the URI or the store: $AWS_ACCESS_KEY_ID and
 * $AWS_SECRET_ACCESS_KEY ($AWS_SESSION_TOKEN with them), else the profile
 * $AWS_PROFILE (default "default") of $AWS_SHARED_CREDENTIALS_FILE (default
 * ~/.aws/credentials). Messages name the access key id and where it came
 * from, never the secret. Failures are LR_ESTORE; 500, 503 and SlowDown are
 * retried with backoff before they are.
 */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"

struct lr_s3;

/* Whether 'uri' is an s3:// URI this labrun reads: 0, or LR_EINVAL saying what is wrong (for 'remote add'). */
LR_MUST_CHECK int lr_s3_uri_check(const char *name, const char *uri);

/* Read the URI and the credentials for remote 'name'; no request is made. */
LR_MUST_CHECK int lr_s3_open(struct lr_s3 **out, const char *name, const char *uri);
void lr_s3_free(struct lr_s3 *s);

/*
 * Open the bucket of an object's URI, s3://BUCKET/PREFIX/NAME?..., for
 * 'who' (a command, for messages): the prefix is what comes before the last
 * '/', and 'key' gets NAME (letters, digits, '.', '_', '-').
 */
LR_MUST_CHECK int lr_s3_open_object(struct lr_s3 **out, const char *who, const char *uri, char *key, size_t size);

/* The URI of 'key' under the prefix, with the endpoint, region and style in use (malloc'd; no credentials). */
LR_MUST_CHECK int lr_s3_uri_of(const struct lr_s3 *s, const char *key, char **uri);

/* "bucket 'b', prefix 'p/', at http://127.0.0.1:9000" for messages */
const char *lr_s3_where(const struct lr_s3 *s);

/* What a PUT sends: 'len' bytes at 'data', or 'size' bytes of file 'fd' from its start; their SHA-256 in hex. */
struct lr_s3_body {
	const void *data;
	size_t len;
	int fd; /* -1: data */
	int64_t size;
	const char *sha256;
};

/*
 * PUT 'key' (under the remote's prefix). With 'only_new', the server is
 * asked not to replace an object there (If-None-Match: *): *exists is then
 * 1 when it refused, and nothing was written.
 */
LR_MUST_CHECK int lr_s3_put(struct lr_s3 *s, const char *key, const struct lr_s3_body *b, int only_new, int *exists);

#define LR_S3_PART_MIN ((int64_t)5 << 20)  /* S3's smallest part but the last */
#define LR_S3_PART     ((int64_t)16 << 20) /* labrun's: objects larger are sent in parts of it */

/*
 * PUT 'size' bytes of file 'fd' as 'key' in parts of 'part' bytes (at least
 * LR_S3_PART_MIN; larger when 10,000 would not hold the file), one in memory
 * at a time, each with its SHA-256 for the service to check. An unfinished
 * upload of the same key is continued: a part the service holds whose ETag
 * is the MD5 of the local part is not sent again. *sent and *kept count the
 * parts sent and found. The upload is completed only when the file's bytes,
 * hashed part by part as they are read, give 'sha256'; the object appears
 * whole then, or not at all.
 */
LR_MUST_CHECK int lr_s3_put_parts(struct lr_s3 *s, const char *key, int fd, int64_t size, int64_t part,
				  const char *sha256, int *sent, int *kept);

/* The part size: $LABRUN_S3_PART_SIZE bytes when at least LR_S3_PART_MIN, else LR_S3_PART. */
int64_t lr_s3_part_size(void);

/*
 * PUT file 'path' ('size' bytes whose SHA-256 is 'sha256') as 'key' unless
 * the bucket holds it: in one request, or in parts (lr_s3_put_parts) when
 * larger than lr_s3_part_size(); then HEAD says the bucket holds 'size'
 * bytes under 'key'. *sent is 1 when this call wrote it.
 */
LR_MUST_CHECK int lr_s3_put_file(struct lr_s3 *s, const char *key, const char *path, int64_t size, const char *sha256,
				 int *sent);

/* HEAD 'key': *found, and its size when found. */
LR_MUST_CHECK int lr_s3_head(struct lr_s3 *s, const char *key, int *found, int64_t *size);

/* GET 'key', its bytes to 'sink' as they come (at most 'max' of them, else LR_EINVAL); *found 0 when it is not there. */
typedef int (*lr_s3_sink_fn)(void *arg, const void *data, size_t len);
/* A sink that appends to the struct lr_buf at 'arg' (base/buf.h). */
int lr_s3_to_buf(void *arg, const void *data, size_t len);
LR_MUST_CHECK int lr_s3_get(struct lr_s3 *s, const char *key, int64_t max, lr_s3_sink_fn sink, void *arg, int *found);

/* Every key that starts with 'sub' under the prefix, in the bucket's order, without the prefix. */
typedef int (*lr_s3_key_fn)(void *arg, const char *key);
LR_MUST_CHECK int lr_s3_list(struct lr_s3 *s, const char *sub, lr_s3_key_fn fn, void *arg);

/* A request that proves the bucket is there and the credentials are taken (one LIST of one key). */
LR_MUST_CHECK int lr_s3_check(struct lr_s3 *s);

/*
 * A URL anyone can GET 'key' with, without credentials, for 'expires_s'
 * seconds (1 s to 7 days) from 'now': AWS Signature Version 4 in the query
 * (s3-presign.c; libcurl does not presign). *url is malloc'd; it carries the
 * access key id, never the secret.
 */
LR_MUST_CHECK int lr_s3_presign(struct lr_s3 *s, const char *key, long expires_s, time_t now, char **url);

/* The access key id requests are signed with (never the secret). */
const char *lr_s3_key_id(const struct lr_s3 *s);

#endif
