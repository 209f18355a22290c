#include "config.h"
#include "base/system.h"

#include "base/jsonbytes.h"
#include "base/safename.h"

json_t *lr_json_bytes(const char *s)
{
	size_t len = strlen(s) * 3 + 8;
	json_t *v = json_string(s);
	char *safe;

	if (v)
		return v;
	if (!(safe = malloc(len)) || !lr_safe_member(safe, len, s)) {
		free(safe);
		return NULL;
	}
	v = json_pack("{s:s}", "escaped", safe);
	free(safe);
	return v;
}

static int hex(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
				      : -1;
}

char *lr_json_bytes_value(const json_t *v)
{
	const char *s = json_string_value(v), *e = json_string_value(json_object_get(v, "escaped"));
	char *out, *o;

	if (s)
		return strdup(s);
	if (!e || !(out = malloc(strlen(e) + 1)))
		return NULL;
	for (o = out; *e; o++) {
		if (e[0] == '%' && hex(e[1]) >= 0 && hex(e[2]) >= 0) {
			*o = (char)(hex(e[1]) * 16 + hex(e[2]));
			e += 3;
		} else {
			*o = *e++;
		}
	}
	*o = 0;
	return out;
}

const char *lr_json_bytes_text(const json_t *v)
{
	const char *s = json_string_value(v);

	if (!s)
		s = json_string_value(json_object_get(v, "escaped"));
	return s ? s : "";
}
