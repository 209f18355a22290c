#include "config.h"
#include "base/system.h"

#include <dirent.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/walk.h"
#include "base/sha256.h"
#include "base/strmap.h"
#include "evidence/archive.h"
#include "evidence/libarchive.h"

/* A reader of archive 'path' in *out; the error (libarchive missing: LR_ESTORE, as for every library) otherwise. */
static int open_reader(struct archive **out, const char *path)
{
	struct archive *a;
	int rc, fd;

	*out = NULL;
	/* a regular file (streamed: no cap); libarchive's own open would wait on a FIFO for ever */
	if ((rc = lr_open_input("archive", path, SIZE_MAX, &fd)))
		return rc;
	close(fd);
	if ((rc = lr_libarchive_load()))
		return rc;
	if (!(a = archive_read_new()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
		archive_read_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* What an archive holds: every regular member's sha256, and the text of the lists that name them. */
struct contents {
	struct lr_strmap index; /* member name -> position + 1 in 'hex' */
	char (*hex)[LR_SHA256_HEX];
	size_t n, cap;
	char *sums, *bag, *meta; /* SHA256SUMS, manifest-sha256.txt, ro-crate-metadata.json (or NULL) */
};

static void contents_release(struct contents *c)
{
	lr_strmap_release(&c->index);
	free(c->hex);
	free(c->sums);
	free(c->bag);
	free(c->meta);
}

/* Read one member: its sha256, and its text when it is one of the lists. */
static int read_member(struct archive *a, const char *path, const char *name, struct contents *c)
{
	static _Thread_local char buf[1 << 16];
	char **keep = !strcmp(name, "SHA256SUMS")               ? &c->sums
		      : !strcmp(name, "manifest-sha256.txt")    ? &c->bag
		      : !strcmp(name, "ro-crate-metadata.json") ? &c->meta
								: NULL;
	size_t total = 0;
	struct lr_sha256 h;
	la_ssize_t n;
	int rc;

	if (lr_strmap_get(&c->index, name, NULL))
		return lr_error_set(LR_EIO, "archive '%s': member '%s' appears twice", path, name);
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void *v = realloc(c->hex, cap * sizeof *c->hex);

		if (!v)
			return lr_error_set(LR_ENOMEM, "out of memory");
		c->hex = v;
		c->cap = cap;
	}
	if ((rc = lr_sha256_init(&h)))
		return rc;
	while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
		lr_sha256_update(&h, buf, (size_t)n);
		if (keep) {
			char *p = realloc(*keep, total + (size_t)n + 1);

			if (!p) {
				lr_sha256_release(&h);
				return lr_error_set(LR_ENOMEM, "out of memory");
			}
			*keep = p;
			memcpy(p + total, buf, (size_t)n);
			total += (size_t)n;
			p[total] = '\0';
		}
	}
	lr_sha256_final(&h, c->hex[c->n]);
	if (n < 0)
		return lr_error_set(LR_EIO, "cannot read member '%s' of '%s': %s", name, path, archive_error_string(a));
	if (keep && !*keep && !(*keep = strdup("")))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return lr_strmap_put(&c->index, name, (intptr_t)++c->n);
}

/* The sha256 of member 'name', or NULL when the archive has none. */
static const char *member_hex(const struct contents *c, const char *name)
{
	intptr_t pos;

	return lr_strmap_get(&c->index, name, &pos) ? c->hex[pos - 1] : NULL;
}

/*
 * Check a "HEX  NAME" list ('what': SHA256SUMS or manifest-sha256.txt):
 * every name is a member, by its whole name, with that sha256. Names it
 * lists go into 'listed' when given.
 */
static int check_list(const char *path, const struct contents *c, const char *list, const char *what,
		      struct lr_strmap *listed)
{
	const char *p = list;
	char name[PATH_MAX];
	int rc = 0;

	while (p && *p && !rc) {
		const char *nl = strchr(p, '\n'), *hex;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len <= 66 || len - 66 >= sizeof name || p[64] != ' ' || p[65] != ' ')
			return lr_error_set(LR_EIO, "archive '%s': %s has a malformed line: '%.*s'", path, what,
					    (int)(len < 80 ? len : 80), p);
		memcpy(name, p + 66, len - 66);
		name[len - 66] = '\0';
		if (!(hex = member_hex(c, name)))
			rc = lr_error_set(LR_EIO, "archive '%s': member '%s' is listed in %s but missing", path, name,
					  what);
		else if (strncmp(p, hex, 64))
			rc = lr_error_set(LR_EIO,
					  "archive '%s': member '%s' does not match %s (%.12s listed, %.12s read)",
					  path, name, !strcmp(what, "SHA256SUMS") ? "its sha256" : what, p, hex);
		else if (listed)
			rc = lr_strmap_put(listed, name, 1);
		p = nl ? nl + 1 : NULL;
	}
	return rc;
}

/* The crate's own metadata: every File entity with a sha256 is a member with that hash. */
static int check_metadata(const char *path, const struct contents *c)
{
	json_error_t err;
	json_t *root = json_loads(c->meta, 0, &err), *graph = json_object_get(root, "@graph"), *e;
	size_t i;
	int rc = 0;

	if (!json_is_array(graph)) {
		json_decref(root);
		return lr_error_set(LR_EIO, "archive '%s': ro-crate-metadata.json is not a crate's metadata", path);
	}
	json_array_foreach(graph, i, e) {
		const char *id = json_string_value(json_object_get(e, "@id"));
		const char *sha = json_string_value(json_object_get(e, "sha256")), *hex;

		if (!id || !sha)
			continue;
		if (!(hex = member_hex(c, id)))
			rc = lr_error_set(
				LR_EIO, "archive '%s': member '%s' is described in ro-crate-metadata.json but missing",
				path, id);
		else if (strcmp(sha, hex))
			rc = lr_error_set(
				LR_EIO,
				"archive '%s': member '%s' does not match ro-crate-metadata.json (%.12s described, %.12s read)",
				path, id, sha, hex);
		if (rc)
			break;
	}
	json_decref(root);
	return rc;
}

/* An entry that --extract refuses, and --verify with it: an absolute path, a ".." in it, a link, a device. */
static int refuse(struct archive_entry *e, const char *path, const char *verb)
{
	const char *name = archive_entry_pathname(e), *link;
	mode_t t = archive_entry_filetype(e);
	const char *p;

	if (!name || !*name || name[0] == '/')
		return lr_error_set(LR_EREFUSED, "refusing to %s '%s': entry '%s' has an absolute path", verb, path,
				    name ? name : "");
	for (p = name; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (!strncmp(p, "..", 2) && (p[2] == '/' || p[2] == '\0'))
			return lr_error_set(LR_EREFUSED, "refusing to %s '%s': entry '%s' climbs out with '..'", verb,
					    path, name);
	}
	if ((link = archive_entry_hardlink(e)))
		return lr_error_set(LR_EREFUSED, "refusing to %s '%s': entry '%s' is a hard link (to '%s')", verb, path,
				    name, link);
	if (t == AE_IFLNK)
		return lr_error_set(LR_EREFUSED, "refusing to %s '%s': entry '%s' is a symbolic link (to '%s')", verb,
				    path, name, archive_entry_symlink(e) ? archive_entry_symlink(e) : "");
	if (t != AE_IFREG && t != AE_IFDIR)
		return lr_error_set(LR_EREFUSED, "refusing to %s '%s': entry '%s' is a device, fifo or socket", verb,
				    path, name);
	return 0;
}

int lr_archive_verify(const char *path, int *members)
{
	struct contents c = { 0 };
	struct lr_strmap listed = { 0 };
	struct lr_progress *progress;
	struct archive *a;
	struct archive_entry *e;
	int64_t seen = 0;
	size_t i;
	int rc = 0, r;

	*members = 0;
	if ((rc = open_reader(&a, path)))
		return rc;
	/* what --extract would refuse does not verify either */
	progress = lr_progress_start("checked", "members", -1);
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		if (!(rc = refuse(e, path, "verify")) && archive_entry_filetype(e) == AE_IFREG)
			rc = read_member(a, path, archive_entry_pathname(e), &c);
		lr_progress_update(progress, ++seen);
	}
	lr_progress_stop(&progress);
	if (!rc && r != ARCHIVE_EOF)
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
	archive_read_free(a);
	if (!rc && !c.sums)
		rc = lr_error_set(LR_EIO, "archive '%s' has no SHA256SUMS member", path);
	/* SHA256SUMS, then the crate's own lists: an edited member must agree with all of them */
	if (!rc)
		rc = check_list(path, &c, c.sums, "SHA256SUMS", &listed);
	for (i = 0; !rc && i < c.index.cap; i++) {
		const char *name = c.index.slots ? lr_strmap_key(&c.index, i) : NULL;

		if (name && strcmp(name, "SHA256SUMS") && !lr_strmap_get(&listed, name, NULL))
			rc = lr_error_set(LR_EIO, "archive '%s': member '%s' is not in SHA256SUMS", path, name);
	}
	if (!rc && c.bag)
		rc = check_list(path, &c, c.bag, "manifest-sha256.txt", NULL);
	if (!rc && c.meta)
		rc = check_metadata(path, &c);
	if (rc)
		lr_error_hint("the archive was altered or damaged since it was made");
	else
		*members = (int)c.n - 1; /* SHA256SUMS lists the others */
	contents_release(&c);
	lr_strmap_release(&listed);
	return rc;
}

/* Pass one: every entry is safe, none appears twice, none would replace a file. Nothing is written. */
static int check_entries(const char *path, const char *target)
{
	struct lr_strmap seen = { 0 };
	struct archive *a;
	struct archive_entry *e;
	char full[PATH_MAX * 2], name[PATH_MAX];
	int rc, r = ARCHIVE_EOF;

	if ((rc = open_reader(&a, path)))
		return rc;
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		struct stat st;
		size_t n;

		if ((rc = refuse(e, path, "extract")))
			break;
		snprintf(name, sizeof name, "%s", archive_entry_pathname(e));
		for (n = strlen(name); n > 1 && name[n - 1] == '/'; n--)
			name[n - 1] = '\0'; /* "dir/" and "dir" are one entry */
		if (lr_strmap_get(&seen, name, NULL)) {
			rc = lr_error_set(LR_EREFUSED, "refusing to extract '%s': entry '%s' appears twice", path,
					  name);
			break;
		}
		if ((rc = lr_strmap_put(&seen, name, 1)))
			break;
		snprintf(full, sizeof full, "%s/%s", target, name);
		if (lstat(full, &st) == 0 && (archive_entry_filetype(e) != AE_IFDIR || !S_ISDIR(st.st_mode))) {
			rc = lr_error_set(LR_EREFUSED, "refusing to extract '%s': '%s' already exists", path, full);
			lr_error_hint("nothing was extracted; extract into an empty directory, none is replaced");
		}
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
	archive_read_free(a);
	lr_strmap_release(&seen);
	return rc;
}

/* Pass three: write into 'tmp' with fixed modes, counting regular files. */
static int write_entries(const char *path, const char *tmp, int *members)
{
	struct archive *a, *disk;
	struct archive_entry *e;
	char full[PATH_MAX * 2];
	int rc, r = ARCHIVE_EOF;

	if ((rc = open_reader(&a, path)))
		return rc;
	if (!(disk = archive_write_disk_new())) {
		archive_read_free(a);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
							 ARCHIVE_EXTRACT_NO_OVERWRITE) != ARCHIVE_OK)
		rc = lr_error_set(LR_EIO, "cannot extract '%s': %s", path, archive_error_string(disk));
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		int dir = archive_entry_filetype(e) == AE_IFDIR;

		snprintf(full, sizeof full, "%s/%s", tmp, archive_entry_pathname(e));
		archive_entry_set_pathname(e, full);
		archive_entry_set_perm(e, dir ? 0755 : 0644); /* never the archive's modes */
		if (archive_read_extract2(a, e, disk) != ARCHIVE_OK)
			rc = lr_error_set(LR_EIO, "cannot extract '%s' from '%s': %s", full, path,
					  archive_error_string(disk));
		else if (!dir)
			(*members)++;
	}
	if (!rc && r != ARCHIVE_EOF)
		rc = lr_error_set(LR_EIO, "cannot read archive '%s': %s", path, archive_error_string(a));
	/* closing applies the deferred directory modes: its failure is an extraction's failure */
	if (archive_write_close(disk) != ARCHIVE_OK && !rc)
		rc = lr_error_set(LR_EIO, "cannot finish extracting '%s': %s", path, archive_error_string(disk));
	archive_write_free(disk);
	archive_read_free(a);
	return rc;
}

/* Move what was extracted into 'tmp' to its place in 'target', merging into directories that exist. */
static int move_into(const char *tmp, const char *target)
{
	DIR *d = opendir(tmp);
	struct dirent *de;
	char from[PATH_MAX * 2], to[PATH_MAX * 2];
	int rc = 0;

	if (!d)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", tmp, strerror(errno));
	while (!rc && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(from, sizeof from, "%s/%s", tmp, de->d_name);
		snprintf(to, sizeof to, "%s/%s", target, de->d_name);
		if (lstat(to, &st) == 0 && S_ISDIR(st.st_mode))
			rc = move_into(from, to);
		else if (rename(from, to) != 0)
			rc = lr_error_set(LR_EIO, "cannot move '%s' into place: %s", to, strerror(errno));
	}
	closedir(d);
	return rc;
}

int lr_archive_extract(const char *path, const char *dir, int *members)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32];
	int rc, verified = 0;

	*members = 0;
	if (!realpath(dir, target)) {
		lr_error_set(LR_EINVAL, "cannot extract into '%s': %s", dir, strerror(errno));
		lr_error_hint("create the target directory first");
		return LR_EINVAL;
	}
	/* every entry safe first, then every member verified: only then is anything written */
	if ((rc = check_entries(path, target))) {
		if (rc == LR_EREFUSED && !*(lr_error_hint_msg() ?: "")) /* the reason's own hint, else this one */
			lr_error_hint("nothing was extracted; labrun's archives hold only plain files and directories");
		return rc;
	}
	if ((rc = lr_archive_verify(path, &verified))) {
		lr_error_wrap("refusing to extract '%s'", path);
		lr_error_hint(
			"nothing was extracted; the archive does not match its own SHA256SUMS and crate manifests");
		return rc;
	}
	/* written beside the target first, so a failure leaves nothing behind */
	snprintf(tmp, sizeof tmp, "%s/.labrun-extract-XXXXXX", target);
	if (!mkdtemp(tmp))
		return lr_error_set(LR_EIO, "cannot extract into '%s': %s", target, strerror(errno));
	if (!(rc = write_entries(path, tmp, members)))
		rc = move_into(tmp, target);
	lr_remove_tree(tmp);
	if (rc)
		*members = 0;
	return rc;
}

int lr_archive_read_member(const char *path, const char *member, const char *sha256, int fd)
{
	struct archive *a;
	struct archive_entry *e;
	char buf[1 << 16], hex[LR_SHA256_HEX];
	struct lr_sha256 h;
	la_ssize_t n;
	int rc, r;

	if ((rc = open_reader(&a, path)))
		return rc;
	rc = LR_ENOTFOUND;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		if (strcmp(archive_entry_pathname(e), member))
			continue;
		if ((rc = lr_sha256_init(&h)))
			break;
		while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
			lr_sha256_update(&h, buf, (size_t)n);
			if (fd >= 0 && write(fd, buf, (size_t)n) != n) {
				rc = lr_error_set(LR_EIO, "cannot write member '%s' of '%s': %s", member, path,
						  strerror(errno));
				break;
			}
		}
		lr_sha256_final(&h, hex);
		if (!rc && n < 0)
			rc = lr_error_set(LR_EIO, "cannot read member '%s' of '%s': %s", member, path,
					  archive_error_string(a));
		if (!rc && sha256 && strcmp(hex, sha256))
			rc = lr_error_set(LR_EIO, "member '%s' of archive '%s' does not match its sha256", member,
					  path);
		break;
	}
	if (rc == LR_ENOTFOUND)
		lr_error_set(LR_ENOTFOUND, "archive '%s' has no member '%s'", path, member);
	archive_read_free(a);
	return rc;
}

int lr_archive_unpack(const char *path, const char *dir, int *members)
{
	char sums[PATH_MAX];
	int extracted = 0, rc;

	if ((rc = lr_archive_verify(path, members)) || (rc = lr_archive_extract(path, dir, &extracted)) ||
	    (rc = lr_path(sums, sizeof sums, "%s/SHA256SUMS", dir)))
		return rc;
	unlink(sums);
	return 0;
}
