#include "config.h"
#include "base/system.h"

#include <dirent.h>
#include <sys/file.h>
#include <sys/statvfs.h>

#include "base/clock.h"
#include "base/error.h"
#include "record/spool.h"
#include "store/objects.h"
#include "store/runs.h"

char *lr_spool_path(const char *store_dir, const char *uuid, const char *ext)
{
	char *p = NULL;

	if (asprintf(&p, "%s/spool/%s.%s", store_dir, uuid, ext) < 0)
		return NULL;
	return p;
}

int lr_spool_lock(const char *store_dir, const char *uuid, int *fd)
{
	char *path = lr_spool_path(store_dir, uuid, "lock");
	int rc = 0;

	*fd = -1;
	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	*fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0) {
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", path, strerror(errno));
		lr_error_hint("check that the store's spool directory is writable");
	} else if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
		rc = lr_error_set(LR_EIO, "cannot lock '%s': %s", path, strerror(errno));
		close(*fd);
		unlink(path);
		*fd = -1;
	}
	free(path);
	return rc;
}

static void unlink_spool(const char *store_dir, const char *uuid, const char *ext)
{
	char *p = lr_spool_path(store_dir, uuid, ext);

	if (p)
		unlink(p);
	free(p);
}

void lr_spool_unlock(const char *store_dir, const char *uuid, int fd)
{
	unlink_spool(store_dir, uuid, "stdout");
	unlink_spool(store_dir, uuid, "stderr");
	unlink_spool(store_dir, uuid, "checks");
	unlink_spool(store_dir, uuid, "lock");
	if (fd >= 0)
		close(fd);
}

/* Adopt one partial log into the objects, appending it to 'logs'. */
static int adopt_log(const char *dir, const char *uuid, const char *name, struct lr_artifact *logs, size_t *n)
{
	char *path = lr_spool_path(dir, uuid, name);
	int rc = 0;

	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (access(path, F_OK) == 0) {
		struct lr_artifact *a = &logs[*n];

		memset(a, 0, sizeof *a);
		rc = lr_obj_adopt(dir, path, a->sha256, &a->size);
		if (!rc) {
			a->role = (char *)name;
			a->name = (char *)name;
			a->present = 1;
			(*n)++;
		}
	}
	free(path);
	return rc;
}

int lr_spool_recover(struct lr_store *st, int *abandoned)
{
	const char *dir = lr_store_dir(st);
	struct lr_running *runs = NULL;
	struct lr_artifact logs[2];
	size_t nruns = 0, i, nlogs;
	int rc, changed, fd;
	char *lock, *now;

	if (abandoned)
		*abandoned = 0;
	if ((rc = lr_store_running(st, &runs, &nruns)))
		return rc;
	for (i = 0; i < nruns && !rc; i++) {
		lock = lr_spool_path(dir, runs[i].uuid, "lock");
		if (!lock) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		fd = open(lock, O_RDWR | O_CLOEXEC);
		free(lock);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
			close(fd); /* its recorder is alive */
			continue;
		}
		nlogs = 0;
		rc = adopt_log(dir, runs[i].uuid, "stdout", logs, &nlogs);
		if (!rc)
			rc = adopt_log(dir, runs[i].uuid, "stderr", logs, &nlogs);
		now = lr_now_iso();
		if (!rc && !now)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		if (!rc)
			rc = lr_store_run_abandon(st, runs[i].id, now, logs, nlogs, &changed);
		free(now);
		if (!rc) {
			if (changed && abandoned)
				(*abandoned)++;
			lr_spool_unlock(dir, runs[i].uuid, fd);
		} else if (fd >= 0) {
			close(fd);
		}
	}
	free(runs);
	return rc;
}

/* Split "<uuid>.<ext>" for the spool's extensions; 0 when it is not one. */
static int spool_name(const char *name, char uuid[37])
{
	static const char *const exts[] = { "lock", "stdout", "stderr", "checks" };
	size_t i;

	if (strlen(name) < 38 || name[36] != '.')
		return 0;
	for (i = 0; i < sizeof exts / sizeof exts[0]; i++)
		if (!strcmp(name + 37, exts[i]))
			break;
	if (i == sizeof exts / sizeof exts[0])
		return 0;
	memcpy(uuid, name, 36);
	uuid[36] = '\0';
	return 1;
}

static int is_running(const struct lr_running *runs, size_t n, const char *uuid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(runs[i].uuid, uuid))
			return 1;
	return 0;
}

/* Is the lock of 'uuid' held by a live process? */
static int lock_held(const char *dir, const char *uuid)
{
	char *lock = lr_spool_path(dir, uuid, "lock");
	int fd, held = 0;

	if (!lock)
		return 1; /* out of memory: assume held, remove nothing */
	fd = open(lock, O_RDWR | O_CLOEXEC);
	free(lock);
	if (fd >= 0) {
		held = flock(fd, LOCK_EX | LOCK_NB) != 0;
		close(fd);
	}
	return held;
}

int lr_spool_pending(struct lr_store *st, int *runs, int64_t *bytes)
{
	static const char *const logs[] = { "stdout", "stderr" };
	const char *dir = lr_store_dir(st);
	struct lr_running *r = NULL;
	struct stat sb;
	size_t n = 0, i, j;
	char *path;
	int rc;

	*runs = 0;
	*bytes = 0;
	if ((rc = lr_store_running(st, &r, &n)))
		return rc;
	for (i = 0; i < n && !rc; i++) {
		if (lock_held(dir, r[i].uuid))
			continue; /* its recorder is alive */
		(*runs)++;
		for (j = 0; j < 2 && !rc; j++) {
			if (!(path = lr_spool_path(dir, r[i].uuid, logs[j])))
				rc = lr_error_set(LR_ENOMEM, "out of memory");
			else if (!stat(path, &sb))
				*bytes += (int64_t)sb.st_size;
			free(path);
		}
	}
	free(r);
	return rc;
}

int64_t lr_spool_disk_avail(const char *dir)
{
	struct statvfs fs;

	if (statvfs(dir, &fs))
		return -1;
	return (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
}

int lr_spool_sweep(struct lr_store *st, int min_age, int *removed)
{
	const char *dir = lr_store_dir(st);
	struct lr_running *runs = NULL;
	struct dirent *e;
	struct stat sb;
	size_t nruns = 0;
	time_t now = time(NULL);
	char uuid[37], *spool = NULL, *path;
	DIR *d;
	int rc;

	*removed = 0;
	if ((rc = lr_store_running(st, &runs, &nruns)))
		return rc;
	if (asprintf(&spool, "%s/spool", dir) < 0) {
		free(runs);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (!(d = opendir(spool))) {
		rc = errno == ENOENT ? 0 : lr_error_set(LR_EIO, "cannot read '%s': %s", spool, strerror(errno));
		goto out;
	}
	while (!rc && (e = readdir(d))) {
		if (!spool_name(e->d_name, uuid) || is_running(runs, nruns, uuid))
			continue;
		if (asprintf(&path, "%s/%s", spool, e->d_name) < 0) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		if (lstat(path, &sb) == 0 && now - sb.st_mtime >= min_age && !lock_held(dir, uuid)) {
			if (unlink(path) == 0)
				(*removed)++;
			else if (errno != ENOENT)
				rc = lr_error_set(LR_EIO, "cannot remove '%s': %s", path, strerror(errno));
		}
		free(path);
	}
	closedir(d);
out:
	free(spool);
	free(runs);
	return rc;
}
