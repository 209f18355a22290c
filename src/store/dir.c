/* The store directory: finding it, and laying out a new one. No SQL here. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "store/objects.h"
#include "store/store-int.h"
#include "store/store.h"

int lr_store_is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int lr_store_find(char **out, int *exists, const char *override, const char *cwd, int for_write)
{
	char path[PATH_MAX], dir[PATH_MAX];
	char *slash;

	*out = NULL;
	*exists = 0;
	if (override && *override) {
		*out = strdup(override);
		if (!*out)
			return lr_error_set(LR_ENOMEM, "out of memory");
		*exists = lr_store_is_dir(override);
		if (!*exists && !for_write) {
			free(*out); /* nothing is handed back on an error */
			*out = NULL;
			lr_error_set(LR_ENOTFOUND, "cannot open store '%s': no such directory", override);
			lr_error_hint("check --store / LABRUN_STORE, or create it with 'labrun init'");
			return LR_ENOTFOUND;
		}
		return 0;
	}

	snprintf(dir, sizeof dir, "%s", cwd);
	for (;;) {
		if (lr_path(path, sizeof path, "%s/.labrun", strcmp(dir, "/") ? dir : ""))
			return LR_EINVAL;
		if (lr_store_is_dir(path)) {
			*exists = 1;
			*out = strdup(path);
			return *out ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
		}
		slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/"))
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!for_write) {
		lr_error_set(LR_ENOTFOUND, "cannot find a store: no '.labrun' directory in '%s' or above", cwd);
		lr_error_hint("record a run first, run 'labrun init', or pass --store DIR");
		return LR_ENOTFOUND;
	}

	snprintf(dir, sizeof dir, "%s", cwd);
	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	if (lr_path(path, sizeof path, "%s/.labrun", strcmp(dir, "/") ? dir : ""))
		return LR_EINVAL;
	*out = strdup(path);
	return *out ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

/* Create the directory layout of a new store (idempotent). */
int lr_store_make_layout(const char *dir)
{
	char p[PATH_MAX];
	FILE *f;
	int rc;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		int e = errno;

		lr_error_set(LR_EIO, "cannot create store '%s': %s", dir, strerror(e));
		if (e == ENOENT)
			lr_error_hint("create the parent directory first, or pass another --store");
		else
			lr_error_hint("pass --store (or LABRUN_STORE) with a writable directory");
		return LR_EIO;
	}
	snprintf(p, sizeof p, "%s/objects", dir);
	if ((rc = lr_mkdir1(p)))
		goto fail;
	snprintf(p, sizeof p, "%s/spool", dir);
	if ((rc = lr_mkdir1(p)))
		goto fail;
	/* Keep the store out of 'git status' (and so out of the diff hash). */
	snprintf(p, sizeof p, "%s/.gitignore", dir);
	if (access(p, F_OK) != 0) {
		f = fopen(p, "w");
		if (!f) {
			rc = lr_error_set(LR_EIO, "cannot create '%s': %s", p, strerror(errno));
			goto fail;
		}
		fputs("# labrun store: not part of the sources\n*\n", f);
		fclose(f);
	}
	return 0;
fail:
	lr_error_hint("pass --store (or LABRUN_STORE) with a writable directory");
	return rc;
}
