/*
 * Validating a crate: the REQUIRED rules of docs/manifest.md, checked on any
 * crate directory (labrun checks its own after writing them). Split from
 * manifest.c, which writes crates.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "evidence/manifest.h"

/* Keys labrun writes, all defined by the RO-Crate 1.2 context (schema.org terms); the validator allows only these. */
/* clang-format off */
static const char *const known_keys[] = {
	"@id", "@type", "name", "description", "conformsTo", "about", "datePublished", "license", "hasPart",
	"mentions", "author", "publisher", "identifier", "encodingFormat", "contentSize", "sha256", "version", "url",
	"instrument", "startTime", "endTime", "actionStatus", "error", "object", "result", NULL,
};
/* clang-format on */

static int bad(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_error_vset(LR_EINVAL, fmt, ap);
	va_end(ap);
	lr_error_wrap("invalid crate '%s'", dir);
	lr_error_hint("docs/manifest.md lists the rules; labrun manifest writes crates that follow them");
	return LR_EINVAL;
}

static json_t *find(json_t *graph, const char *id)
{
	size_t i;

	for (i = 0; i < json_array_size(graph); i++) {
		const char *e = json_string_value(json_object_get(json_array_get(graph, i), "@id"));

		if (e && !strcmp(e, id))
			return json_array_get(graph, i);
	}
	return NULL;
}

static int has_type(json_t *e, const char *type)
{
	json_t *t = json_object_get(e, "@type");
	size_t i;

	if (json_is_string(t))
		return !strcmp(json_string_value(t), type);
	for (i = 0; json_is_array(t) && i < json_array_size(t); i++)
		if (!strcmp(json_string_value(json_array_get(t, i)) ?: "", type))
			return 1;
	return 0;
}

static const char *ref_id(json_t *v)
{
	return json_is_object(v) ? json_string_value(json_object_get(v, "@id")) : NULL;
}

/* Is 'id' among the references of 'list' (a reference or an array of them)? */
static int refers(json_t *list, const char *id)
{
	size_t i;

	if (json_is_object(list))
		return ref_id(list) && !strcmp(ref_id(list), id);
	for (i = 0; json_is_array(list) && i < json_array_size(list); i++)
		if (ref_id(json_array_get(list, i)) && !strcmp(ref_id(json_array_get(list, i)), id))
			return 1;
	return 0;
}

/* "2026-11-29", or with a time: "2026-11-29T14:25:45.123Z" or "...+09:00" (ISO 8601, as RO-Crate asks). */
static int iso8601(const char *s)
{
	int y, mo, d, h, mi, n = 0;
	double sec;

	if (!s || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 || mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	s += 10;
	if (!*s)
		return 1;
	if (sscanf(s, "T%2d:%2d%n", &h, &mi, &n) != 2 || n != 6 || h > 23 || mi > 59)
		return 0;
	s += 6;
	if (*s == ':') {
		char *end;

		sec = strtod(s + 1, &end);
		if (end != s + 3 && !(end > s + 3 && s[3] == '.'))
			return 0;
		if (sec < 0 || sec >= 61)
			return 0;
		s = end;
	}
	if (!strcmp(s, "Z"))
		return 1;
	return (*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d%n", &h, &mi, &n) == 2 && n == 5 && !s[6];
}

/* Every @id, @type, and only keys the context defines. */
static int check_entities(const char *dir, json_t *graph)
{
	const char *key;
	json_t *e, *v;
	size_t i;
	int k;

	json_array_foreach(graph, i, e) {
		if (!json_is_object(e) || !json_is_string(json_object_get(e, "@id")) || !json_object_get(e, "@type"))
			return bad(dir, "entity %zu has no @id or no @type", i);
		json_object_foreach(e, key, v) {
			for (k = 0; known_keys[k] && strcmp(known_keys[k], key); k++)
				;
			if (!known_keys[k])
				return bad(dir, "entity '%s' uses '%s', which the RO-Crate context does not define",
					   json_string_value(json_object_get(e, "@id")), key);
		}
	}
	return 0;
}

/* The descriptor and the root data entity with its REQUIRED properties, a named license, the profile. */
static int check_root(const char *dir, json_t *graph)
{
	static const char *const need[] = { "name", "description", "license", "datePublished", NULL };
	json_t *desc = find(graph, "ro-crate-metadata.json"), *ds = find(graph, "./"), *lic;
	int k;

	if (!desc || !has_type(desc, "CreativeWork") || !json_object_get(desc, "about") ||
	    !json_object_get(desc, "conformsTo"))
		return bad(dir, "the metadata descriptor is missing, not a CreativeWork, or lacks about/conformsTo");
	if (!ds || !has_type(ds, "Dataset"))
		return bad(dir, "no root data entity ('./' of type Dataset)");
	for (k = 0; need[k]; k++)
		if (!json_object_get(ds, need[k]))
			return bad(dir, "the root data entity lacks '%s'", need[k]);
	if (!iso8601(json_string_value(json_object_get(ds, "datePublished"))))
		return bad(dir, "the root's datePublished '%s' is not an ISO 8601 date",
			   json_string_value(json_object_get(ds, "datePublished")) ?: "(not a string)");
	lic = find(graph, ref_id(json_object_get(ds, "license")) ?: "");
	if (!lic || !json_is_string(json_object_get(lic, "name")))
		return bad(dir, "the root's license is not an entity with a name");
	if (!refers(json_object_get(ds, "conformsTo"), LR_PROCESS_PROFILE))
		return bad(dir, "the root does not conform to the Process Run Crate profile (%s)", LR_PROCESS_PROFILE);
	return 0;
}

/* A File: a plain file of the crate (no link, no device), of its size and sha256, reachable from the root. */
static int check_file(const char *dir, json_t *ds, json_t *e, const char *id)
{
	char path[PATH_MAX * 2], hex[LR_SHA256_HEX], size[32];
	int64_t bytes = 0;
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, id);
	if (id[0] == '/' || strstr(id, "..") || lstat(path, &st) != 0)
		return bad(dir, "File '%s' is not in the crate directory", id);
	if (!S_ISREG(st.st_mode)) /* a link could lead out of the crate, a device never end */
		return bad(dir, "File '%s' is not a plain file (a link, device or directory)", id);
	if (lr_sha256_file(path, hex, &bytes))
		return bad(dir, "File '%s' cannot be read", id);
	snprintf(size, sizeof size, "%lld", (long long)bytes);
	if (strcmp(json_string_value(json_object_get(e, "contentSize")) ?: "", size))
		return bad(dir, "File '%s' has contentSize %s but %s bytes on disk", id,
			   json_string_value(json_object_get(e, "contentSize")) ?: "(none)", size);
	if (strcmp(json_string_value(json_object_get(e, "sha256")) ?: "", hex))
		return bad(dir, "File '%s' does not match its sha256", id);
	if (!refers(json_object_get(ds, "hasPart"), id))
		return bad(dir, "File '%s' is not reachable through the root's hasPart", id);
	return 0;
}

/* A CreateAction: a SoftwareApplication instrument; a failed one says why. */
static int check_action(const char *dir, json_t *graph, json_t *e, const char *id)
{
	json_t *ins = json_object_get(e, "instrument"), *one;
	size_t j;
	int found = 0;

	if (json_is_object(ins))
		found = find(graph, ref_id(ins) ?: "") &&
			has_type(find(graph, ref_id(ins) ?: ""), "SoftwareApplication");
	json_array_foreach(ins, j, one) {
		json_t *t = find(graph, ref_id(one) ?: "");

		if (!t || !has_type(t, "SoftwareApplication")) {
			found = 0;
			break;
		}
		found = 1;
	}
	if (!found)
		return bad(dir, "CreateAction '%s' has no instrument that resolves to a SoftwareApplication", id);
	if (!strcmp(ref_id(json_object_get(e, "actionStatus")) ?: "", "http://schema.org/FailedActionStatus") &&
	    !json_is_string(json_object_get(e, "error")))
		return bad(dir, "CreateAction '%s' failed but has no 'error' saying why", id);
	return 0;
}

/* Every reference inside the crate ({"@id": "#x"} or a relative path) names an entity of the graph. */
static int check_refs(const char *dir, json_t *graph, json_t *v)
{
	const char *key, *id;
	json_t *x;
	size_t i;
	int rc;

	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if ((rc = check_refs(dir, graph, x)))
				return rc;
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	if (json_object_size(v) == 1 && (id = json_string_value(json_object_get(v, "@id")))) {
		int local = id[0] == '#' || (!strstr(id, ":") && strcmp(id, "./"));

		return local && !find(graph, id) ? bad(dir, "the reference '%s' names no entity of the crate", id) : 0;
	}
	json_object_foreach(v, key, x)
		if ((rc = check_refs(dir, graph, x)))
			return rc;
	return 0;
}

int lr_crate_validate(const char *dir, int *entities)
{
	char path[PATH_MAX * 2];
	json_t *root, *graph, *e;
	json_error_t err;
	const char *id;
	size_t i;
	int rc = 0;

	*entities = 0;
	snprintf(path, sizeof path, "%s/ro-crate-metadata.json", dir);
	root = json_load_file(path, 0, &err);
	if (!root)
		return bad(dir,
			   access(path, F_OK) ? "no ro-crate-metadata.json"
					      : "ro-crate-metadata.json is not valid JSON (%s)",
			   err.text);
	graph = json_object_get(root, "@graph");
	if (!json_object_get(root, "@context") || !json_is_array(graph)) {
		rc = bad(dir, "the metadata lacks @context or an @graph array");
		goto out;
	}
	*entities = (int)json_array_size(graph);
	if ((rc = check_entities(dir, graph)) || (rc = check_root(dir, graph)) || (rc = check_refs(dir, graph, graph)))
		goto out;
	json_array_foreach(graph, i, e) {
		id = json_string_value(json_object_get(e, "@id"));
		if (has_type(e, "File") && (rc = check_file(dir, find(graph, "./"), e, id)))
			break;
		if (has_type(e, "CreateAction") && (rc = check_action(dir, graph, e, id)))
			break;
	}
out:
	json_decref(root);
	return rc;
}

int lr_crate_run_uuids(const char *dir, struct lr_strlist *out)
{
	char path[PATH_MAX * 2];
	json_t *root, *graph, *e;
	size_t i;
	int rc = 0;

	snprintf(path, sizeof path, "%s/ro-crate-metadata.json", dir);
	root = json_load_file(path, 0, NULL);
	if (!root)
		return bad(dir, "ro-crate-metadata.json cannot be read");
	graph = json_object_get(root, "@graph");
	json_array_foreach(graph, i, e) {
		const char *id = json_string_value(json_object_get(e, "@id"));

		if (has_type(e, "CreateAction") && id && !strncmp(id, "urn:uuid:", 9) &&
		    (rc = lr_strlist_add(out, id + 9)))
			break;
	}
	json_decref(root);
	return rc;
}
