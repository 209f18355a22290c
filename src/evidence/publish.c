/* Archives in a bucket: copied there with their statements, and read back (publish.h). */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/dsse.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/progress.h"
#include "base/trust.h"
#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/attest.h"
#include "evidence/publish.h"
#include "store/s3.h"

#define STATEMENT_MAX (1 << 20) /* bytes of a statement read back */
#define SUFFIX        ".tar.zst"

void lr_published_release(struct lr_published *p)
{
	free(p->uri);
	p->uri = NULL;
}

/* The statement of 'key' ('size' bytes, 'sha256'), signed by 's': its text, and its own digest. */
static int statement(const struct lr_signer *s, const char *key, int64_t size, const char *sha256, char **text,
		     char hex[LR_SHA256_HEX])
{
	json_t *subjects = json_pack("[{s:s, s:{s:s}}]", "name", key, "digest", "sha256", sha256),
	       *pred = s ? json_pack("{s:I, s:s}", "bytes", (json_int_t)size, "key", lr_signer_public(s))
			 : json_pack("{s:I}", "bytes", (json_int_t)size);
	int rc = !subjects || !pred ? lr_error_set(LR_ENOMEM, "out of memory")
				    : lr_attest_text(s, subjects, LR_ARCHIVE_PREDICATE, pred, text);

	json_decref(subjects);
	json_decref(pred);
	return rc ? rc : lr_sha256_buf(*text, strlen(*text), hex);
}

/* The statement at 'skey' into 'b': *found; *over when it is over STATEMENT_MAX (then not read, and no error). */
static int get_statement(struct lr_s3 *s3, const char *skey, struct lr_buf *b, int *found, int *over)
{
	int rc = lr_s3_get(s3, skey, STATEMENT_MAX, lr_s3_to_buf, b, found);

	if ((*over = rc == LR_EINVAL)) { /* one no reader would take: the copy's problem, not an error here */
		lr_error_clear();
		rc = 0;
	}
	return rc;
}

/* Whether the bucket's 'skey' holds other bytes than 'text' (or is over 1 MiB). */
static int same_text(struct lr_s3 *s3, const char *skey, const char *text, int *differs)
{
	struct lr_buf b = LR_BUF_INIT;
	int rc, found = 0, over;

	rc = get_statement(s3, skey, &b, &found, &over);
	*differs = !found || over || b.len != strlen(text) || memcmp(b.buf, text, b.len);
	lr_buf_release(&b);
	return rc;
}

int lr_archive_publish(const char *name, const char *uri, const char *path, const struct lr_signer *s,
		       struct lr_published *p)
{
	struct lr_progress *progress;
	struct lr_s3 *s3 = NULL;
	char key[128], skey[128], *text = NULL, hex[LR_SHA256_HEX];
	int rc, exists = 0;

	memset(p, 0, sizeof *p);
	if ((rc = lr_sha256_regular(path, p->sha256, &p->size)) || (rc = lr_s3_open(&s3, name, uri)))
		goto out;
	snprintf(key, sizeof key, "archives/%s" SUFFIX, p->sha256);
	snprintf(skey, sizeof skey, "archives/%s.intoto.json", p->sha256);
	progress = lr_progress_start("copying", "archive", 1);
	rc = statement(s, key + strlen("archives/"), p->size, p->sha256, &text, hex); /* named as in the bucket */
	if (!rc)
		rc = lr_s3_put_file(s3, key, path, p->size, p->sha256, &p->sent);
	lr_progress_update(progress, !rc);
	lr_progress_stop(&progress);
	if (rc)
		goto out;
	const struct lr_s3_body b = { text, strlen(text), -1, 0, hex };

	/* one there already is the first one written for these bytes, perhaps signed by another key: it stays */
	if (!(rc = lr_s3_put(s3, skey, &b, 1, &exists)) && exists)
		rc = same_text(s3, skey, text, &p->statement_differs);
	if (!rc)
		rc = lr_s3_uri_of(s3, key, &p->uri);
	p->statement_sent = !exists;
out:
	if (rc)
		lr_error_wrap("cannot copy archive '%s' to '%s'", path, name);
	free(text);
	lr_s3_free(s3);
	return rc;
}

void lr_fetched_release(struct lr_fetched *f)
{
	if (f->dir[0])
		lr_remove_tree(f->dir);
	f->dir[0] = '\0';
	free(f->statement);
	f->statement = NULL;
}

/* Where the bytes of a GET go: a file, hashed as they come. */
struct sink {
	int fd;
	struct lr_sha256 h;
	const char *path, *key;
	int64_t got, size;
};

static int to_file(void *arg, const void *data, size_t len)
{
	struct sink *k = arg;
	const char *p = data;

	lr_sha256_update(&k->h, data, len);
	k->got += (int64_t)len;
	lr_progress_step(k->key, k->got, k->size);
	while (len) {
		ssize_t n = write(k->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return lr_error_set(LR_EIO, "cannot write '%s': %s", k->path, n < 0 ? strerror(errno) : "");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* GET 'key' ('size' bytes, as HEAD said) into f->path, hashed into f->sha256. */
static int fetch_into(struct lr_s3 *s3, const char *key, int64_t size, struct lr_fetched *f)
{
	struct sink k = { -1, { 0 }, f->path, f->key, 0, size };
	int rc, found = 0;

	if ((rc = lr_sha256_init(&k.h)))
		return rc;
	if ((k.fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", f->path, strerror(errno));
	else if ((rc = lr_s3_get(s3, key, size, to_file, &k, &found)) == LR_EINVAL)
		rc = lr_error_set(LR_ESTORE, "%s sent more of '%s' than the %lld bytes it said it holds",
				  lr_s3_where(s3), key, (long long)size);
	else if (!rc && !found)
		rc = lr_error_set(LR_ENOTFOUND, "%s has no '%s' any more", lr_s3_where(s3), key);
	else if (!rc && k.got != size)
		rc = lr_error_set(LR_ESTORE, "%s sent %lld bytes of '%s', not the %lld it said it holds",
				  lr_s3_where(s3), (long long)k.got, key, (long long)size);
	if (k.fd >= 0 && close(k.fd) != 0 && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", f->path, strerror(errno));
	lr_sha256_final(&k.h, f->sha256);
	return rc;
}

int lr_copy_statement_key(const char *who, const char *key, char *out, size_t size)
{
	size_t n = strlen(key);

	if (n <= strlen(SUFFIX) || strcmp(key + n - strlen(SUFFIX), SUFFIX)) {
		lr_error_set(LR_EINVAL, "%s: '%s' is not an archive (its name does not end in %s)", who, key, SUFFIX);
		lr_error_hint("name the archive's copy as 'labrun archive --to' printed it");
		return LR_EINVAL;
	}
	return lr_path(out, size, "%.*s.intoto.json", (int)(n - strlen(SUFFIX)), key);
}

/* The statement beside archive 'key', when there is one. */
static int fetch_statement(struct lr_s3 *s3, const char *key, struct lr_fetched *f)
{
	struct lr_buf b = LR_BUF_INIT;
	char skey[300];
	int rc, found = 0;

	if ((rc = lr_copy_statement_key("read back", key, skey, sizeof skey)))
		return rc;
	if (!(rc = get_statement(s3, skey, &b, &found, &f->statement_over)) && found && !f->statement_over &&
	    !(f->statement = lr_buf_detach(&b, &f->statement_len)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	lr_buf_release(&b);
	return rc;
}

int lr_archive_fetch(const char *who, const char *uri, struct lr_fetched *f)
{
	struct lr_s3 *s3 = NULL;
	char skey[300];
	int rc, found = 0;

	memset(f, 0, sizeof *f);
	if ((rc = lr_s3_open_object(&s3, who, uri, f->key, sizeof f->key)))
		return rc;
	if ((rc = lr_copy_statement_key(who, f->key, skey, sizeof skey)))
		;
	else if (!(rc = lr_s3_head(s3, f->key, &found, &f->size)) && !found) {
		rc = lr_error_set(LR_ENOTFOUND, "%s: %s has no '%s'", who, lr_s3_where(s3), f->key);
		lr_error_hint("'labrun archive --to' prints the URI of each copy it makes");
	}
	if (!rc && !(rc = lr_temp_dir(f->dir, sizeof f->dir, "labrun-fetch")) &&
	    !(rc = lr_path(f->path, sizeof f->path, "%s/%s", f->dir, f->key))) {
		struct lr_progress *progress = lr_progress_start("reading back", "archive", 1);

		if (!(rc = fetch_into(s3, f->key, f->size, f)))
			rc = fetch_statement(s3, f->key, f);
		lr_progress_update(progress, !rc);
		lr_progress_stop(&progress);
	}
	lr_s3_free(s3);
	if (rc)
		lr_fetched_release(f);
	return rc;
}

int lr_fetched_unpack(const struct lr_fetched *f, char *dir, size_t size)
{
	int rc, members;

	if ((rc = lr_path(dir, size, "%s/crate", f->dir)))
		return rc;
	if (mkdir(dir, 0700) != 0)
		return lr_error_set(LR_EIO, "cannot create '%s': %s", dir, strerror(errno));
	return lr_archive_unpack(f->path, dir, &members);
}

int lr_fetched_local(const char *archive, const char *statement, struct lr_fetched *f)
{
	const char *base = strrchr(archive, '/') ? strrchr(archive, '/') + 1 : archive;
	int rc;

	memset(f, 0, sizeof *f);
	snprintf(f->key, sizeof f->key, "%s", base);
	if ((rc = lr_path(f->path, sizeof f->path, "%s",
			  archive)) || /* a link to it is followed, as verify follows it */
	    (rc = lr_sha256_file(archive, f->sha256, &f->size)))
		return rc;
	return lr_read_regular_text("the statement", statement, STATEMENT_MAX, &f->statement, &f->statement_len);
}

/* What the opened statement says of the copy: 0, or why it does not name these bytes. */
static int names_copy(const struct lr_fetched *f, const struct lr_dsse_opened *o, char why[512])
{
	json_t *st = json_loads(o->payload, JSON_REJECT_DUPLICATES, NULL), *subj = json_object_get(st, "subject"),
	       *bytes = json_object_get(json_object_get(st, "predicate"), "bytes");
	const char *type = json_string_value(json_object_get(st, "predicateType")),
		   *kind = json_string_value(json_object_get(st, "_type")),
		   *sha = json_string_value(
			   json_object_get(json_object_get(json_array_get(subj, 0), "digest"), "sha256"));
	int rc = LR_EREFUSED;

	if (!o->type || strcmp(o->type, LR_INTOTO_PAYLOAD_TYPE) || !kind || strcmp(kind, LR_INTOTO_STATEMENT) ||
	    !type || strcmp(type, LR_ARCHIVE_PREDICATE) || json_array_size(subj) != 1 || !sha ||
	    !json_is_integer(bytes))
		snprintf(why, 512, "its statement is not a labrun archive statement (%s, one subject, its bytes)",
			 LR_ARCHIVE_PREDICATE);
	else if (strcmp(sha, f->sha256))
		snprintf(why, 512, "its statement names sha256 %.16s..., the bytes read back are %.16s...", sha,
			 f->sha256);
	else if (json_integer_value(bytes) != f->size)
		snprintf(why, 512, "its statement names %lld bytes, the copy has %lld",
			 (long long)json_integer_value(bytes), (long long)f->size);
	else
		rc = 0; /* why[] keeps why the signature does not count, if it does not */
	json_decref(st);
	return rc;
}

/*
 * Open the envelope against 't'. A key trusted by its fingerprint alone needs its public key: the
 * statement names its signer's ("key"), used only when that key's fingerprint is trusted.
 */
static int open_statement(const json_t *env, const struct lr_trust *t, struct lr_dsse_opened *o)
{
	json_t *st;
	const char *key;
	char pub[LR_PUBKEY_HEX] = "";
	int rc = lr_dsse_open(env, t, NULL, 0, o);

	if (rc != LR_EREFUSED || !o->payload)
		return rc;
	st = json_loads(o->payload, 0, NULL);
	key = json_string_value(json_object_get(json_object_get(st, "predicate"), "key"));
	if (key && strlen(key) < sizeof pub)
		snprintf(pub, sizeof pub, "%s", key);
	json_decref(st);
	if (!pub[0])
		return rc;
	const char *const pubs[] = { pub };

	lr_dsse_opened_release(o);
	return lr_dsse_open(env, t, pubs, 1, o);
}

/* Whether the copy's name is a digest (64 hex digits, either case) other than its bytes'. */
static int name_differs(const struct lr_fetched *f)
{
	size_t n = strlen(f->key) - strlen(SUFFIX);

	return n == LR_SHA256_HEX - 1 && strspn(f->key, "0123456789abcdefABCDEF") == n &&
	       strncasecmp(f->key, f->sha256, n);
}

int lr_fetched_check(const struct lr_fetched *f, const struct lr_trust *t, char principal[128], char why[512])
{
	struct lr_dsse_opened o = { 0 };
	json_t *env = NULL;
	int rc = LR_EREFUSED;

	principal[0] = why[0] = '\0';
	if (name_differs(f))
		snprintf(why, 512, "its bytes hash to %.16s..., not to the digest its name gives", f->sha256);
	else if (f->statement_over)
		snprintf(why, 512, "the statement beside it is over %d bytes: not read", STATEMENT_MAX);
	else if (!f->statement)
		snprintf(why, 512, "there is no signed statement beside it (%.*s.intoto.json)",
			 (int)(strlen(f->key) - strlen(SUFFIX)), f->key);
	else if (!(env = json_loadb(f->statement, f->statement_len, JSON_REJECT_DUPLICATES, NULL)))
		snprintf(why, 512, "the statement beside it is not JSON, or names a key twice");
	else if ((rc = open_statement(env, t, &o)) == LR_EINVAL) {
		snprintf(why, 512, "the statement beside it: %s", lr_error_msg());
		rc = LR_EREFUSED;
	} else if (rc == 0 || rc == LR_EREFUSED) {
		int trusted = !rc;

		if (!trusted)
			snprintf(why, 512, "%s", lr_error_msg());
		if (!(rc = names_copy(f, &o, why)) && trusted)
			snprintf(principal, 128, "%s", o.principal);
	}
	if (rc == 0 || rc == LR_EREFUSED)
		lr_error_clear();
	lr_visible(why, 512, why); /* the envelope's words (a key id) came from the bucket */
	lr_visible(principal, 128, principal);
	lr_dsse_opened_release(&o);
	json_decref(env);
	return rc;
}
