/* labrun verify: a crate's files, listed without following a link, hashed when a statement signs them, read strictly. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/lines.h"
#include "base/sha256.h"
#include "evidence/verify-int.h"

void lr_verify_problem(struct vctx *c, const char *file, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	(*c->problems)++;
	va_start(ap, fmt);
	c->fn(c->arg, file, lr_vfmt_cut(msg, sizeof msg, fmt, ap));
	va_end(ap);
}

/*
 * An entry of the crate, as lr_walk finds it (no link followed): a regular
 * file is listed, not read (file_sha reads those a statement signs); a link
 * could lead out of the crate and a FIFO or device hang or never end, so
 * each is a problem, and nothing is opened through it.
 */
int lr_verify_found(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct vctx *c = arg;

	(void)full;
	if (type == LR_WALK_LINK)
		lr_verify_problem(c, rel,
				  "is a symbolic link: a crate holds files only, and verify follows no link out of it");
	else if (type == LR_WALK_SPECIAL)
		lr_verify_problem(
			c, rel, "is a FIFO, socket or device: a crate holds regular files only, and verify opens none");
	else if (type == LR_WALK_FILE)
		return lr_kvlist_add(&c->files, rel, "", NULL);
	return 0;
}

/* The sha256 of crate file 'rel', hashed the first time it is asked for; NULL when the crate has no such file. */
const char *lr_verify_file_sha(struct vctx *c, const char *rel)
{
	struct lr_kv *kv = lr_kvlist_find(&c->files, rel);
	char full[PATH_MAX * 2], hex[LR_SHA256_HEX];
	char *sum;

	if (!kv || kv->value[0])
		return kv ? kv->value : NULL;
	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (lr_sha256_regular(full, hex, NULL)) { /* replaced since the walk: named once, never equal */
		lr_verify_problem(c, rel, "cannot be read: %s", lr_error_msg());
		lr_error_clear();
		snprintf(hex, sizeof hex, "unreadable");
	}
	if (!(sum = strdup(hex)))
		return NULL;
	free(kv->value);
	kv->value = sum;
	lr_progress_update(c->hashing, ++c->hashed);
	return kv->value;
}

/* Whether the crate holds the file 'rel' (listed, not read). */
int lr_verify_has_file(const struct vctx *c, const char *rel)
{
	return lr_kvlist_find(&c->files, rel) != NULL;
}

/* The JSON of crate file 'rel', or NULL (a problem) when it is missing or not JSON. */
json_t *lr_verify_read_json(struct vctx *c, const char *rel)
{
	char full[PATH_MAX * 2], *text = NULL;
	json_error_t err;
	struct stat sb;
	json_t *j;
	size_t len;

	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (!lr_verify_has_file(c, rel)) { /* not listed: absent, or there but no regular file (never read) */
		lr_verify_problem(c, rel,
				  lstat(full, &sb) ? "is missing"
						   : "cannot be read: it is not a regular file (a link, FIFO "
						     "or device)");
		return NULL;
	}
	/* bounded, and never a FIFO or a link: a crate is hostile until verified */
	if (lr_read_regular_text(rel, full, LR_CRATE_JSON_MAX, &text, &len)) {
		lr_verify_problem(c, rel, "cannot be read: %s", lr_error_msg());
		lr_error_clear();
		return NULL;
	}
	if (!(j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err))) /* a key twice: readers could differ */
		lr_verify_problem(c, rel, "is not JSON: %s (line %d)", err.text, err.line);
	free(text);
	return j;
}
