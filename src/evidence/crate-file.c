/* A crate's files: made in place, their media types, and File entities in its graph. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "evidence/crate-file.h"

/* A new file at 'path' in the crate (its directories made): NULL with *rc set when it cannot be made. */
FILE *lr_crate_create_file(const char *path, int *rc)
{
	FILE *f = NULL;

	if (!(*rc = lr_mkdir_parents(path, 0777)) && !(f = fopen(path, "wx")))
		*rc = lr_error_set(LR_EIO, "cannot create '%s': %s", path, strerror(errno));
	return f;
}

/* Close a file of lr_crate_create_file: rc, or the error of closing it. */
int lr_crate_close_file(FILE *f, const char *path, int rc)
{
	if (fclose(f) != 0 && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s'", path);
	return rc;
}

int lr_crate_write_text(const char *path, const char *text, size_t len)
{
	int rc;
	FILE *f = lr_crate_create_file(path, &rc);

	if (!f)
		return rc;
	if (fwrite(text, 1, len, f) != len)
		rc = lr_error_set(LR_EIO, "cannot write '%s'", path);
	return lr_crate_close_file(f, path, rc);
}

json_t *lr_crate_ref(const char *id)
{
	return json_pack("{s:s}", "@id", id);
}

const char *lr_crate_media_type(const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name, *dot = strrchr(base, '.');

	if (dot && !strcmp(dot, ".json"))
		return "application/json";
	if (dot && !strcmp(dot, ".csv"))
		return "text/csv";
	if (dot && !strcmp(dot, ".html"))
		return "text/html";
	if (dot && !strcmp(dot, ".css"))
		return "text/css";
	if (dot && !strcmp(dot, ".js"))
		return "text/javascript";
	if ((dot && (!strcmp(dot, ".ini") || !strcmp(dot, ".txt") || !strcmp(dot, ".md"))) || !strcmp(base, "stdout") ||
	    !strcmp(base, "stderr"))
		return "text/plain";
	return "application/octet-stream";
}

/* Add a File entity for 'rel' (already in the crate) to the graph and the root's hasPart; returns a reference. */
json_t *lr_crate_add_file(const char *dir, const char *rel, json_t *graph, json_t *parts)
{
	char full[PATH_MAX * 2], hex[LR_SHA256_HEX], size[32];
	int64_t bytes = 0;

	snprintf(full, sizeof full, "%s/%s", dir, rel);
	if (lr_sha256_file(full, hex, &bytes))
		return NULL;
	snprintf(size, sizeof size, "%lld", (long long)bytes);
	json_array_append_new(graph, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "@id", rel, "@type", "File", "name",
					       rel, "encodingFormat", lr_crate_media_type(rel), "contentSize", size,
					       "sha256", hex));
	json_array_append_new(parts, lr_crate_ref(rel));
	return lr_crate_ref(rel);
}
