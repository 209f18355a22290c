/*
 * A large object sent in parts (S3's multipart upload), resumable: an upload
 * of the same key left unfinished (a push killed, a link lost) is found and
 * continued, and a part the service holds already is sent again only when
 * its ETag is not the MD5 of the local part. One part is in memory at a time.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/buf.h"
#include "base/sha256.h"
#include "store/objects.h"
#include "store/s3-int.h"

#define MAX_PARTS 10000 /* S3's limit */

struct held {
	char etag[128]; /* as the service gave it, quotes included */
	int64_t size;
};

struct upload {
	struct lr_s3 *s;
	const char *key;   /* under the prefix */
	char full[1100];   /* the key in the bucket */
	char id[1024];     /* the upload's id */
	struct held *held; /* by part number - 1: what the service holds already */
	int nparts;
	int64_t marker;     /* listing parts: the next page's marker, 0 at the end */
	struct lr_buf body; /* an answer's XML */
	int part;           /* the part the listing is in */
	int64_t size;       /* its size */
	char etag[128];
	char seen[1024]; /* listing uploads: the id in the <Upload> being read */
};

/* A request of this upload; its answer's body in u->body. */
static int ask(struct upload *u, struct req *q, const char *what)
{
	int rc;

	lr_buf_reset(&u->body);
	q->sink = lr_s3_to_buf;
	q->arg = &u->body;
	q->max = 16 << 20;
	if ((rc = lr_s3_perform(u->s, q, what)))
		return rc;
	return q->status == 404 ? lr_s3_failed(u->s, q, what, 0) : 0;
}

static char *escape(struct upload *u, const char *text)
{
	char *e = curl_easy_escape(u->s->easy, text, 0);

	if (!e)
		lr_error_set(LR_ENOMEM, "out of memory");
	return e;
}

/* ---- finding an unfinished upload, or starting one ---- */

/* An <Upload>'s Key and UploadId, in either order (services differ); the first for this key is taken. */
static void on_upload(void *arg, const char *name, const char *text)
{
	struct upload *u = arg;

	if (!strcmp(name, "Key"))
		u->part = !strcmp(text, u->full);
	else if (!strcmp(name, "UploadId"))
		snprintf(u->seen, sizeof u->seen, "%s", text);
	else if (!strcmp(name, "Upload") || !strcmp(name, "InitiateMultipartUploadResult")) {
		if ((u->part || name[0] == 'I') && !u->id[0] && u->seen[0])
			snprintf(u->id, sizeof u->id, "%s", u->seen);
		u->part = 0;
		u->seen[0] = '\0';
	}
}

static int find_or_start(struct upload *u)
{
	struct req q = { .method = "GET" };
	char query[2400], *e;
	int rc;

	if (!(e = escape(u, u->full)))
		return LR_ENOMEM;
	snprintf(query, sizeof query, "prefix=%s&uploads=", e); /* in name order: libcurl signs it as given */
	curl_free(e);
	q.query = query;
	if ((rc = ask(u, &q, "list unfinished uploads")))
		return rc;
	lr_s3_xml_each(u->body.buf, u->body.len, on_upload, u);
	if (u->id[0])
		return 0;
	{
		struct lr_s3_body empty = { "", 0, -1, 0, EMPTY_SHA256 };
		struct req start = { .method = "POST", .key = u->key, .query = "uploads=", .body = &empty };

		if ((rc = ask(u, &start, "start an upload in parts")))
			return rc;
		lr_s3_xml_each(u->body.buf, u->body.len, on_upload, u);
	}
	if (!u->id[0])
		return lr_error_set(LR_ESTORE, "remote '%s' (%s) started an upload of '%s' without saying its id",
				    u->s->name, u->s->where, u->key);
	return 0;
}

/* ---- the parts the service holds ---- */

static void on_part(void *arg, const char *name, const char *text)
{
	struct upload *u = arg;

	if (!strcmp(name, "PartNumber"))
		u->part = atoi(text);
	else if (!strcmp(name, "ETag"))
		snprintf(u->etag, sizeof u->etag, "%s", text);
	else if (!strcmp(name, "Size"))
		u->size = strtoll(text, NULL, 10);
	else if (!strcmp(name, "Part") && u->part >= 1 && u->part <= u->nparts) {
		snprintf(u->held[u->part - 1].etag, sizeof u->held[0].etag, "%s", u->etag);
		u->held[u->part - 1].size = u->size;
	} else if (!strcmp(name, "NextPartNumberMarker"))
		u->marker = strtoll(text, NULL, 10);
	else if (!strcmp(name, "IsTruncated") && strcmp(text, "true"))
		u->marker = 0;
}

static int list_parts(struct upload *u)
{
	char query[1400], *e;
	int rc = 0;

	if (!(e = escape(u, u->id)))
		return LR_ENOMEM;
	u->marker = 0;
	do {
		struct req q = { .method = "GET", .key = u->key, .query = query };
		int64_t was = u->marker;

		snprintf(query, sizeof query, "max-parts=1000&part-number-marker=%lld&uploadId=%s", (long long)was, e);
		u->marker = 0;
		if (!(rc = ask(u, &q, "list an upload's parts")))
			lr_s3_xml_each(u->body.buf, u->body.len, on_part, u);
		if (u->marker <= was)
			u->marker = 0;
	} while (!rc && u->marker);
	curl_free(e);
	return rc;
}

/* ---- sending ---- */

/* Part 'n' (from 1) of 'len' bytes in 'buf': kept when the service holds it whole, else sent. */
static int one_part(struct upload *u, int n, const char *buf, size_t len, int *sent)
{
	char md5[33], sha[LR_SHA256_HEX], query[1400], what[64], *e;
	struct held *h = &u->held[n - 1];
	struct lr_s3_body b = { buf, len, -1, 0, sha };
	struct req q = { .method = "PUT", .key = u->key, .query = query, .body = &b, .max = -1 };
	int rc;

	*sent = 0;
	if ((rc = lr_md5_buf(buf, len, md5)))
		return rc;
	if (h->size == (int64_t)len && strlen(h->etag) == 34 && !strncmp(h->etag + 1, md5, 32))
		return 0;
	if ((rc = lr_sha256_buf(buf, len, sha)) || !(e = escape(u, u->id)))
		return rc ? rc : LR_ENOMEM;
	snprintf(query, sizeof query, "partNumber=%d&uploadId=%s", n, e);
	curl_free(e);
	snprintf(what, sizeof what, "send part %d", n);
	if ((rc = lr_s3_perform(u->s, &q, what)))
		return rc;
	if (q.status == 404)
		return lr_s3_failed(u->s, &q, what, 0);
	snprintf(h->etag, sizeof h->etag, "%s", q.etag[0] ? q.etag : "");
	h->size = (int64_t)len;
	*sent = 1;
	return 0;
}

static void on_complete(void *arg, const char *name, const char *text)
{
	(void)text;
	if (!strcmp(name, "Error")) /* a 200 whose body is an error, as S3 may answer a long completion */
		*(int *)arg = 1;
}

/* Name every part with its ETag; the object appears whole, or not at all. */
static int complete(struct upload *u, int *exists)
{
	size_t len = 64 + (size_t)u->nparts * 200, at;
	char *xml = malloc(len), sha[LR_SHA256_HEX], query[1400], *e = NULL;
	struct lr_s3_body b = { NULL, 0, -1, 0, sha };
	struct req q = { .method = "POST", .key = u->key, .query = query, .body = &b, .only_new = 1 };
	int rc, error = 0;

	if (!xml || !(e = escape(u, u->id))) {
		free(xml);
		return LR_ENOMEM;
	}
	at = (size_t)snprintf(xml, len, "<CompleteMultipartUpload>");
	for (int i = 0; i < u->nparts; i++)
		at += (size_t)snprintf(xml + at, len - at, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>",
				       i + 1, u->held[i].etag);
	at += (size_t)snprintf(xml + at, len - at, "</CompleteMultipartUpload>");
	b.data = xml;
	b.len = at;
	snprintf(query, sizeof query, "uploadId=%s", e);
	curl_free(e);
	if (!(rc = lr_sha256_buf(xml, at, sha)) && !(rc = ask(u, &q, "complete an upload in parts"))) {
		*exists = q.status == 412;
		lr_s3_xml_each(u->body.buf, u->body.len, on_complete, &error);
		if (error)
			rc = lr_error_set(LR_ESTORE, "remote '%s' (%s) did not complete the upload of '%s': %.300s",
					  u->s->name, u->s->where, u->key, u->body.buf);
	}
	free(xml);
	return rc;
}

int lr_s3_put_parts(struct lr_s3 *s, const char *key, int fd, int64_t size, int64_t part, const char *sha256, int *sent,
		    int *kept)
{
	struct upload u = { .s = s, .key = key, .body = LR_BUF_INIT };
	struct lr_sha256 whole = { 0 };
	char *buf = NULL, hex[LR_SHA256_HEX];
	int rc, exists = 0;

	*sent = *kept = 0;
	if (part < LR_S3_PART_MIN)
		part = LR_S3_PART_MIN;
	if (size > part * MAX_PARTS)
		part = (size + MAX_PARTS - 1) / MAX_PARTS;
	u.nparts = (int)((size + part - 1) / part);
	snprintf(u.full, sizeof u.full, "%s%s", s->c.prefix, key);
	if (!(u.held = calloc((size_t)u.nparts, sizeof *u.held)) || !(buf = malloc((size_t)part))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory for a part of %lld bytes", (long long)part);
		goto out;
	}
	if ((rc = lr_sha256_init(&whole)) || (rc = find_or_start(&u)) || (rc = list_parts(&u)))
		goto out;
	for (int i = 0; i < u.nparts && !rc; i++) {
		size_t len = (size_t)(i + 1 < u.nparts ? part : size - part * i), got = 0;
		ssize_t n = 0;
		int one;

		while (got < len && (n = pread(fd, buf + got, len - got, (off_t)(part * i + (int64_t)got))) > 0)
			got += (size_t)n;
		if (got < len)
			rc = lr_error_set(LR_EIO, "cannot read part %d of '%s': %s", i + 1, key,
					  n < 0 ? strerror(errno) : "the file is shorter than its size");
		else if (!(rc = one_part(&u, i + 1, buf, len, &one)))
			*(one ? sent : kept) += 1;
		lr_obj_step(key, part * i + (int64_t)len, size);
		lr_sha256_update(&whole, buf, len);
	}
	lr_sha256_final(&whole, hex);
	if (!rc && strcmp(hex, sha256)) {
		rc = lr_error_set(LR_EIO,
				  "'%s' read from this store is not the object it names (sha256 %.12s...): "
				  "its upload is left unfinished",
				  key, hex);
		lr_error_hint("'labrun fsck' checks every object");
	}
	if (!rc && !(rc = complete(&u, &exists)) && exists) { /* another host's copy came first: this one goes */
		struct req q = { .method = "DELETE", .key = key, .max = -1 };
		char query[1400], *e = escape(&u, u.id);

		if (e) {
			snprintf(query, sizeof query, "uploadId=%s", e);
			q.query = query;
			if (lr_s3_perform(s, &q, "abandon a finished upload")) /* left over, it only costs space */
				lr_error_clear();
			curl_free(e);
		}
	}
out:
	if (whole.ctx)
		lr_sha256_release(&whole);
	free(buf);
	free(u.held);
	lr_buf_release(&u.body);
	return rc;
}

int64_t lr_s3_part_size(void)
{
	const char *env = getenv("LABRUN_S3_PART_SIZE");
	long long v = env && *env ? strtoll(env, NULL, 10) : 0;

	return v >= LR_S3_PART_MIN ? (int64_t)v : LR_S3_PART;
}

int lr_s3_put_file(struct lr_s3 *s, const char *key, const char *path, int64_t size, const char *sha256, int *sent)
{
	struct lr_s3_body b = { NULL, 0, -1, size, sha256 };
	int64_t there;
	int rc, found, exists = 0, parts = 0, kept = 0;

	*sent = 0;
	if ((rc = lr_s3_head(s, key, &found, &there)) || found)
		goto check;
	if ((b.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return lr_error_set(LR_EIO, "cannot send '%s' to %s: %s", path, lr_s3_where(s), strerror(errno));
	if (size > lr_s3_part_size())
		rc = lr_s3_put_parts(s, key, b.fd, size, lr_s3_part_size(), sha256, &parts, &kept);
	else
		rc = lr_s3_put(s, key, &b, 1, &exists);
	close(b.fd);
	*sent = !rc && !exists;
	if (!rc)
		rc = lr_s3_head(s, key, &found, &there);
check:
	if (!rc && (!found || there != size))
		rc = lr_error_set(LR_ESTORE, "%s holds '%s' with %lld bytes after %lld were sent", lr_s3_where(s), key,
				  (long long)(found ? there : 0), (long long)size);
	return rc;
}
