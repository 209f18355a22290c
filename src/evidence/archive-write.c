/*
 * Writing an evidence archive: members streamed into a temporary .tar.zst,
 * each one's sha256 kept for the SHA256SUMS member written last, and the
 * file renamed into place only when it is whole. Reading, verifying and
 * extracting are archive.c's.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/progress.h"
#include "base/safename.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/libarchive.h"

struct lr_archive_writer {
	struct archive *a;
	char *path, *tmp;
	char *sums; /* "hex  name\n" lines */
	size_t sums_len, sums_cap;
	int64_t members;
	struct lr_progress *progress; /* members packed: add_sum counts them */
};

static int arc_error(struct archive *a, const char *what, const char *path)
{
	return lr_error_set(LR_EIO, "cannot %s '%s': %s", what, path, a ? archive_error_string(a) : "out of memory");
}

static int add_sum(struct lr_archive_writer *w, const char *hex, const char *name)
{
	size_t need = strlen(hex) + strlen(name) + 4;

	if (w->sums_len + need > w->sums_cap) {
		size_t cap = (w->sums_cap + need) * 2;
		char *p = realloc(w->sums, cap);

		if (!p)
			return lr_error_set(LR_ENOMEM, "out of memory");
		w->sums = p;
		w->sums_cap = cap;
	}
	w->sums_len += (size_t)snprintf(w->sums + w->sums_len, w->sums_cap - w->sums_len, "%s  %s\n", hex, name);
	lr_progress_update(w->progress, ++w->members);
	return 0;
}

int lr_archive_create(struct lr_archive_writer **out, const char *path)
{
	struct lr_archive_writer *w;
	int rc, fd;

	*out = NULL;
	if ((rc = lr_libarchive_load()) || (rc = lr_output_replaceable(path)))
		return rc;
	w = calloc(1, sizeof *w);
	if (!w || !(w->path = strdup(path)) || asprintf(&w->tmp, "%s.tmp-%ld", path, (long)getpid()) < 0) {
		if (w)
			free(w->path);
		free(w);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	/* made here first, so a directory that refuses it is named with its errno, not libarchive's words */
	if ((fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		rc = lr_error_set(LR_EIO, "cannot create archive '%s': cannot create '%s' beside it: %s", path, w->tmp,
				  strerror(errno));
		lr_error_hint("give -o a file in a directory you can write");
		free(w->tmp);
		w->tmp = NULL;
		lr_archive_abort(w);
		return rc;
	}
	close(fd);
	w->a = archive_write_new();
	if (!w->a || archive_write_add_filter_zstd(w->a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK ||
	    /* names are written as their bytes (UTF-8 by lr_safe_member), whatever the locale */
	    archive_write_set_format_option(w->a, "pax", "hdrcharset", "BINARY") != ARCHIVE_OK ||
	    archive_write_open_filename(w->a, w->tmp) != ARCHIVE_OK) {
		rc = arc_error(w->a, "create archive", path);
		lr_archive_abort(w);
		return rc;
	}
	w->progress = lr_progress_start("packed", "members", -1);
	*out = w;
	return 0;
}

static int write_header(struct lr_archive_writer *w, const char *name, int64_t size)
{
	struct archive_entry *e = archive_entry_new();
	int rc = 0;

	if (!e)
		return lr_error_set(LR_ENOMEM, "out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, size);
	archive_entry_set_mtime(e, 0, 0); /* the same evidence, the same archive bytes */
	if (archive_write_header(w->a, e) != ARCHIVE_OK)
		rc = arc_error(w->a, "write a header to", w->path);
	archive_entry_free(e);
	return rc;
}

int lr_archive_add_buffer(struct lr_archive_writer *w, const char *name, const void *data, size_t len)
{
	char hex[LR_SHA256_HEX];
	int rc;

	if ((rc = lr_sha256_buf(data, len, hex)) || (rc = write_header(w, name, (int64_t)len)))
		return rc;
	if (len && archive_write_data(w->a, data, len) != (la_ssize_t)len)
		return arc_error(w->a, "write to", w->path);
	return add_sum(w, hex, name);
}

int lr_archive_add_file(struct lr_archive_writer *w, const char *name, const char *src_path)
{
	static char buf[1 << 16];
	struct lr_sha256 h;
	char hex[LR_SHA256_HEX];
	struct stat st;
	ssize_t n;
	int fd, rc;

	fd = open(src_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = lr_error_set(LR_EIO, "cannot read '%s': %s", src_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if ((rc = lr_sha256_init(&h)) || (rc = write_header(w, name, st.st_size)))
		goto out;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		lr_sha256_update(&h, buf, (size_t)n);
		if (archive_write_data(w->a, buf, (size_t)n) != n) {
			rc = arc_error(w->a, "write to", w->path);
			goto out;
		}
	}
	if (n < 0) {
		rc = lr_error_set(LR_EIO, "cannot read '%s': %s", src_path, strerror(errno));
		goto out;
	}
	lr_sha256_final(&h, hex);
	rc = add_sum(w, hex, name);
out:
	if (h.ctx)
		lr_sha256_release(&h);
	close(fd);
	return rc;
}

int lr_archive_close(struct lr_archive_writer *w)
{
	int rc = 0;

	if ((rc = write_header(w, "SHA256SUMS", (int64_t)w->sums_len)))
		goto out;
	if (w->sums_len && archive_write_data(w->a, w->sums, w->sums_len) != (la_ssize_t)w->sums_len) {
		rc = arc_error(w->a, "write to", w->path);
		goto out;
	}
	if (archive_write_close(w->a) != ARCHIVE_OK) {
		rc = arc_error(w->a, "finish", w->path);
		goto out;
	}
	if (rename(w->tmp, w->path) != 0)
		rc = lr_error_set(LR_EIO, "cannot create '%s': %s", w->path, strerror(errno));
	else {
		free(w->tmp);
		w->tmp = NULL;
	}
out:
	lr_archive_abort(w);
	return rc;
}

void lr_archive_abort(struct lr_archive_writer *w)
{
	if (!w)
		return;
	lr_progress_stop(&w->progress);
	if (w->a)
		archive_write_free(w->a);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w->sums);
	free(w);
}
