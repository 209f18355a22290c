/*
 * A remote in a bucket of an S3-compatible store (s3.h). Under its prefix:
 *
 *   labrun-remote.json   {"labrun_remote": 1}, written by 'remote init'
 *   objects/SHA256       each object's bytes, named by their digest
 *   bundles/SHA256       each run's bundle, named by its digest
 *   runs/UUID.json       a run's index: its bundle's digest, what a pull
 *                        filters on, and who pushed it from where
 *
 * Nothing is ever replaced: every write asks the service to refuse one
 * that would (If-None-Match: *), so hosts pushing to one prefix at once need
 * no lock; the first index of a uuid wins, and another bundle for it is
 * refused as the PostgreSQL remote refuses it. Whatever is read back is
 * data: an index is checked, a bundle's digest is the caller's to check
 * (lr_bundle_parse), an object's is checked here before it is kept.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/buf.h"
#include "base/list.h"
#include "store/objects.h"
#include "store/remote-int.h"
#include "store/s3.h"

#define LAYOUT    1
#define INDEX_MAX (1 << 20) /* bytes of a run's index */
#define MARKER    "labrun-remote.json"

struct s3_remote {
	struct lr_remote base;
	struct lr_s3 *s3;
};

#define S3R(r) (((struct s3_remote *)(r))->s3)

/* PUT 'text' as 'key' unless something is there; *exists says which. */
static int put_text(struct lr_s3 *s, const char *key, const char *text, int *exists)
{
	char hex[LR_SHA256_HEX];
	struct lr_s3_body b = { text, strlen(text), -1, 0, hex };
	int rc;

	if ((rc = lr_sha256_buf(text, b.len, hex)))
		return rc;
	return lr_s3_put(s, key, &b, 1, exists);
}

/* ---- runs' indexes ---- */

struct run_index {
	char uuid[37], bundle[LR_SHA256_HEX], *hostname, *pushed_at, *pushed_by, *pushed_from;
	json_t *issues;
};

static void index_release(struct run_index *x)
{
	free(x->hostname);
	free(x->pushed_at);
	free(x->pushed_by);
	free(x->pushed_from);
	json_decref(x->issues);
	memset(x, 0, sizeof *x);
}

static int is_hex64(const char *s)
{
	return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* Text another host wrote that labrun prints: no control characters (C0, DEL, C1: a terminal's escapes). */
static int is_visible(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 0;
	return 1;
}

/* Run 'uuid's index from the bucket, checked; LR_ENOTFOUND when there is none. */
static int index_read(struct lr_remote *r, const char *uuid, struct run_index *x)
{
	const char *bundle, *host, *at, *by, *from;
	struct lr_buf b = LR_BUF_INIT;
	char key[64];
	json_t *j = NULL;
	int rc, found;

	memset(x, 0, sizeof *x);
	snprintf(key, sizeof key, "runs/%s.json", uuid);
	if ((rc = lr_s3_get(S3R(r), key, INDEX_MAX, lr_s3_to_buf, &b, &found)))
		goto out;
	if (!found) {
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' has no run %s", r->name, uuid);
		goto out;
	}
	j = json_loadb(b.buf, b.len, 0, NULL);
	if (json_unpack(j, "{s:s, s:s, s:s, s:s, s:s, s:o}", "bundle_sha256", &bundle, "hostname", &host, "pushed_at",
			&at, "pushed_by", &by, "pushed_from", &from, "issues", &x->issues) ||
	    !is_hex64(bundle) || !json_is_array(x->issues) || !is_visible(host) || !is_visible(by) ||
	    !is_visible(from)) {
		x->issues = NULL;
		rc = lr_error_set(LR_EINVAL, "remote '%s' (%s) holds an index of run %s that is not labrun's", r->name,
				  lr_s3_where(S3R(r)), uuid);
		goto out;
	}
	json_incref(x->issues);
	snprintf(x->uuid, sizeof x->uuid, "%s", uuid);
	snprintf(x->bundle, sizeof x->bundle, "%s", bundle);
	if (!(x->hostname = strdup(host)) || !(x->pushed_at = strdup(at)) || !(x->pushed_by = strdup(by)) ||
	    !(x->pushed_from = strdup(from)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
out:
	json_decref(j);
	lr_buf_release(&b);
	if (rc)
		index_release(x);
	return rc;
}

static char *index_text(const struct lr_bundle *b, const char *key_id, const char *from_host)
{
	json_t *j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[]}", "labrun_run_index", LAYOUT,
			      "uuid", b->uuid, "bundle_sha256", b->sha256, "kind", b->kind, "status", b->status,
			      "hostname", b->hostname, "started_at", b->started_at, "pushed_by", key_id, "pushed_from",
			      from_host, "pushed_at", "", "issues");
	char *now = lr_now_iso(), *text = NULL;
	size_t i;

	if (j && now && !json_object_set_new(j, "pushed_at", json_string(now))) {
		for (i = 0; i < b->issues.n; i++)
			json_array_append_new(json_object_get(j, "issues"), json_string(b->issues.v[i]));
		text = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	}
	free(now);
	json_decref(j);
	return text;
}

/* ---- the remote's operations ---- */

static int s3_init(struct lr_remote *r, int *applied, int *version)
{
	char text[64];
	int rc, exists;

	snprintf(text, sizeof text, "{\"labrun_remote\":%d}\n", LAYOUT);
	rc = put_text(S3R(r), MARKER, text, &exists);
	*applied = !rc && !exists;
	*version = LAYOUT;
	return rc;
}

int lr_s3_object_put(struct lr_s3 *s3, const char *name, const char *store_dir, const char *sha256, int64_t size,
		     int *sent)
{
	char key[80], *path = NULL;
	int64_t there;
	int rc, found;

	*sent = 0;
	snprintf(key, sizeof key, "objects/%s", sha256);
	if ((rc = lr_s3_head(s3, key, &found, &there)) || found) /* a first look, before the object is read */
		return rc;
	if (!(path = lr_obj_path(store_dir, sha256)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	/* its name is what the bucket will call it for good: the bytes must be those it names (in parts, each
	 * part is hashed as it is read, and the upload is completed only when they all give the name) */
	if (size > lr_s3_part_size() || !(rc = lr_obj_verify(store_dir, sha256)))
		rc = lr_s3_put_file(s3, key, path, size, sha256, sent);
	free(path);
	return rc;
}

static int s3_has_run(struct lr_remote *r, const char *uuid, int *has)
{
	char key[64];
	int64_t size;

	snprintf(key, sizeof key, "runs/%s.json", uuid);
	return lr_s3_head(S3R(r), key, has, &size);
}

/* The uuid's index is there: the same bundle is an earlier push, another is a conflict. */
static int present(struct lr_remote *r, const struct lr_bundle *b, int *outcome)
{
	struct run_index x;
	int rc;

	if ((rc = index_read(r, b->uuid, &x)))
		return rc;
	if (!strcmp(x.bundle, b->sha256)) {
		*outcome = LR_PUSH_PRESENT;
	} else {
		rc = lr_error_set(LR_EREFUSED,
				  "remote '%s' refuses run %s: it holds that uuid with other content "
				  "(bundle %.12s..., pushed by %s from %s; this one is %.12s...)",
				  r->name, b->uuid, x.bundle, x.pushed_by, x.pushed_from, b->sha256);
		lr_error_hint(
			"the run changed after it was pushed (a later ingest, compare or gate?): the remote keeps its "
			"first copy; put the amendment in a run of its own and push that");
	}
	index_release(&x);
	return rc;
}

static int s3_put_run(struct lr_remote *r, const struct lr_bundle *b, const char *from_host, int *outcome)
{
	char key[80], *index;
	int rc, exists;

	*outcome = 0;
	snprintf(key, sizeof key, "bundles/%s", b->sha256);
	if ((rc = put_text(S3R(r), key, b->text, &exists)))
		return rc;
	if (!(index = index_text(b, lr_s3_key_id(S3R(r)), from_host)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	snprintf(key, sizeof key, "runs/%s.json", b->uuid);
	if (!(rc = put_text(S3R(r), key, index, &exists)))
		rc = exists ? present(r, b, outcome) : (*outcome = LR_PUSH_NEW, 0);
	free(index);
	return rc;
}

struct listing {
	struct lr_remote *r;
	const struct lr_remote_filter *f;
	struct run_index *v;
	size_t n, cap;
};

static int wanted_uuid(const struct lr_strlist *l, const char *uuid)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strncmp(uuid, l->v[i], strlen(l->v[i])))
			return 1;
	return !l || !l->n;
}

static int wanted_index(const struct lr_remote_filter *f, const struct run_index *x)
{
	size_t i;
	json_t *v;

	if (f->host && strcmp(f->host, x->hostname))
		return 0;
	json_array_foreach(x->issues, i, v)
		if (!f->issue || (json_is_string(v) && !strcmp(json_string_value(v), f->issue)))
			return 1;
	return !f->issue;
}

/* A key under runs/: a run's index, read when its uuid is wanted, kept when the filter takes it. */
static int on_run_key(void *arg, const char *key)
{
	struct listing *l = arg;
	char uuid[37];
	int rc;

	if (strlen(key) != 5 + 36 + 5 || strcmp(key + 41, ".json") ||
	    strspn(key + 5, "0123456789abcdef-") != 36) /* not an index labrun wrote: not a run */
		return 0;
	snprintf(uuid, sizeof uuid, "%.36s", key + 5);
	if (!wanted_uuid(l->f->uuids, uuid))
		return 0;
	if (LR_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return LR_ENOMEM;
	if ((rc = index_read(l->r, uuid, &l->v[l->n])) == LR_EINVAL || rc == LR_ENOTFOUND) {
		lr_error_clear();
		if (rc == LR_ENOTFOUND || l->f->issue || l->f->host)
			return 0; /* gone since the listing, or a filter needs what it cannot say */
		/* not labrun's: listed last, so that reading it refuses this run by name and the others come */
		if (!(l->v[l->n].pushed_at = strdup("~")))
			return LR_ENOMEM;
		snprintf(l->v[l->n++].uuid, sizeof l->v[0].uuid, "%s", uuid);
		return 0;
	}
	if (rc)
		return rc;
	if (wanted_index(l->f, &l->v[l->n]))
		l->n++;
	else
		index_release(&l->v[l->n]);
	return 0;
}

static int by_push(const void *a, const void *b)
{
	const struct run_index *x = a, *y = b;
	int c = strcmp(x->pushed_at, y->pushed_at);

	return c ? c : strcmp(x->uuid, y->uuid);
}

static int s3_runs(struct lr_remote *r, const struct lr_remote_filter *f, lr_remote_run_fn fn, void *arg)
{
	struct listing l = { r, f, NULL, 0, 0 };
	size_t i;
	int rc;

	if (!(rc = lr_s3_list(S3R(r), "runs/", on_run_key, &l)) && l.n) /* qsort's array may not be NULL */
		qsort(l.v, l.n, sizeof *l.v, by_push);
	for (i = 0; i < l.n; i++) {
		if (!rc)
			rc = fn(arg, l.v[i].uuid, l.v[i].bundle);
		index_release(&l.v[i]);
	}
	free(l.v);
	return rc;
}

static int s3_get_run(struct lr_remote *r, const char *uuid, char **text, char **sha256, char **pushed_by,
		      char **pushed_from)
{
	struct run_index x;
	struct lr_buf b = LR_BUF_INIT;
	char key[80];
	int64_t size;
	int rc, found;

	*text = *sha256 = *pushed_by = *pushed_from = NULL;
	if ((rc = index_read(r, uuid, &x)))
		return rc;
	snprintf(key, sizeof key, "bundles/%s", x.bundle);
	if (!(rc = lr_s3_head(S3R(r), key, &found, &size)) && !found)
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' lacks the bundle of run %s (%.12s...)", r->name, uuid,
				  x.bundle);
	else if (!rc && size > lr_bundle_max()) { /* never over the wire: its JSON would cost several times it */
		rc = lr_error_set(LR_EINVAL,
				  "refusing to pull run %s from remote '%s': its bundle is %lld bytes, more than %lld",
				  uuid, r->name, (long long)size, (long long)lr_bundle_max());
		lr_error_hint("a bundle is a run's rows, megabytes for a large one; if this run is one you expect, "
			      "raise the cap with LABRUN_MAX_BUNDLE=BYTES");
	} else if (!rc && !(rc = lr_s3_get(S3R(r), key, lr_bundle_max(), lr_s3_to_buf, &b, &found)) && !found) {
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' lacks the bundle of run %s", r->name, uuid);
	}
	if (!rc && (!(*text = lr_buf_detach(&b, NULL)) || !(*sha256 = strdup(x.bundle)) ||
		    !(*pushed_by = strdup(x.pushed_by)) || !(*pushed_from = strdup(x.pushed_from))))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	lr_buf_release(&b);
	if (rc) {
		free(*text);
		free(*sha256);
		free(*pushed_by);
		*text = *sha256 = *pushed_by = NULL;
	}
	index_release(&x);
	return rc;
}

/* Where an object's bytes go: the store's writer, their progress shown. */
struct incoming {
	struct lr_objw *w;
	const char *sha256;
	int64_t got, size;
};

static int to_objw(void *arg, const void *data, size_t len)
{
	struct incoming *in = arg;

	in->got += (int64_t)len;
	lr_obj_step(in->sha256, in->got, in->size);
	return lr_objw_write(in->w, data, len);
}

int lr_s3_object_get(struct lr_s3 *s3, const char *name, const char *store_dir, const char *sha256, int64_t expect)
{
	struct lr_objw *w = NULL;
	struct incoming in = { NULL, sha256, 0, 0 };
	char key[80], hex[LR_SHA256_HEX];
	int64_t want, size = 0;
	int rc, found;

	snprintf(key, sizeof key, "objects/%s", sha256);
	if ((rc = lr_s3_head(s3, key, &found, &want)))
		return rc;
	if (!found) {
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' has no object %s", name, sha256);
		lr_error_hint("push the run that names it from the host that recorded it");
		return rc;
	}
	if ((rc = lr_remote_size_differs(name, sha256, want, expect)) || (rc = lr_objw_open(&w, store_dir, NULL)))
		return rc;
	in.w = w;
	in.size = want;
	if ((rc = lr_s3_get(s3, key, want, to_objw, &in, &found)) || !found) {
		lr_objw_abort(w);
		return rc ? rc : lr_error_set(LR_ENOTFOUND, "remote '%s' has no object %s", name, sha256);
	}
	if (!(rc = lr_objw_commit(w, hex, &size)) && (strcmp(hex, sha256) || size != want)) {
		rc = lr_error_set(LR_EIO,
				  "object %s from remote '%s' does not match its name (%lld bytes, sha256 %.12s...)",
				  sha256, name, (long long)size, hex);
		lr_error_hint("the remote's copy is damaged: push it again from a store that holds it");
	}
	return rc;
}

static int s3_put_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size, int *sent)
{
	return lr_s3_object_put(S3R(r), r->name, store_dir, sha256, size, sent);
}

static int s3_get_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t expect)
{
	return lr_s3_object_get(S3R(r), r->name, store_dir, sha256, expect);
}

static void s3_free(struct lr_remote *r)
{
	lr_s3_free(S3R(r));
	free(r->name);
	free(r);
}

static const struct lr_remote_ops s3_ops = { s3_init, s3_put_object, s3_has_run,    s3_put_run,
					     s3_runs, s3_get_run,    s3_get_object, s3_free };

int lr_remote_s3_open(struct lr_remote **out, const char *name, const char *uri, int for_init)
{
	struct s3_remote *r;
	int64_t size;
	int rc, found = 1;

	*out = NULL;
	if (!(r = calloc(1, sizeof *r)) || !(r->base.name = strdup(name))) {
		free(r);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	r->base.ops = &s3_ops;
	if (!(rc = lr_s3_open(&r->s3, name, uri)) && !(rc = lr_s3_check(r->s3)) && !for_init &&
	    !(rc = lr_s3_head(r->s3, MARKER, &found, &size)) && !found) {
		rc = lr_error_set(LR_ESTORE, "remote '%s' (%s) is not a labrun remote yet", name, lr_s3_where(r->s3));
		lr_error_hint("make it one once: labrun remote init %s", name);
	}
	if (rc)
		s3_free(&r->base);
	else
		*out = &r->base;
	return rc;
}
