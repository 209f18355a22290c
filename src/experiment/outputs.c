/* A command execution's outputs and a definition's reference files, hashed and stored (outputs.h). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "experiment/outputs.h"
#include "store/objects.h"

/*
 * Output 'rel' of {outdir} 'dir' as the regular file it is, in real (of
 * PATH_MAX bytes at least): never an absolute path, a '..', or a link that
 * leads out of the directory (the command's outputs go into the store and
 * every crate of the run). Else why it is refused, in why.
 */
static int inside(const char *dir, const char *rel, char *real, char *why, size_t wlen)
{
	struct lr_buf full = LR_BUF_INIT;
	char rdir[PATH_MAX];
	const char *p;
	struct stat sb;
	size_t n;
	int rc, found = 0;

	for (p = rel; *p; p += strcspn(p, "/"), p += *p == '/')
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			break;
	if (rel[0] == '/' || *p) {
		snprintf(why, wlen, "declared output '%s' is not a path inside {outdir}", rel);
		return 0;
	}
	if (!realpath(dir, rdir))
		return lr_error_set(LR_EIO, "cannot resolve '%s': %s", dir, strerror(errno));
	lr_buf_addf(&full, "%s/%s", dir, rel); /* whole: a name cut short could be another file */
	if (!(rc = lr_buf_error(&full)))
		found = realpath(full.buf, real) != NULL;
	lr_buf_release(&full);
	if (rc)
		return rc;
	if (!found) {
		snprintf(why, wlen, "declared output '%s' is missing", rel);
		return 0;
	}
	n = strlen(rdir);
	if (strncmp(real, rdir, n) || real[n] != '/')
		snprintf(why, wlen, "declared output '%s' leads out of {outdir} (a link)", rel);
	else if (stat(real, &sb) || !S_ISREG(sb.st_mode))
		snprintf(why, wlen, "declared output '%s' is not a regular file", rel);
	return 0;
}

int lr_outputs_digest(const struct lr_strlist *paths, const char *dir, char hex[LR_SHA256_HEX],
		      struct lr_store_output *outs, const char *store_dir, struct lr_scrub *scrub, char *why,
		      size_t wlen)
{
	struct lr_sha256 h;
	char full[PATH_MAX * 2], line[100];
	const char *file;
	size_t i;
	int rc;

	hex[0] = '\0';
	if ((rc = lr_sha256_init(&h)))
		return rc;
	for (i = 0; i < paths->n; i++) {
		char sha[LR_SHA256_HEX];
		int64_t size = 0;

		if (outs && !(outs[i].path = strdup(paths->v[i]))) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		if (dir && (rc = inside(dir, paths->v[i], full, why, wlen)))
			break;
		file = dir ? full : paths->v[i]; /* a reference file: its path as given, never a copy cut short */
		if (!dir && access(file, F_OK) != 0)
			snprintf(why, wlen, "reference file '%s' is missing", paths->v[i]);
		if (why[0])
			break;
		if (!store_dir) {
			rc = lr_sha256_file(file, sha, &size);
		} else {
			rc = lr_obj_put_file(store_dir, file, sha, &size, scrub && scrub->n ? lr_scrub_refuse : NULL,
					     scrub);
			if (scrub && scrub->n && lr_scrub_flush(scrub, NULL, NULL) && !rc)
				rc = lr_error_set(LR_ENOMEM, "out of memory");
		}
		if (rc == LR_EREFUSED) {
			snprintf(why, wlen,
				 "output '%s' holds the value of a secret environment variable: it is not stored",
				 paths->v[i]);
			rc = 0;
			break;
		}
		if (rc)
			break;
		if (outs) {
			memcpy(outs[i].sha256, sha, sizeof sha);
			outs[i].size = size;
		}
		snprintf(line, sizeof line, "%lld %s\n", (long long)size, sha);
		lr_sha256_update(&h, line, strlen(line));
	}
	if (rc || why[0]) {
		lr_sha256_release(&h);
		return rc;
	}
	lr_sha256_final(&h, hex);
	return 0;
}
