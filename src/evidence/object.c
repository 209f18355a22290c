/* The one object reader (evidence/object.h). */
#include "config.h"
#include "base/system.h"

#include <sys/mman.h>

#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/object.h"
#include "store/archives.h"
#include "store/objects.h"
#include "store/remote.h"

int lr_object_find(struct lr_store *st, const char *sha256, int flags, struct lr_object *o)
{
	int rc;

	memset(o, 0, sizeof *o);
	snprintf(o->sha256, sizeof o->sha256, "%s", sha256);
	if ((flags & LR_OBJECT_FETCH) && (rc = lr_store_object_fetch(st, sha256)) && rc != LR_ENOTFOUND) {
		o->where = LR_OBJECT_REMOTE;
		return rc;
	}
	lr_error_clear();
	if (!(o->path = lr_obj_path(lr_store_dir(st), sha256)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (access(o->path, F_OK) == 0) {
		o->where = LR_OBJECT_LOCAL;
		return flags & LR_OBJECT_VERIFY ? lr_obj_verify(lr_store_dir(st), sha256) : 0;
	}
	free(o->path);
	o->path = NULL;
	if ((rc = lr_store_archived(st, sha256, &o->archive, &o->member)))
		return rc; /* LR_ENOTFOUND: "object '...' is missing, and it was never archived" */
	o->where = LR_OBJECT_ARCHIVED;
	return 0;
}

static int write_chunk(void *arg, const void *data, size_t len)
{
	const char *p = data;
	int fd = *(int *)arg;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return lr_error_set(LR_EIO, "cannot write: %s", strerror(errno));
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int lr_object_copy(const struct lr_object *o, int fd)
{
	if (o->where == LR_OBJECT_ARCHIVED)
		return lr_archive_read_member(o->archive, o->member, o->sha256, fd);
	if (o->where != LR_OBJECT_LOCAL)
		return lr_error_set(LR_ENOTFOUND, "object %.12s was not found", o->sha256);
	return fd < 0 ? 0 : lr_read_chunks(o->path, write_chunk, &fd);
}

int lr_object_map(const struct lr_object *o, struct lr_mapped *m)
{
	char path[64];
	int fd, rc;

	if (o->where != LR_OBJECT_ARCHIVED)
		return o->where == LR_OBJECT_LOCAL
			       ? lr_map_file(m, o->path)
			       : lr_error_set(LR_ENOTFOUND, "object %.12s was not found", o->sha256);
	if ((fd = memfd_create("labrun-object", MFD_CLOEXEC)) < 0)
		return lr_error_set(LR_EIO, "cannot read object %.12s: %s", o->sha256, strerror(errno));
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!(rc = lr_archive_read_member(o->archive, o->member, o->sha256, fd)))
		rc = lr_map_file(m, path);
	close(fd); /* the mapping keeps the bytes */
	return rc;
}

void lr_object_release(struct lr_object *o)
{
	free(o->path);
	free(o->archive);
	free(o->member);
	memset(o, 0, sizeof *o);
}

int lr_object_save(struct lr_store *st, const char *sha256, const char *path)
{
	struct lr_object o;
	int rc, fd = -1;

	rc = lr_object_find(st, sha256, LR_OBJECT_FETCH | LR_OBJECT_VERIFY, &o);
	if (!rc && !(rc = lr_mkdir_parents(path, 0777))) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
			rc = lr_error_set(LR_EIO, "cannot create '%s': %s", path, strerror(errno));
		else if ((rc = lr_object_copy(&o, fd)) && o.where == LR_OBJECT_LOCAL)
			lr_error_wrap("cannot copy it to '%s'", path);
	}
	if (fd >= 0)
		close(fd);
	lr_object_release(&o);
	return rc;
}
