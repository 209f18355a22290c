/* A command execution's outputs and a definition's reference files, hashed and stored (outputs.h). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "experiment/outputs.h"
#include "store/objects.h"

/* 'name' without "." components, empty ones and a trailing '/', into n (the same file, the same name). */
static void normal(const char *name, char *n, size_t size)
{
	const char *p;
	size_t k, len = 0;

	n[0] = '\0';
	for (p = name; *p; p += k, p += *p == '/') {
		k = strcspn(p, "/");
		if (!k || (k == 1 && *p == '.'))
			continue;
		len += (size_t)snprintf(n + len, len < size ? size - len : 0, "%s%.*s", len ? "/" : "", (int)k, p);
	}
}

/* Whether a path to 'name' goes up: a ".." component. */
static int goes_up(const char *name)
{
	const char *p;

	for (p = name; *p; p += strcspn(p, "/"), p += *p == '/')
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 1;
	return 0;
}

int lr_work_names_check(const char *kind, const struct lr_strlist *names, char *why, size_t wlen)
{
	char a[PATH_MAX], b[PATH_MAX];
	size_t i, j, n;

	for (i = 0; i < names->n; i++) {
		const char *name = names->v[i];

		normal(name, a, sizeof a);
		if (name[0] == '/' || !strncmp(name, "{outdir}", 8) || goes_up(name) || !a[0]) {
			snprintf(why, wlen, "%s '%s' is not a path inside {outdir} (name it relative to {outdir})",
				 kind, name);
			return 0;
		}
		for (j = 0; j < i; j++) {
			normal(names->v[j], b, sizeof b);
			if (!strcmp(a, b)) {
				snprintf(why, wlen, "%s '%s' is declared twice%s%s%s", kind, name,
					 strcmp(name, names->v[j]) ? " (as '" : "",
					 strcmp(name, names->v[j]) ? names->v[j] : "",
					 strcmp(name, names->v[j]) ? "' too)" : "");
				return 0;
			}
			n = strlen(b) < strlen(a) ? strlen(b) : strlen(a);
			if (!strncmp(a, b, n) && (a[n] == '/' || b[n] == '/')) {
				snprintf(why, wlen, "%s '%s' is a directory of '%s': a file and a directory at once",
					 kind, a[n] == '/' ? names->v[j] : name, a[n] == '/' ? name : names->v[j]);
				return 0;
			}
		}
	}
	return 0;
}

int lr_work_file(const char *dir, const char *kind, const char *rel, char *real, char *why, size_t wlen)
{
	struct lr_strlist one = { .v = (char **)&rel, .n = 1 };
	struct lr_buf full = LR_BUF_INIT;
	char rdir[PATH_MAX];
	struct stat sb;
	size_t n;
	int rc, found = 0;

	if ((rc = lr_work_names_check(kind, &one, why, wlen)) || why[0])
		return rc;
	if (!realpath(dir, rdir))
		return lr_error_set(LR_EIO, "cannot resolve '%s': %s", dir, strerror(errno));
	lr_buf_addf(&full, "%s/%s", dir, rel); /* whole: a name cut short could be another file */
	if (!(rc = lr_buf_error(&full)))
		found = realpath(full.buf, real) != NULL;
	lr_buf_release(&full);
	if (rc)
		return rc;
	if (!found) {
		snprintf(why, wlen, "%s '%s' is missing", kind, rel);
		return 0;
	}
	n = strlen(rdir);
	if (strncmp(real, rdir, n) || real[n] != '/')
		snprintf(why, wlen, "%s '%s' leads out of {outdir} (a link)", kind, rel);
	else if (stat(real, &sb) || !S_ISREG(sb.st_mode))
		snprintf(why, wlen, "%s '%s' is not a regular file", kind, rel);
	return 0;
}

int lr_outputs_digest(const struct lr_strlist *paths, const char *dir, char hex[LR_SHA256_HEX],
		      struct lr_store_output *outs, int *nouts, const char *store_dir, struct lr_scrub *scrub,
		      char *why, size_t wlen)
{
	struct lr_sha256 h;
	char full[PATH_MAX * 2], line[100];
	const char *file;
	size_t i;
	int rc;

	hex[0] = '\0';
	/* names once placeholders are filled in: a grid value may make two alike (then no row at all) */
	if (dir && ((rc = lr_work_names_check("declared output", paths, why, wlen)) || why[0]))
		return rc;
	for (i = 0; outs && i < paths->n; i++) /* every row named, whichever output stops the loop */
		if (!(outs[i].path = strdup(paths->v[i])))
			return lr_error_set(LR_ENOMEM, "out of memory");
		else if (nouts)
			*nouts = (int)i + 1;
	if ((rc = lr_sha256_init(&h)))
		return rc;
	for (i = 0; i < paths->n; i++) {
		char sha[LR_SHA256_HEX];
		int64_t size = 0;

		if (dir && (rc = lr_work_file(dir, "declared output", paths->v[i], full, why, wlen)))
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
