/* Text for people: a command line as a shell would take it, sizes, lists, HTML escapes. */
#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/jsonbytes.h"
#include "report/report.h"
#include "report/text.h"

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void lr_term_name(FILE *f, const char *s)
{
	static const char c_esc[] = "\a\b\t\n\v\f\r", c_name[] = "abtnvfr";

	for (; s && *s; s++) {
		const char *e = strchr(c_esc, *s);

		if (*s == '\\')
			fputs("\\\\", f);
		else if (e)
			fprintf(f, "\\%c", c_name[e - c_esc]);
		else if (is_control((unsigned char)*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
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

int lr_path_within(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 1 && !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The part of path under dir (path within dir): "" for dir itself. */
static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return path + n + (path[n] == '/');
}

char *lr_path_relative(const char *path, const char *cwd, const char *top)
{
	struct lr_buf b = LR_BUF_INIT;
	const char *base = strrchr(path, '/');
	char *from = NULL, *slash;

	if (path[0] != '/')
		return strdup(path);
	if (cwd && lr_path_within(path, cwd))
		lr_buf_adds(&b, *under(path, cwd) ? under(path, cwd) : ".");
	else if (cwd && top && lr_path_within(path, top) && lr_path_within(cwd, top) && (from = strdup(cwd))) {
		/* up from the directory to where both are, inside the repository: the path means what it meant */
		while (!lr_path_within(path, from) && (slash = strrchr(from, '/')) && slash > from) {
			*slash = '\0';
			lr_buf_adds(&b, "../");
		}
		if (*under(path, from))
			lr_buf_adds(&b, under(path, from));
		else if (b.len)
			b.buf[--b.len] = '\0';
		free(from);
	} else {
		lr_buf_addf(&b, ".../%s", base[1] ? base + 1 : "");
	}
	return lr_buf_detach(&b, NULL);
}

/* A word of a command line as a report shows it: an absolute path (or option=path) relative, argv[0] its name. */
static char *word_relative(const char *w, size_t i, const char *cwd, const char *top)
{
	const char *eq = strchr(w, '='), *base = strrchr(w, '/');
	struct lr_buf b = LR_BUF_INIT;
	char *rel;

	if (i == 0 && w[0] == '/')
		return strdup(base[1] ? base + 1 : w);
	if (w[0] == '/')
		return lr_path_relative(w, cwd, top);
	if (!eq || eq[1] != '/' || w[0] != '-')
		return strdup(w);
	if (!(rel = lr_path_relative(eq + 1, cwd, top)))
		return NULL;
	lr_buf_addf(&b, "%.*s=%s", (int)(eq - w), w, rel);
	free(rel);
	return lr_buf_detach(&b, NULL);
}

/* argv_json as a command line, each word as word_relative gives it when 'relative'. */
static char *argv_words(const char *argv_json, const char *cwd, const char *top, int relative)
{
	json_t *a = json_loads(argv_json, 0, NULL);
	char *buf = NULL, *w;
	size_t len = 0, i;
	FILE *f;

	if (!a)
		return strdup(relative ? "(a command line labrun cannot read)" : argv_json);
	f = open_memstream(&buf, &len);
	if (!f) {
		json_decref(a);
		return NULL;
	}
	for (i = 0; i < json_array_size(a); i++) {
		const char *word = lr_json_bytes_text(json_array_get(a, i));

		if (i)
			fputc(' ', f);
		w = relative ? word_relative(word, i, cwd, top) : NULL;
		quote_word(f, w ? w : word);
		free(w);
	}
	fclose(f);
	json_decref(a);
	return buf;
}

char *lr_argv_text(const char *argv_json)
{
	return argv_words(argv_json, NULL, NULL, 0);
}

char *lr_argv_text_relative(const char *argv_json, const char *cwd, const char *top)
{
	return argv_words(argv_json, cwd, top, 1);
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

/* Whether '_' at p can open or close emphasis: not between two letters or digits (GFM's intraword rule). */
static int md_flanking_underscore(const char *s, const char *p)
{
	return p == s || !isalnum((unsigned char)p[-1]) || !isalnum((unsigned char)p[1]);
}

void lr_md_text(FILE *f, const char *s, int cell)
{
	for (const char *p = s; p && *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (is_control(c))
			fputc(' ', f); /* a line break would end the table row or start a heading */
		else if (c == '|' && cell)
			fputs("\\|", f);
		else if (c == '<')
			fputs("&lt;", f); /* no raw HTML, no comment that hides what follows, no <autolink> */
		else if (c == '&')
			fputs("&amp;", f); /* "&lt;" in a name is shown as written, not as '<' */
		else if (strchr("\\`*~", c) || (c == '_' && md_flanking_underscore(s, p)))
			fprintf(f, "\\%c", c); /* no code span, emphasis or strikethrough: each shown as written */
		else if ((c == '(' || c == '[') && p > s && p[-1] == ']')
			fprintf(f, "\\%c", c); /* no link or image: [shown](elsewhere), [shown][elsewhere] */
		else if ((c == ':' && !strncmp(p, "://", 3)) ||
			 (c == '.' && p - s >= 3 && !strncasecmp(p - 3, "www", 3)))
			fprintf(f, "\\%c",
				c); /* no autolink (GitHub's http://..., www....): a tracking URL stays text */
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
