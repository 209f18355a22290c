#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/error.h"
#include "base/sha256.h"
#include "evidence/archive.h"

struct lr_archive_writer {
	struct archive *a;
	char *path, *tmp;
	char *sums;		/* "hex  name\n" lines */
	size_t sums_len, sums_cap;
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
	return 0;
}

int lr_archive_create(struct lr_archive_writer **out, const char *path)
{
	struct lr_archive_writer *w = calloc(1, sizeof *w);

	*out = NULL;
	if (!w || !(w->path = strdup(path)) || asprintf(&w->tmp, "%s.tmp-%ld", path, (long)getpid()) < 0) {
		if (w)
			free(w->path);
		free(w);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	w->a = archive_write_new();
	if (!w->a || archive_write_add_filter_zstd(w->a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK ||
	    archive_write_open_filename(w->a, w->tmp) != ARCHIVE_OK) {
		int rc = arc_error(w->a, "create archive", path);

		lr_archive_abort(w);
		return rc;
	}
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
	if (w->a)
		archive_write_free(w->a);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w->sums);
	free(w);
}

static struct archive *open_reader(const char *path)
{
	struct archive *a = archive_read_new();

	if (!a)
		return NULL;
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* Find "hex  name" for 'name' in the SHA256SUMS text. */
static const char *listed(const char *sums, const char *name)
{
	const char *p = sums;
	size_t n = strlen(name);

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len == 66 + n && !strncmp(p + 66, name, n) && p[64] == ' ' && p[65] == ' ')
			return p;
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int lr_archive_verify(const char *path, int *members)
{
	struct archive *a;
	struct archive_entry *e;
	char *sums = NULL, *seen = NULL, hex[LR_SHA256_HEX];
	char buf[1 << 16];
	size_t seen_len = 0;
	int rc = 0, pass, r;

	*members = 0;
	/* pass 0 reads SHA256SUMS, pass 1 hashes every member against it */
	for (pass = 0; pass < 2 && !rc; pass++) {
		if (!(a = open_reader(path)))
			return LR_EIO;
		while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
			const char *name = archive_entry_pathname(e);
			struct lr_sha256 h;
			la_ssize_t n;
			size_t total = 0;

			if (archive_entry_filetype(e) != AE_IFREG)
				continue;
			if (pass == 0 && strcmp(name, "SHA256SUMS"))
				continue;
			if (pass == 1 && !strcmp(name, "SHA256SUMS"))
				continue;
			if ((rc = lr_sha256_init(&h)))
				break;
			while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
				lr_sha256_update(&h, buf, (size_t)n);
				if (pass == 0) {
					char *p = realloc(sums, total + (size_t)n + 1);

					if (!p) {
						rc = lr_error_set(LR_ENOMEM, "out of memory");
						break;
					}
					sums = p;
					memcpy(sums + total, buf, (size_t)n);
					total += (size_t)n;
					sums[total] = '\0';
				}
			}
			lr_sha256_final(&h, hex);
			if (n < 0)
				rc = lr_error_set(LR_EIO, "cannot read member '%s' of '%s': %s", name, path, archive_error_string(a));
			if (rc || pass == 0)
				continue;
			{
				const char *line = sums ? listed(sums, name) : NULL;
				char *p;

				if (!line)
					rc = lr_error_set(LR_EIO, "archive '%s': member '%s' is not in SHA256SUMS", path, name);
				else if (strncmp(line, hex, 64))
					rc = lr_error_set(LR_EIO, "archive '%s': member '%s' does not match its sha256 (%.12s listed, %.12s read)",
							  path, name, line, hex);
				p = realloc(seen, seen_len + strlen(name) + 2);
				if (p) {
					seen = p;
					seen_len += (size_t)sprintf(seen + seen_len, "%s\n", name);
				}
				(*members)++;
			}
		}
		archive_read_free(a);
		if (rc)
			lr_error_hint("the archive was altered or damaged since it was made");
		if (!rc && pass == 0 && !sums)
			rc = lr_error_set(LR_EIO, "archive '%s' has no SHA256SUMS member", path);
	}
	/* every listed member must have been there */
	if (!rc && sums) {
		const char *p = sums;

		while (*p && !rc) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char name[PATH_MAX];

			if (len > 66 && len - 66 < sizeof name) {
				memcpy(name, p + 66, len - 66);
				name[len - 66] = '\0';
				strcat(name, "\n");
				if (!seen || !strstr(seen, name)) {
					name[len - 66] = '\0';
					rc = lr_error_set(LR_EIO, "archive '%s': member '%s' is listed in SHA256SUMS but missing", path, name);
				}
			}
			p = nl ? nl + 1 : p + len;
		}
	}
	free(sums);
	free(seen);
	return rc;
}

/* Would this entry land outside the target, or is it not a plain file or directory? */
static int refuse(struct archive_entry *e, const char *path)
{
	const char *name = archive_entry_pathname(e), *link;
	mode_t t = archive_entry_filetype(e);
	const char *p;

	if (!name || !*name || name[0] == '/')
		return lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' has an absolute path", path,
				    name ? name : "");
	for (p = name; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (!strncmp(p, "..", 2) && (p[2] == '/' || p[2] == '\0'))
			return lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' climbs out with '..'", path, name);
	}
	if ((link = archive_entry_hardlink(e)))
		return lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' is a hard link (to '%s')", path,
				    name, link);
	if (t == AE_IFLNK)
		return lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' is a symbolic link (to '%s')",
				    path, name, archive_entry_symlink(e) ? archive_entry_symlink(e) : "");
	if (t != AE_IFREG && t != AE_IFDIR)
		return lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' is a device, fifo or socket", path,
				    name);
	return 0;
}

int lr_archive_extract(const char *path, const char *dir, int *members)
{
	struct archive *a, *disk = NULL;
	struct archive_entry *e;
	char target[PATH_MAX], full[PATH_MAX * 2];
	int rc = 0, r;

	*members = 0;
	if (!realpath(dir, target)) {
		lr_error_set(LR_EINVAL, "cannot extract into '%s': %s", dir, strerror(errno));
		lr_error_hint("create the target directory first");
		return LR_EINVAL;
	}
	/* First pass: every entry must be safe before anything is written. */
	if (!(a = open_reader(path)))
		return LR_EIO;
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		struct stat st;

		if ((rc = refuse(e, path)))
			break;
		snprintf(full, sizeof full, "%s/%s", target, archive_entry_pathname(e));
		if (archive_entry_filetype(e) == AE_IFREG && lstat(full, &st) == 0)
			rc = lr_error_set(LR_EREFUSED, "refusing to extract '%s': '%s' already exists", path, full);
	}
	if (rc == LR_EREFUSED)
		lr_error_hint("nothing was extracted; labrun's archives hold only plain files and directories");
	if (!rc && r != ARCHIVE_EOF)
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
	archive_read_free(a);
	if (rc)
		return rc;
	/* Second pass: write, with libarchive's own guards as a second line of defence (not
	 * NOABSOLUTEPATHS: the absolute target prefix is ours; entry names were checked above). */
	if (!(a = open_reader(path)))
		return LR_EIO;
	disk = archive_write_disk_new();
	archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
					     ARCHIVE_EXTRACT_NO_OVERWRITE);
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		snprintf(full, sizeof full, "%s/%s", target, archive_entry_pathname(e));
		archive_entry_set_pathname(e, full);
		if (archive_read_extract2(a, e, disk) != ARCHIVE_OK)
			rc = lr_error_set(LR_EIO, "cannot extract '%s' from '%s': %s", full, path, archive_error_string(disk));
		else if (archive_entry_filetype(e) == AE_IFREG)
			(*members)++;
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
	archive_write_free(disk);
	archive_read_free(a);
	return rc;
}

int lr_archive_read_member(const char *path, const char *member, const char *sha256, int fd)
{
	struct archive *a = open_reader(path);
	struct archive_entry *e;
	char buf[1 << 16], hex[LR_SHA256_HEX];
	struct lr_sha256 h;
	la_ssize_t n;
	int rc = LR_ENOTFOUND, r;

	if (!a)
		return LR_EIO;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		if (strcmp(archive_entry_pathname(e), member))
			continue;
		if ((rc = lr_sha256_init(&h)))
			break;
		while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
			lr_sha256_update(&h, buf, (size_t)n);
			if (fd >= 0 && write(fd, buf, (size_t)n) != n) {
				rc = lr_error_set(LR_EIO, "cannot write member '%s' of '%s': %s", member, path, strerror(errno));
				break;
			}
		}
		lr_sha256_final(&h, hex);
		if (!rc && n < 0)
			rc = lr_error_set(LR_EIO, "cannot read member '%s' of '%s': %s", member, path, archive_error_string(a));
		if (!rc && sha256 && strcmp(hex, sha256))
			rc = lr_error_set(LR_EIO, "member '%s' of archive '%s' does not match its sha256", member, path);
		break;
	}
	if (rc == LR_ENOTFOUND)
		lr_error_set(LR_ENOTFOUND, "archive '%s' has no member '%s'", path, member);
	archive_read_free(a);
	return rc;
}
