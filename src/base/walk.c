#include "config.h"
#include "base/system.h"

#include <fts.h>
#include <ftw.h>

#include "base/error.h"
#include "base/walk.h"

static int cmp_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/*
 * One walk: every entry of 'path' in name order, links followed
 * (FTS_LOGICAL) or not (FTS_PHYSICAL). Empty directories cost a second
 * read of each directory, so only a walk that reports them looks.
 */
static int walk(const char *path, int options, int empty_dirs, lr_entry_fn fn, void *arg)
{
	char *const roots[] = { (char *)path, NULL };
	size_t plen = strlen(path);
	FTSENT *e;
	FTS *fts;
	int rc = 0;

	fts = fts_open(roots, options | FTS_NOCHDIR, cmp_name);
	if (!fts)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	while (!rc && (e = fts_read(fts))) {
		const char *rel = e->fts_level == 0 ? "" : e->fts_path + plen + (path[plen - 1] != '/');

		switch (e->fts_info) {
		case FTS_F: rc = fn(arg, e->fts_path, rel, LR_WALK_FILE); break;
		case FTS_SL:
		case FTS_SLNONE: rc = fn(arg, e->fts_path, rel, LR_WALK_LINK); break;
		case FTS_D:
			errno = 0;
			if (empty_dirs && !fts_children(fts, FTS_NAMEONLY) && errno == 0)
				rc = fn(arg, e->fts_path, rel, LR_WALK_EMPTY_DIR);
			break;
		case FTS_DEFAULT: rc = fn(arg, e->fts_path, rel, LR_WALK_SPECIAL); break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			rc = lr_error_set(LR_EIO, "cannot read '%s': %s", e->fts_path, strerror(e->fts_errno));
			break;
		case FTS_DC:
			rc = lr_error_set(LR_EIO, "cannot read '%s': directory cycle through a symlink", e->fts_path);
			break;
		default: break;
		}
	}
	fts_close(fts);
	return rc;
}

struct files_ctx {
	lr_file_fn fn;
	void *arg;
};

/* lr_walk_files' view of an entry: files go to its callback, special files are refused. */
static int file_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct files_ctx *c = arg;
	int rc;

	if (type == LR_WALK_FILE)
		return c->fn(c->arg, full, rel);
	if (type != LR_WALK_SPECIAL) /* links left dangling, empty directories: nothing to read */
		return 0;
	/* a FIFO would hang a reader, a device never end: named, not skipped */
	rc = lr_error_set(LR_EREFUSED, "refusing to read '%s': it is a FIFO, socket or device", full);
	lr_error_hint("labrun stores regular files, symlinks and directories");
	return rc;
}

int lr_walk_files(const char *path, lr_file_fn fn, void *arg)
{
	struct files_ctx c = { fn, arg };

	return walk(path, FTS_LOGICAL, 0, file_entry, &c);
}

int lr_walk(const char *path, lr_entry_fn fn, void *arg)
{
	return walk(path, FTS_PHYSICAL, 1, fn, arg);
}

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int lr_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int lr_mkdir_parents(const char *path, unsigned mode)
{
	char *dir = strdup(path), *p;
	int rc = 0;

	if (!dir)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (p = dir + 1; !rc && (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, (mode_t)mode) != 0 && errno != EEXIST)
			rc = lr_error_set(LR_EIO, "cannot create '%s': %s", dir, strerror(errno));
		*p = '/';
	}
	free(dir);
	return rc;
}

/* The chunks of the open file 'fd' (closed here), for the two readers below. */
static int read_fd(int fd, const char *path, lr_chunk_fn fn, void *arg)
{
	static _Thread_local unsigned char buf[1 << 16];
	ssize_t n;
	int rc = 0;

	while (!rc && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
		else
			rc = fn(arg, buf, (size_t)n);
	}
	close(fd);
	return rc;
}

int lr_read_chunks(const char *path, lr_chunk_fn fn, void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	return read_fd(fd, path, fn, arg);
}

/*
 * Open 'path' for reading if it is a regular file: O_NONBLOCK so that a FIFO
 * put there never waits for a writer, then fstat of what was opened (the very
 * file looked at when 'follow' is 0: no link followed). 1 when it is not a
 * regular file (*fd -1), 0 when open, else the error naming 'what' and 'path'.
 */
static int open_checked(const char *what, const char *path, int follow, int *fd)
{
	struct stat before, after;
	int f, e;

	*fd = -1;
	if ((follow ? stat(path, &before) : lstat(path, &before)) != 0)
		goto fail;
	if (!S_ISREG(before.st_mode))
		return 1;
	f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
	if (f < 0 && (follow || errno != ELOOP))
		goto fail;
	if (f >= 0 && fstat(f, &after) == 0 && S_ISREG(after.st_mode) && after.st_ino == before.st_ino &&
	    after.st_dev == before.st_dev) {
		*fd = f;
		return 0;
	}
	if (f >= 0)
		close(f);
	return 1;
fail:
	e = errno;
	return lr_error_set(e == ENOENT ? LR_ENOTFOUND : LR_EIO, "cannot read %s%s'%s': %s", what, *what ? " " : "",
			    path, strerror(e));
}

int lr_open_regular(const char *path, int *fd)
{
	int rc = open_checked("", path, 0, fd);

	if (rc == LR_ENOTFOUND)
		rc = LR_EIO;
	if (rc <= 0)
		return rc;
	lr_error_set(LR_EREFUSED, "refusing to read '%s': it is not a regular file (a link, directory, FIFO or device)",
		     path);
	lr_error_hint("only regular files are read here, and no link is followed");
	return LR_EREFUSED;
}

int lr_open_input(const char *what, const char *path, size_t max, int *fd)
{
	struct stat sb;
	int rc = open_checked(what, path, 1, fd);

	if (rc == 1) {
		lr_error_set(LR_EREFUSED,
			     "refusing to read %s '%s': it is not a regular file (a directory, FIFO or device)", what,
			     path);
		lr_error_hint("name the file itself: labrun reads only regular files here");
		return LR_EREFUSED;
	}
	if (rc || fstat(*fd, &sb) != 0 || (uintmax_t)sb.st_size <= (uintmax_t)max)
		return rc;
	close(*fd);
	*fd = -1;
	lr_error_set(LR_EINVAL, "refusing to read %s '%s': it is %jd bytes, more than the %zu bytes it may have", what,
		     path, (intmax_t)sb.st_size, max);
	lr_error_hint("docs/design.md lists the size each kind of file may have");
	return LR_EINVAL;
}

int lr_fopen_input(const char *what, const char *path, size_t max, FILE **f)
{
	int fd, rc;

	*f = NULL;
	if ((rc = lr_open_input(what, path, max, &fd)))
		return rc;
	if (!(*f = fdopen(fd, "r"))) {
		close(fd);
		return lr_error_set(LR_ENOMEM, "cannot read %s '%s': %s", what, path, strerror(errno));
	}
	return 0;
}

int lr_read_regular_chunks(const char *path, lr_chunk_fn fn, void *arg)
{
	int fd, rc;

	if ((rc = lr_open_regular(path, &fd)))
		return rc;
	return read_fd(fd, path, fn, arg);
}

const char *lr_file_kind(mode_t mode)
{
	return S_ISLNK(mode)                    ? "symbolic link"
	       : S_ISCHR(mode) || S_ISBLK(mode) ? "device"
	       : S_ISFIFO(mode)                 ? "FIFO"
	       : S_ISDIR(mode)                  ? "directory"
	       : S_ISSOCK(mode)                 ? "socket"
						: "special file";
}

int lr_output_replaceable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	struct stat sb;
	int rc = 0;

	if (!dir)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		rc = lr_error_set(LR_EINVAL, "cannot write '%s': it is a %s, which an output never replaces", path,
				  lr_file_kind(sb.st_mode));
		lr_error_hint("remove it first, or give another output file");
	} else if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		rc = lr_error_set(LR_EINVAL, "cannot write '%s': '%s' is not a directory that exists", path, dir);
		lr_error_hint("create the directory first, or give another output file");
	}
	free(dir);
	return rc;
}

int lr_temp_dir(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(buf, size, "%s/%s-XXXXXX", tmp, name) >= size)
		return lr_error_set(LR_EINVAL, "the temporary directory '%s' has too long a name", tmp);
	if (!mkdtemp(buf))
		return lr_error_set(LR_EIO, "cannot create a temporary directory in '%s': %s", tmp, strerror(errno));
	return 0;
}

int lr_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < size)
		return 0;
	return lr_error_set(LR_EINVAL, "a path is too long (%d bytes, at most %zu): '%.60s...'", n, size - 1, buf);
}
