#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "experiment/template.h"

int lr_words_split(const char *s, struct lr_strlist *out)
{
	const char *start = s;
	struct lr_buf w = LR_BUF_INIT;
	int rc = 0, in_word = 0;
	char quote = 0;

	for (; *s && !rc; s++) {
		if (quote == '\'') {
			if (*s == '\'')
				quote = 0;
			else
				lr_buf_addch(&w, *s);
		} else if (quote == '"') {
			if (*s == '"')
				quote = 0;
			else if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
				lr_buf_addch(&w, *++s);
			else
				lr_buf_addch(&w, *s);
		} else if (*s == ' ' || *s == '\t' || *s == '\n') {
			if (in_word && !(rc = lr_buf_error(&w)) && !(rc = lr_strlist_add(out, w.buf)))
				in_word = 0;
			lr_buf_reset(&w);
		} else {
			in_word = 1;
			if (*s == '\'' || *s == '"')
				quote = *s;
			else if (*s == '\\' && s[1])
				lr_buf_addch(&w, *++s);
			else
				lr_buf_addch(&w, *s);
		}
	}
	if (!rc && quote)
		rc = lr_error_set(LR_EINVAL, "unterminated %s quote in '%s'", quote == '"' ? "double" : "single",
				  start);
	if (!rc && in_word && !(rc = lr_buf_error(&w)))
		rc = lr_strlist_add(out, w.buf);
	lr_buf_release(&w);
	return rc;
}

/* Walk the placeholders of 'tpl': 'fn' gets each name; literal text goes to 'w' when set. */
static int walk(const char *tpl, struct lr_buf *w, int (*fn)(void *arg, const char *name, struct lr_buf *w), void *arg)
{
	const char *p = tpl;
	char name[64];
	int rc = 0;

	while (*p && !rc) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			if (w)
				lr_buf_addch(w, *p);
			p += 2;
		} else if (*p == '{') {
			const char *end = strchr(p, '}');
			size_t n = end ? (size_t)(end - p - 1) : 0;

			if (!end || !n || n >= sizeof name ||
			    strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					  "0123456789_-.") != n)
				return lr_error_set(
					LR_EINVAL, "'%s': a '{' must start a placeholder {NAME} (write {{ for a brace)",
					tpl);
			memcpy(name, p + 1, n);
			name[n] = '\0';
			rc = fn(arg, name, w);
			p = end + 1;
		} else if (*p == '}') {
			return lr_error_set(LR_EINVAL, "'%s': a lone '}' (write }} for a brace)", tpl);
		} else {
			if (w)
				lr_buf_addch(w, *p);
			p++;
		}
	}
	return rc;
}

static int substitute(void *arg, const char *name, struct lr_buf *w)
{
	const struct lr_kv *kv = lr_kvlist_find(arg, name);

	if (!kv)
		return lr_error_set(LR_EINVAL, "unknown placeholder {%s}", name);
	lr_buf_adds(w, kv->value);
	return 0;
}

char *lr_template_expand(const char *tpl, const struct lr_kvlist *vars)
{
	struct lr_buf w = LR_BUF_INIT;

	if (walk(tpl, &w, substitute, (void *)vars)) {
		lr_buf_release(&w);
		return NULL;
	}
	return lr_buf_detach(&w, NULL); /* NULL, its error set, when out of memory */
}

struct known {
	const char *const *names;
	const struct lr_kvlist *extra;
};

static int known(void *arg, const char *name, struct lr_buf *w)
{
	const struct known *k = arg;
	const char *const *n;

	(void)w;
	for (n = k->names; n && *n; n++)
		if (!strcmp(*n, name))
			return 0;
	if (k->extra && lr_kvlist_find(k->extra, name))
		return 0;
	return lr_error_set(LR_EINVAL, "unknown placeholder {%s}", name);
}

int lr_template_check(const char *tpl, const char *const *names, const struct lr_kvlist *extra)
{
	struct known k = { names, extra };

	return walk(tpl, NULL, known, &k);
}

void lr_words_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Expand every word of 'tpl' (split first) into a NULL-terminated argv; NULL on error. */
char **lr_template_words(const char *tpl, const struct lr_kvlist *vars)
{
	struct lr_strlist words = { 0 };
	char **v = NULL;
	size_t i;

	if (lr_words_split(tpl, &words) || !(v = calloc(words.n + 1, sizeof *v)))
		goto out;
	for (i = 0; i < words.n; i++)
		if (!(v[i] = lr_template_expand(words.v[i], vars))) {
			lr_words_free(v);
			v = NULL;
			break;
		}
out:
	lr_strlist_release(&words);
	return v;
}
