/* Enum values and their names, both ways (base/enumname.h). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/enumname.h"

const char *lr_enum_name(const struct lr_enum_names *e, int v)
{
	return v >= 0 && (size_t)v < e->n ? e->names[v] : "?";
}

int lr_enum_parse(const struct lr_enum_names *e, const char *s, int *v)
{
	struct lr_buf known = LR_BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; s && i < e->n; i++)
		if (!strcmp(s, e->names[i])) {
			*v = (int)i;
			return 0;
		}
	for (i = 0; i < e->n; i++)
		lr_buf_addf(&known, "%s%s", i == 0 ? "" : i + 1 < e->n ? ", " : " and ", e->names[i]);
	if (!(rc = lr_buf_error(&known)))
		rc = lr_error_set(LR_EINVAL, "unknown %s '%s' (labrun %s knows %s)", e->what, s ? s : "(null)",
				  PACKAGE_VERSION, known.buf);
	lr_buf_release(&known);
	return rc;
}
