/* Text for people: a command line as a shell would take it, sizes, lists, HTML escapes. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "report/report.h"
#include "report/text.h"

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void lr_term_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (is_control((unsigned char)*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

/* Quote one word for a POSIX shell when it needs it ($'...' when it holds a control character). */
static void quote_word(FILE *f, const char *w)
{
	const char *p;

	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=/.,:@%") == strlen(w)) {
		fputs(w, f);
		return;
	}
	for (p = w; *p && !is_control((unsigned char)*p); p++)
		;
	if (*p) {
		fputs("$'", f);
		for (p = w; *p; p++) {
			if (is_control((unsigned char)*p))
				fprintf(f, "\\x%02x", (unsigned char)*p);
			else if (*p == '\'' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else
				fputc(*p, f);
		}
		fputc('\'', f);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

char *lr_argv_text(const char *argv_json)
{
	json_t *a = json_loads(argv_json, 0, NULL);
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (!a)
		return strdup(argv_json);
	f = open_memstream(&buf, &len);
	if (!f) {
		json_decref(a);
		return NULL;
	}
	for (i = 0; i < json_array_size(a); i++) {
		if (i)
			fputc(' ', f);
		quote_word(f, lr_json_bytes_text(json_array_get(a, i)));
	}
	fclose(f);
	json_decref(a);
	return buf;
}

const char *lr_human_size(char *buf, size_t len, long long bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%lld B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

void lr_md_text(FILE *f, const char *s, int cell)
{
	for (const char *p = s; p && *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (is_control(c))
			fputc(' ', f); /* a line break would end the table row or start a heading */
		else if (cell && (c == '|' || c == '\\'))
			fprintf(f, "\\%c", c);
		else if (c == '<')
			fputs("&lt;", f); /* no raw HTML, no comment that hides what follows, no <autolink> */
		else if (c == '(' && p > s && p[-1] == ']')
			fputs("\\(", f); /* no inline link or image: [shown](elsewhere) */
		else if (c == '[' && p > s && p[-1] == ']')
			fputs("\\[", f); /* no reference link: [shown][elsewhere] */
		else
			fputc(c, f);
	}
}

void lr_html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}
