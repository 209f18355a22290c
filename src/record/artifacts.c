/*
 * Declared artifacts into the store: files by content, links as links,
 * empty directories by name, special files and secret content refused.
 */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/walk.h"
#include "record/artifacts.h"
#include "store/objects.h"

struct put_ctx {
	struct lr_run *run;
	const char *store_dir;
	const char *role;
	const char *declared; /* the path as the user gave it */
	struct lr_scrub *scrub;
	int secret;
	int follow; /* --follow-links */
};

static int scan_secret(void *arg, const void *data, size_t len)
{
	struct put_ctx *c = arg;
	int found = 0;
	int rc = lr_scrub_feed(c->scrub, data, len, NULL, NULL, &found);

	if (rc)
		return rc;
	if (found) {
		c->secret = 1;
		return lr_error_set(
			LR_EREFUSED,
			"refusing to store artifact '%s': it contains the value of a secret environment variable",
			c->declared);
	}
	return 0;
}

/*
 * The artifact name of an entry, whole (two long names cut to one would be
 * one artifact): the declared path, then its path below it. 0 or LR_ENOMEM.
 */
static int entry_name(const struct put_ctx *c, const char *rel, const char *suffix, struct lr_buf *name)
{
	lr_buf_adds(name, c->declared);
	if (*rel && c->declared[strlen(c->declared) - 1] != '/')
		lr_buf_addch(name, '/');
	lr_buf_adds(name, rel);
	lr_buf_adds(name, suffix);
	return lr_buf_error(name);
}

/* Whether 'full' or a directory between the declared path and it is a symlink; *target: where it leads. */
static int through_link(const struct put_ctx *c, const char *full, char *target, size_t len)
{
	char path[PATH_MAX], *slash;
	size_t root = strlen(c->declared);
	struct stat st;

	snprintf(path, sizeof path, "%s", full);
	for (;;) {
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return realpath(full, target) != NULL || (snprintf(target, len, "%s", full), 1);
		if (strlen(path) <= root || !(slash = strrchr(path, '/')) || slash == path)
			return 0;
		*slash = 0;
	}
}

/* Store one regular file of a declared artifact (with --follow-links, maybe reached through a link). */
static int put_one(void *arg, const char *full, const char *rel)
{
	struct put_ctx *c = arg;
	char sha[LR_SHA256_HEX], target[PATH_MAX];
	struct lr_buf name = LR_BUF_INIT;
	int64_t size = 0;
	int rc;

	if (!(rc = entry_name(c, rel, "", &name)))
		rc = lr_obj_put_file(c->store_dir, full, sha, &size, c->scrub->n ? scan_secret : NULL, c);
	if (!rc)
		rc = lr_scrub_flush(c->scrub, NULL, NULL); /* no sink: only a secret's tail, held back, is checked */
	if (!rc)
		rc = lr_run_add_artifact(c->run, c->role, name.buf, sha, size);
	lr_buf_release(&name);
	if (rc)
		return rc;
	return c->follow && through_link(c, full, target, sizeof target)
		       ? lr_run_artifact_kind(c->run, LR_ENTRY_FOLLOWED, target)
		       : 0;
}

/* A symlink stored as a link: its target's bytes are its content (as git stores links). */
static int put_link(struct put_ctx *c, const char *full, const char *name)
{
	char target[PATH_MAX], sha[LR_SHA256_HEX];
	struct lr_objw *w = NULL;
	int64_t size = 0;
	ssize_t n;
	int rc;

	if ((n = readlink(full, target, sizeof target - 1)) < 0)
		return lr_error_set(LR_EIO, "cannot read the link '%s': %s", full, strerror(errno));
	target[n] = 0;
	if ((rc = scan_secret(c, target, (size_t)n)) || (rc = lr_scrub_flush(c->scrub, NULL, NULL)))
		return rc;
	if ((rc = lr_objw_open(&w, c->store_dir, NULL)))
		return rc;
	if ((rc = lr_objw_write(w, target, (size_t)n))) {
		lr_objw_abort(w);
		return rc;
	}
	if ((rc = lr_objw_commit(w, sha, &size)) || (rc = lr_run_add_artifact(c->run, c->role, name, sha, size)))
		return rc;
	return lr_run_artifact_kind(c->run, LR_ENTRY_SYMLINK, target);
}

static const char *special_kind(const char *full)
{
	struct stat st;

	if (lstat(full, &st))
		return "special file";
	return S_ISFIFO(st.st_mode)   ? "FIFO"
	       : S_ISSOCK(st.st_mode) ? "socket"
	       : S_ISCHR(st.st_mode)  ? "character device"
	       : S_ISBLK(st.st_mode)  ? "block device"
				      : "special file";
}

/* One entry of a declared artifact, links not followed. */
static int put_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct put_ctx *c = arg;
	struct lr_buf name = LR_BUF_INIT;
	int rc;

	switch (type) {
	case LR_WALK_FILE: return put_one(c, full, rel);
	case LR_WALK_LINK:
		if (!(rc = entry_name(c, rel, "", &name)))
			rc = put_link(c, full, name.buf);
		lr_buf_release(&name);
		return rc;
	case LR_WALK_EMPTY_DIR: /* no bytes, but it was there */
		if (!(rc = entry_name(c, rel, "/", &name)) &&
		    !(rc = lr_run_add_artifact(c->run, c->role, name.buf, NULL, 0)))
			rc = lr_run_artifact_kind(c->run, LR_ENTRY_DIRECTORY, NULL);
		lr_buf_release(&name);
		return rc;
	case LR_WALK_SPECIAL:
	default:
		rc = lr_error_set(LR_EREFUSED, "refusing to store artifact '%s': '%s' is a %s", c->declared, full,
				  special_kind(full));
		lr_error_hint("labrun stores regular files, symlinks (as links) and directories");
		return rc;
	}
}

int lr_artifact_put(struct lr_run *run, const char *store_dir, const char *role, const char *path,
		    struct lr_scrub *scrub, int follow, int *missing)
{
	struct put_ctx c = { run, store_dir, role, path, scrub, 0, follow };
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
		*missing = 1;
		return lr_run_add_artifact(run, role, path, NULL, 0);
	}
	return follow ? lr_walk_files(path, put_one, &c) : lr_walk(path, put_entry, &c);
}
