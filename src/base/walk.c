#include "config.h"

#include <errno.h>
#include <fts.h>
#include <string.h>

#include "base/error.h"
#include "base/walk.h"

static int cmp_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

int lr_walk_files(const char *path, lr_file_fn fn, void *arg)
{
	char *const roots[] = { (char *)path, NULL };
	size_t plen = strlen(path);
	FTSENT *e;
	FTS *fts;
	int rc = 0;

	fts = fts_open(roots, FTS_LOGICAL | FTS_NOCHDIR, cmp_name);
	if (!fts)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	while (!rc && (e = fts_read(fts))) {
		const char *rel;

		switch (e->fts_info) {
		case FTS_F:
			rel = e->fts_level == 0 ? "" : e->fts_path + plen + (path[plen - 1] != '/');
			rc = fn(arg, e->fts_path, rel);
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			rc = lr_error_set(LR_EIO, "cannot read '%s': %s", e->fts_path, strerror(e->fts_errno));
			break;
		case FTS_DC:
			rc = lr_error_set(LR_EIO, "cannot read '%s': directory cycle through a symlink",
					  e->fts_path);
			break;
		case FTS_DEFAULT: /* a FIFO would hang a reader, a device never end: named, not skipped */
			rc = lr_error_set(LR_EREFUSED, "refusing to read '%s': it is a FIFO, socket or device",
					  e->fts_path);
			lr_error_hint("labrun stores regular files, symlinks and directories");
			break;
		default:
			break;
		}
	}
	fts_close(fts);
	return rc;
}

int lr_walk(const char *path, lr_entry_fn fn, void *arg)
{
	char *const roots[] = { (char *)path, NULL };
	size_t plen = strlen(path);
	FTSENT *e;
	FTS *fts;
	int rc = 0;

	fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, cmp_name);
	if (!fts)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	while (!rc && (e = fts_read(fts))) {
		const char *rel = e->fts_level == 0 ? "" : e->fts_path + plen + (path[plen - 1] != '/');

		switch (e->fts_info) {
		case FTS_F:
			rc = fn(arg, e->fts_path, rel, LR_WALK_FILE);
			break;
		case FTS_SL:
		case FTS_SLNONE:
			rc = fn(arg, e->fts_path, rel, LR_WALK_LINK);
			break;
		case FTS_D:
			errno = 0;
			if (!fts_children(fts, FTS_NAMEONLY) && errno == 0)
				rc = fn(arg, e->fts_path, rel, LR_WALK_EMPTY_DIR);
			break;
		case FTS_DEFAULT:
			rc = fn(arg, e->fts_path, rel, LR_WALK_SPECIAL);
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			rc = lr_error_set(LR_EIO, "cannot read '%s': %s", e->fts_path, strerror(e->fts_errno));
			break;
		default:
			break;
		}
	}
	fts_close(fts);
	return rc;
}
