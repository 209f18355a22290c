#ifndef LR_STORE_S3_INT_H
#define LR_STORE_S3_INT_H

/* Inside the S3 client: the remote's URI and credentials (s3-conf.c), and one request (s3.c). */

#include "base/curl.h"
#include "store/s3.h"

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define PREFIX_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/"
#define ERROR_BODY   4096 /* bytes of an error's XML kept */

struct lr_s3_conf {
	char bucket[64], prefix[512], endpoint[512], region[64], style[16];
	int path_style;
	char key_id[128], secret[256], token[4096];
	char source[4200]; /* where the credentials came from, for messages */
};

/* ---- requests (s3.c), for the multipart upload (s3-multipart.c) ---- */

struct lr_s3 {
	struct lr_s3_conf c;
	char *name;
	char where[1200];
	char sigv4[96];
	CURL *easy; /* one handle, reset between requests: its connection is kept */
	int sock;   /* its connection's socket, -1 when none is open */
};

/* One request and what came back; a POST sends body->data, a PUT streams body. */
struct req {
	const char *method, *key, *query; /* key under the prefix, NULL for the bucket; query NULL or "a=b&..." */
	const struct lr_s3_body *body;    /* PUT */
	int only_new;
	lr_s3_sink_fn sink; /* a 2xx body's bytes */
	void *arg;
	int64_t max, got;
	size_t off;   /* bytes of the body sent */
	long status;  /* HTTP */
	int sink_rc;  /* the sink's refusal */
	int64_t size; /* HEAD: Content-Length */
	char err[ERROR_BODY];
	size_t errlen;
	char etag[128];   /* the answer's ETag header */
	struct lr_s3 *s3; /* the bucket it is sent to */
};

/* Run a request, retried while worth it: 0 with q->status a 2xx, 404 or 412 (the caller's to judge), else an error
 * naming 'what'. */
LR_MUST_CHECK int lr_s3_perform(struct lr_s3 *s, struct req *q, const char *what);

/* The error for a request that failed (cc a CURLcode, 0 when the service answered). */
int lr_s3_failed(struct lr_s3 *s, const struct req *q, const char *what, int cc);

/* Call fn for every element's name and text of an XML answer; -1 when it is not XML. */
int lr_s3_xml_each(const char *body, size_t len, void (*fn)(void *arg, const char *name, const char *text), void *arg);

/* The URI's parts, the defaults for those it leaves out, and the credentials (LR_ESTORE when there are none). */
LR_MUST_CHECK int lr_s3_conf_read(const char *name, const char *uri, struct lr_s3_conf *c);

#endif
