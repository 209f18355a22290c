/* Where a definition's problems are: the first one, and the lines of sections and keys (expdef-int.h). */
#include "config.h"
#include "base/system.h"

#include "experiment/expdef-int.h"

/* The first problem, at its line (every later one is dropped); returns 0, which stops inih. */
int lr_expdef_fail(struct parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (p->err[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	p->err_line = line;
	return 0; /* makes inih stop reporting success */
}

int lr_expdef_section_line(const struct parse *p, const char *name)
{
	int i;

	for (i = 0; i < p->nsections; i++)
		if (!strcmp(p->sections[i], name))
			return p->section_line[i];
	return 0;
}

int lr_expdef_key_line(const struct parse *p, const char *section, const char *key)
{
	char k[160];
	const struct lr_kv *v;

	snprintf(k, sizeof k, "%s\n%s", section, key);
	return (v = lr_kvlist_find(&p->seen, k)) ? atoi(v->value) : lr_expdef_section_line(p, section);
}
