#include "config.h"
#include "base/system.h"

#include "base/csv.h"
#include "base/error.h"

static void field(FILE *f, const char *v)
{
	const char *p;

	if (!v)
		return;
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (p = v; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

const char *lr_double_text(char *buf, double d)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, LR_DOUBLE_TEXT, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return buf;
	}
	snprintf(buf, LR_DOUBLE_TEXT, "%.17g", d);
	return buf;
}

int lr_csv_write_row(FILE *f, const char *const *fields, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		field(f, fields[i]);
	}
	fputc('\n', f);
	return ferror(f) ? lr_error_set(LR_EIO, "cannot write CSV: the output failed") : 0;
}
