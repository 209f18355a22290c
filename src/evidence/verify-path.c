/*
 * A crate or an archive checked whole (verify-path.h): the one sequence
 * 'labrun verify' and 'labrun archive --verify' run, so that the two
 * cannot come to mean different things.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/verify-path.h"

/* An archive: unpacked into a new directory under $TMPDIR (*tmp, to remove). */
static int unpack(const char *path, char **tmp, int *members)
{
	const char *tmpdir = getenv("TMPDIR");

	if (asprintf(tmp, "%s/labrun-verify-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0) {
		*tmp = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (!mkdtemp(*tmp))
		return lr_error_set(LR_EIO, "cannot create a temporary directory: %s", strerror(errno));
	return lr_archive_unpack(path, *tmp, members);
}

/* An error about the unpacked crate as a whole ("'TMP' is not a crate") names the archive instead. */
static int name_archive(int rc, const char *path, const char *tmp)
{
	const char *msg = lr_error_msg(), *at = strstr(msg, tmp);
	char *before = NULL, *after = NULL, *hint = NULL;

	if (!at || at == msg || at[-1] != '\'' || !(before = strndup(msg, (size_t)(at - msg) - 1)) ||
	    !(after = strdup(at + strlen(tmp))) || !(hint = strdup(lr_error_hint_msg() ?: "")))
		goto out;
	lr_error_set(rc, "%sarchive '%s%s", before, path, after);
	if (*hint)
		lr_error_hint("%s", hint);
out:
	free(before);
	free(after);
	free(hint);
	return rc;
}

int lr_verify_path(const char *path, const struct lr_trust *t, int allow_unsigned, lr_verify_fn fn, void *arg,
		   int *problems, int *members, struct lr_verified *v)
{
	char *tmp = NULL;
	struct stat sb;
	int rc;

	*members = 0;
	if (stat(path, &sb) != 0) /* only what is not there is absent: anything else is named as it is */
		return lr_error_set(errno == ENOENT ? LR_ENOTFOUND : LR_EIO, "cannot verify '%s': %s", path,
				    strerror(errno));
	if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) { /* a FIFO would block the archive reader for ever */
		lr_error_set(LR_EREFUSED, "cannot verify '%s': it is neither a crate directory nor an archive file",
			     path);
		lr_error_hint("name the crate's directory or its .tar.gz; a FIFO or device is never read");
		return LR_EREFUSED;
	}
	if (!S_ISDIR(sb.st_mode) && (rc = unpack(path, &tmp, members)))
		goto out;
	if ((rc = lr_crate_verify(tmp ? tmp : path, t, allow_unsigned, fn, arg, problems, v))) {
		if (tmp)
			name_archive(rc, path, tmp);
		goto out;
	}
	if (v->st && ((rc = lr_verify_report(tmp ? tmp : path, v, fn, arg, problems)) ||
		      (rc = lr_verify_site(tmp ? tmp : path, v, fn, arg, problems))))
		goto out;
out:
	if (tmp) {
		lr_remove_tree(tmp);
		free(tmp);
	}
	return rc;
}
