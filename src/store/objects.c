#include "config.h"
#include "base/system.h"

#include <pthread.h>

#include <dirent.h>
#include <sys/file.h>
#include <sys/mman.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/walk.h"
#include "store/objects.h"

struct lr_objw {
	char *store_dir;
	char *tmp_path;
	int fd;
	struct lr_sha256 hash;
	int64_t size;
	/* Small writes are gathered so a chatty command costs few syscalls. */
	size_t buffered;
	int keep_tmp; /* link into place and leave the temporary file */
	int anon;     /* O_TMPFILE: no name until it is linked into place; tmp_path names its directory */
	int defer;    /* hashed from a map of the file on a thread of its own, not as it is written */
	int hashing;  /* that thread runs over hmap */
	pthread_t hasher;
	void *hmap;
	unsigned char buf[1 << 16];
};

void lr_objw_defer_hash(struct lr_objw *w)
{
	w->defer = !w->size;
}

static void *hash_map(void *arg)
{
	struct lr_objw *w = arg;

	lr_sha256_update(&w->hash, w->hmap, (size_t)w->size);
	return NULL;
}

/* A deferred hash begun over the whole file: on a thread when one can be had, else here. */
static int hash_start(struct lr_objw *w)
{
	if (!w->defer || w->hashing || !w->size)
		return 0;
	if ((w->hmap = mmap(NULL, (size_t)w->size, PROT_READ, MAP_SHARED, w->fd, 0)) == MAP_FAILED) {
		w->hmap = NULL;
		return lr_error_set(LR_EIO, "cannot map '%s' to hash it: %s", w->tmp_path, strerror(errno));
	}
	w->hashing = 1;
	if (pthread_create(&w->hasher, NULL, hash_map, w)) {
		hash_map(w);
		w->hashing = 0;
	}
	return 0;
}

/* The deferred hash finished (or begun and finished, when the file was never mapped). */
static int hash_end(struct lr_objw *w)
{
	int rc = w->defer && !w->hmap ? hash_start(w) : 0;

	if (w->hashing)
		pthread_join(w->hasher, NULL);
	w->hashing = 0;
	if (w->hmap)
		munmap(w->hmap, (size_t)w->size);
	w->hmap = NULL;
	w->defer = 0;
	return rc;
}

void lr_objw_keep_tmp(struct lr_objw *w)
{
	w->keep_tmp = 1;
}

int lr_mkdir1(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	return lr_error_set(LR_EIO, "cannot create directory '%s': %s", dir, strerror(errno));
}

int lr_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return lr_error_set(LR_EIO, "cannot open directory '%s': %s", dir, strerror(errno));
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = lr_error_set(LR_EIO, "cannot sync directory '%s': %s", dir, strerror(errno));
	close(fd);
	return rc;
}

char *lr_obj_path(const char *store_dir, const char *hex)
{
	char *p = NULL;

	if (asprintf(&p, "%s/objects/%.2s/%s", store_dir, hex, hex + 2) < 0)
		return NULL;
	return p;
}

int lr_objw_open(struct lr_objw **out, const char *store_dir, const char *tmp_path)
{
	struct lr_objw *w;
	char dir[PATH_MAX];
	int rc;

	*out = NULL;
	w = calloc(1, sizeof *w);
	if (!w)
		return lr_error_set(LR_ENOMEM, "out of memory");
	w->fd = -1;
	w->store_dir = strdup(store_dir);
	if (!w->store_dir) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto fail;
	}
	if (tmp_path) {
		w->tmp_path = strdup(tmp_path);
		if (!w->tmp_path) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			goto fail;
		}
		w->fd = open(tmp_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	} else {
		snprintf(dir, sizeof dir, "%s/objects/tmp", store_dir);
		if ((rc = lr_mkdir1(dir)))
			goto fail;
		/*
		 * Unnamed until committed, so a writer killed by anything (SIGTERM
		 * during an ingest, SIGKILL, a full disk) leaves nothing behind. Where
		 * the file system has no O_TMPFILE, a named file held under flock:
		 * fsck removes one whose writer is gone (lr_obj_sweep_tmp).
		 */
		if (access("/proc/self/fd", X_OK) == 0 &&
		    (w->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644)) >= 0) {
			w->anon = 1;
			if (!(w->tmp_path = strdup(dir))) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				goto fail;
			}
		} else {
			if (asprintf(&w->tmp_path, "%s/obj-XXXXXX", dir) < 0) {
				w->tmp_path = NULL;
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				goto fail;
			}
			w->fd = mkostemp(w->tmp_path, O_CLOEXEC);
			if (w->fd >= 0)
				flock(w->fd, LOCK_EX);
		}
		if (w->fd >= 0)
			fchmod(w->fd, 0644);
	}
	if (w->fd < 0) {
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", w->tmp_path, strerror(errno));
		free(w->tmp_path);
		w->tmp_path = NULL; /* not ours to unlink */
		goto fail;
	}
	if ((rc = lr_sha256_init(&w->hash)))
		goto fail;
	*out = w;
	return 0;
fail:
	lr_objw_abort(w);
	return rc;
}

static int write_all(int fd, const void *data, size_t len, const char *path)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lr_obj_write_error(path, errno);
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lr_objw_flush(struct lr_objw *w)
{
	int rc;

	if (!w->buffered)
		return 0;
	rc = write_all(w->fd, w->buf, w->buffered, w->tmp_path);
	w->buffered = 0;
	return rc;
}

int lr_objw_write(struct lr_objw *w, const void *data, size_t len)
{
	int rc;

	if (!w->defer)
		lr_sha256_update(&w->hash, data, len);
	w->size += (int64_t)len;
	if (w->buffered + len > sizeof w->buf) {
		if ((rc = lr_objw_flush(w)))
			return rc;
		if (len >= sizeof w->buf)
			return write_all(w->fd, data, len, w->tmp_path);
	}
	memcpy(w->buf + w->buffered, data, len);
	w->buffered += len;
	return 0;
}

int lr_objw_map(struct lr_objw *w, const char **p, size_t *n)
{
	void *m;
	int rc;

	*p = NULL;
	*n = 0;
	if ((rc = lr_objw_flush(w)))
		return rc;
	if (!w->size)
		return 0;
#ifdef SYNC_FILE_RANGE_WRITE
	/* its bytes are final: the disk starts on them while they are read back, and commit's fsync waits less
	 * (a hint: the fsync is what makes them durable, whatever this does) */
	(void)sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
	if ((uint64_t)w->size > SIZE_MAX)
		return lr_error_set(LR_ENOMEM, "'%s' is too large to map", w->tmp_path);
	if ((rc = hash_start(w)))
		return rc;
	m = mmap(NULL, (size_t)w->size, PROT_READ, MAP_PRIVATE, w->fd, 0);
	if (m == MAP_FAILED)
		return lr_error_set(errno == ENOMEM ? LR_ENOMEM : LR_EIO, "cannot map '%s': %s", w->tmp_path,
				    strerror(errno));
	*p = m;
	*n = (size_t)w->size;
	return 0;
}

/*
 * Put the file at the object path for 'hex', creating the fan-out
 * directory: an unnamed one (O_TMPFILE, fd >= 0) is linked there; a named
 * 'tmp' is moved, or with 'keep' hard-linked and left (the caller removes
 * it once the database references the object). An object already there is
 * identical by construction, and stays.
 */
static int install(const char *store_dir, const char *tmp, int fd, const char *hex, int keep)
{
	char dir[PATH_MAX], self[64];
	char *dst = NULL;
	struct stat st;
	int rc, moved;

	snprintf(dir, sizeof dir, "%s/objects/%.2s", store_dir, hex);
	if ((rc = lr_mkdir1(dir)))
		return rc;
	if (!(dst = lr_obj_path(store_dir, hex)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (stat(dst, &st) == 0) {
		if (fd < 0 && !keep)
			unlink(tmp);
		goto out;
	}
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	moved = fd >= 0 ? linkat(AT_FDCWD, self, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) == 0 || errno == EEXIST
		: keep  ? link(tmp, dst) == 0 || errno == EEXIST
			: rename(tmp, dst) == 0;
	rc = moved ? lr_fsync_dir(dir) : lr_error_set(LR_EIO, "cannot store object '%s': %s", dst, strerror(errno));
out:
	free(dst);
	return rc;
}

/*
 * Whether object 'hex' is in objects/ already with its name durable (its
 * directory synced): then so are its bytes, since an object gets its name
 * only once they are synced (install). Syncing the directory, not trusting
 * its entry, covers a writer that named it a moment ago and has yet to sync.
 */
static int stored(const char *store_dir, const char *hex, int *have)
{
	/* the last object this thread found durable so: a run's empty stdout and stderr sync once */
	static _Thread_local char last[PATH_MAX];
	char dir[PATH_MAX], *path = lr_obj_path(store_dir, hex);
	struct stat st;
	int rc = 0;

	*have = 0;
	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((*have = stat(path, &st) == 0) && strcmp(path, last)) {
		snprintf(dir, sizeof dir, "%s/objects/%.2s", store_dir, hex);
		if (!(rc = lr_fsync_dir(dir)))
			snprintf(last, sizeof last, "%s", path);
	}
	free(path);
	return rc;
}

int lr_objw_commit(struct lr_objw *w, char hex[LR_SHA256_HEX], int64_t *size)
{
	int rc, have;

	if ((rc = lr_objw_flush(w)) || (rc = hash_end(w)))
		goto fail;
	lr_sha256_final(&w->hash, hex);
	/* content the store holds already (a run's empty log) needs no sync of its own */
	if ((rc = stored(w->store_dir, hex, &have)))
		goto fail;
	if (!have && fsync(w->fd) != 0) {
		rc = lr_error_set(LR_EIO, "cannot sync '%s': %s", w->tmp_path, strerror(errno));
		goto fail;
	}
	rc = install(w->store_dir, w->tmp_path, w->anon ? w->fd : -1, hex, w->keep_tmp);
	close(w->fd);
	w->fd = -1;
	if (rc)
		goto fail;
	if (size)
		*size = w->size;
	free(w->tmp_path);
	w->tmp_path = NULL; /* installed (or kept on purpose): not to be unlinked */
	lr_objw_abort(w);
	return 0;
fail:
	lr_objw_abort(w);
	return rc;
}

void lr_objw_abort(struct lr_objw *w)
{
	if (!w)
		return;
	(void)hash_end(w);
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp_path && !w->keep_tmp && !w->anon)
		unlink(w->tmp_path);
	if (w->hash.ctx)
		lr_sha256_release(&w->hash);
	free(w->tmp_path);
	free(w->store_dir);
	free(w);
}

struct put {
	struct lr_objw *w;
	lr_obj_scan_fn scan;
	void *scan_arg;
};

static int put_chunk(void *arg, const void *data, size_t len)
{
	struct put *p = arg;
	int rc;

	if (p->scan && (rc = p->scan(p->scan_arg, data, len)))
		return rc;
	return lr_objw_write(p->w, data, len);
}

int lr_obj_put_file(const char *store_dir, const char *path, char hex[LR_SHA256_HEX], int64_t *size,
		    lr_obj_scan_fn scan, void *scan_arg)
{
	struct put p = { NULL, scan, scan_arg };
	int rc;

	if ((rc = lr_objw_open(&p.w, store_dir, NULL)))
		return rc;
	if ((rc = lr_read_chunks(path, put_chunk, &p))) {
		lr_objw_abort(p.w);
		return rc;
	}
	return lr_objw_commit(p.w, hex, size);
}

int lr_obj_adopt(const char *store_dir, const char *path, char hex[LR_SHA256_HEX], int64_t *size)
{
	int fd, rc;

	if ((rc = lr_sha256_file(path, hex, size)))
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		rc = lr_error_set(LR_EIO, "cannot sync '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	close(fd);
	return install(store_dir, path, -1, hex, 1);
}

int lr_obj_verify(const char *store_dir, const char *hex)
{
	char got[LR_SHA256_HEX];
	char *path = lr_obj_path(store_dir, hex);
	int rc;

	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (access(path, F_OK) != 0) {
		rc = lr_error_set(LR_ENOTFOUND, "object '%s' is missing", path);
		goto out;
	}
	if ((rc = lr_sha256_file(path, got, NULL)))
		goto out;
	if (strcmp(got, hex))
		rc = lr_error_set(LR_EIO, "object '%s' is corrupt: its content hashes to %s", path, got);
out:
	free(path);
	return rc;
}

int lr_obj_remove(const char *store_dir, const char *hex, int64_t *freed)
{
	char *path = lr_obj_path(store_dir, hex);
	struct stat sb;
	int rc = 0;

	*freed = 0;
	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (lstat(path, &sb) != 0)
		rc = errno == ENOENT ? lr_error_set(LR_ENOTFOUND, "object '%s' is missing", path)
				     : lr_error_set(LR_EIO, "cannot read object '%s': %s", path, strerror(errno));
	else if (unlink(path) != 0)
		rc = lr_error_set(LR_EIO, "cannot remove object '%s': %s", path, strerror(errno));
	else
		*freed = sb.st_size;
	free(path);
	return rc;
}

int lr_obj_write_error(const char *path, int err)
{
	if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
		lr_error_set(LR_EIO, "cannot write to the store: %s '%s' (%s)",
			     err == EFBIG ? "a file would exceed the size this process may write, at"
					  : "no space left for",
			     path, strerror(err));
		lr_error_hint(
			err == EFBIG
				? "raise 'ulimit -f', or cap what is captured (docs/labrun.md)"
				: "free space on the store's disk; 'labrun fsck' then removes what a failed writer left");
		return LR_EIO;
	}
	return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(err));
}

int lr_obj_sweep_tmp(const char *store_dir, int min_age, int *removed, int64_t *bytes)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd, rc = 0;

	*removed = 0;
	*bytes = 0;
	snprintf(dir, sizeof dir, "%s/objects/tmp", store_dir);
	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : lr_error_set(LR_EIO, "cannot read '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "obj-", 4))
			continue; /* only the object writer's own files */
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
			continue;
		/* a live writer holds its flock; a new one may not have taken it yet */
		if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && time(NULL) - sb.st_mtime >= min_age &&
		    !flock(fd, LOCK_EX | LOCK_NB)) {
			if (unlink(path) == 0) {
				(*removed)++;
				*bytes += sb.st_size;
			} else if (!rc) {
				rc = lr_error_set(LR_EIO, "cannot remove '%s': %s", path, strerror(errno));
			}
		}
		close(fd);
	}
	closedir(d);
	return rc;
}

#define STEP_MIN ((int64_t)1 << 20) /* smaller transfers are over before a progress line could show them */

void lr_obj_step(const char *name, int64_t done, int64_t total)
{
	const char *last = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	char what[40];

	if (total < STEP_MIN)
		return;
	snprintf(what, sizeof what, "%.16s%s", last, strlen(last) > 16 ? "..." : "");
	lr_progress_step(what, done, total);
}
