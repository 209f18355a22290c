#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/template.h"

/* A growing word. */
struct word {
	char *s;
	size_t n, cap;
};

static int put(struct word *w, char c)
{
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		char *s = realloc(w->s, cap);

		if (!s)
			return lr_error_set(LR_ENOMEM, "out of memory");
		w->s = s;
		w->cap = cap;
	}
	w->s[w->n++] = c;
	w->s[w->n] = '\0';
	return 0;
}

int lr_words_split(const char *s, struct lr_strlist *out)
{
	const char *start = s;
	struct word w = { 0 };
	int rc = 0, in_word = 0;
	char quote = 0;

	for (; *s && !rc; s++) {
		if (quote == '\'') {
			if (*s == '\'')
				quote = 0;
			else
				rc = put(&w, *s);
		} else if (quote == '"') {
			if (*s == '"')
				quote = 0;
			else if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
				rc = put(&w, *++s);
			else
				rc = put(&w, *s);
		} else if (*s == ' ' || *s == '\t' || *s == '\n') {
			if (in_word && !(rc = lr_strlist_add(out, w.s ? w.s : "")))
				w.n = 0, in_word = 0;
			if (w.s)
				w.s[0] = '\0';
		} else {
			in_word = 1;
			if (*s == '\'' || *s == '"')
				quote = *s;
			else if (*s == '\\' && s[1])
				rc = put(&w, *++s);
			else
				rc = put(&w, *s);
		}
	}
	if (!rc && quote)
		rc = lr_error_set(LR_EINVAL, "unterminated %s quote in '%s'", quote == '"' ? "double" : "single", start);
	if (!rc && in_word)
		rc = lr_strlist_add(out, w.s ? w.s : "");
	free(w.s);
	return rc;
}

/* Walk the placeholders of 'tpl': 'fn' gets each name; literal text goes to 'w' when set. */
static int walk(const char *tpl, struct word *w, int (*fn)(void *arg, const char *name, struct word *w), void *arg)
{
	const char *p = tpl;
	char name[64];
	int rc = 0;

	while (*p && !rc) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			rc = w ? put(w, *p) : 0;
			p += 2;
		} else if (*p == '{') {
			const char *end = strchr(p, '}');
			size_t n = end ? (size_t)(end - p - 1) : 0;

			if (!end || !n || n >= sizeof name || strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
								   "0123456789_-.") != n)
				return lr_error_set(LR_EINVAL, "'%s': a '{' must start a placeholder {NAME} (write {{ for a brace)",
						    tpl);
			memcpy(name, p + 1, n);
			name[n] = '\0';
			rc = fn(arg, name, w);
			p = end + 1;
		} else if (*p == '}') {
			return lr_error_set(LR_EINVAL, "'%s': a lone '}' (write }} for a brace)", tpl);
		} else {
			rc = w ? put(w, *p) : 0;
			p++;
		}
	}
	return rc;
}

static int substitute(void *arg, const char *name, struct word *w)
{
	const struct lr_kv *kv = lr_kvlist_find(arg, name);
	const char *v;

	if (!kv)
		return lr_error_set(LR_EINVAL, "unknown placeholder {%s}", name);
	for (v = kv->value; *v; v++)
		if (put(w, *v))
			return LR_ENOMEM;
	return 0;
}

char *lr_template_expand(const char *tpl, const struct lr_kvlist *vars)
{
	struct word w = { 0 };

	if (put(&w, 'x'))
		return NULL;
	w.n = 0;
	w.s[0] = '\0';
	if (walk(tpl, &w, substitute, (void *)vars)) {
		free(w.s);
		return NULL;
	}
	return w.s;
}

struct known {
	const char *const *names;
	const struct lr_kvlist *extra;
};

static int known(void *arg, const char *name, struct word *w)
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
