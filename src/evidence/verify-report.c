/* A crate's report against the one its rows give now: table by table, cell by cell. */
#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include <jansson.h>

#include "base/error.h"
#include "evidence/verify.h"

static void say(lr_verify_fn fn, void *arg, int *problems, const char *file, const char *msg)
{
	(*problems)++;
	fn(arg, file, msg);
}

/* A Markdown table row's line: its lines joined, one table after another. */
struct md_table {
	char *heading;		/* the last heading above it */
	char **rows;		/* rows[0] is the header; the |---| line is left out */
	size_t n;
};

static void tables_free(struct md_table *t, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < t[i].n; k++)
			free(t[i].rows[k]);
		free(t[i].rows);
		free(t[i].heading);
	}
	free(t);
}

/* Every table of Markdown 'text'; NULL on allocation failure. */
static struct md_table *md_tables(const char *text, size_t *n)
{
	struct md_table *t = NULL, *cur = NULL;
	const char *p = text, *heading = "", *hend = heading;
	int in_table = 0;

	*n = 0;
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (*p == '#') {
			heading = p;
			hend = p + len;
		}
		if (*p == '|') {
			if (!in_table) {
				void *v = realloc(t, (*n + 1) * sizeof *t);

				if (!v)
					return t;
				t = v;
				cur = &t[(*n)++];
				memset(cur, 0, sizeof *cur);
				cur->heading = strndup(heading, (size_t)(hend - heading));
			}
			in_table = 1;
			if (strspn(p, "|-: ") < len) { /* not the |---| line */
				char **v = realloc(cur->rows, (cur->n + 1) * sizeof *v);

				if (v) {
					cur->rows = v;
					cur->rows[cur->n++] = strndup(p, len);
				}
			}
		} else {
			in_table = 0;
		}
		p += len + (end != NULL);
	}
	return t;
}

/* The next '|' that ends a cell ("\\|" is one inside it), or NULL. */
static const char *bar(const char *p)
{
	for (; *p; p++)
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '|')
			return p;
	return NULL;
}

/* Cell k of a row ("| a | b |"), trimmed, into buf (escapes as written). */
static const char *cell(const char *row, int k, char *buf, size_t len)
{
	const char *p = row, *q;
	int i;

	for (i = 0; i <= k; i++) {
		if (!(p = bar(p)))
			return NULL;
		p++;
	}
	if (!(q = bar(p)))
		return NULL;
	while (p < q && *p == ' ')
		p++;
	while (q > p && q[-1] == ' ')
		q--;
	snprintf(buf, len, "%.*s", (int)(q - p), p);
	return buf;
}

static void compare_row(const char *file, const struct md_table *a, size_t r, const char *now, lr_verify_fn fn,
			void *arg, int *problems)
{
	char x[512], y[512], head[256], first[256], msg[2048];
	int k;

	for (k = 0; cell(a->rows[r], k, x, sizeof x) || cell(now, k, y, sizeof y); k++) {
		const char *cx = cell(a->rows[r], k, x, sizeof x), *cy = cell(now, k, y, sizeof y);

		if (cx && cy && !strcmp(cx, cy))
			continue;
		snprintf(msg, sizeof msg, "table '%s', row '%s', column '%s': the crate says '%s', its rows give '%s'",
			 a->heading, cell(a->rows[r], 0, first, sizeof first) ?: "?", cell(a->rows[0], k, head, sizeof head) ?: "?",
			 cx ? cx : "(nothing)", cy ? cy : "(nothing)");
		say(fn, arg, problems, file, msg);
	}
}

void lr_verify_compare_md(const char *file, const char *crate, const char *now, lr_verify_fn fn, void *arg,
			  int *problems)
{
	size_t na = 0, nb = 0, i, r;
	struct md_table *a = md_tables(crate, &na), *b = md_tables(now, &nb);
	char msg[1024];

	if (na != nb) {
		snprintf(msg, sizeof msg, "holds %zu tables, its rows give %zu", na, nb);
		say(fn, arg, problems, file, msg);
	}
	for (i = 0; i < na && i < nb; i++) {
		if (a[i].n != b[i].n) {
			snprintf(msg, sizeof msg, "table '%s' has %zu rows, its rows give %zu", a[i].heading, a[i].n, b[i].n);
			say(fn, arg, problems, file, msg);
		}
		for (r = 0; r < a[i].n && r < b[i].n; r++)
			if (strcmp(a[i].rows[r], b[i].rows[r]))
				compare_row(file, &a[i], r, b[i].rows[r], fn, arg, problems);
	}
	tables_free(a, na);
	tables_free(b, nb);
}

/* Keys that say where and by what the report was computed, not what it found. */
static int where_key(const char *key)
{
	static const char *const skip[] = { "ledger_head", "report", "labrun_version", "run", "aa_run", NULL };
	int i;

	for (i = 0; skip[i]; i++)
		if (!strcmp(key, skip[i]))
			return 1;
	return 0;
}

static void compare_json(const char *file, const char *path, json_t *a, json_t *b, lr_verify_fn fn, void *arg,
			 int *problems)
{
	char sub[1024], msg[2048], *ta, *tb;
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(a) && json_is_object(b)) {
		json_object_foreach (a, key, v) {
			if (where_key(key))
				continue;
			snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
			compare_json(file, sub, v, json_object_get(b, key), fn, arg, problems);
		}
		json_object_foreach (b, key, v)
			if (!where_key(key) && !json_object_get(a, key)) {
				snprintf(msg, sizeof msg, "%s%s%s: missing from the crate's report, its rows give it", path,
					 *path ? "." : "", key);
				say(fn, arg, problems, file, msg);
			}
		return;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		json_array_foreach (a, i, v) {
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			compare_json(file, sub, v, json_array_get(b, i), fn, arg, problems);
		}
		return;
	}
	if (json_equal(a, b))
		return;
	ta = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	tb = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	snprintf(msg, sizeof msg, "%s: the crate says %.200s, its rows give %.200s", path, ta ? ta : "nothing",
		 tb ? tb : "nothing");
	free(ta);
	free(tb);
	say(fn, arg, problems, file, msg);
}

void lr_verify_compare_json(const char *file, const char *crate, const char *now, lr_verify_fn fn, void *arg,
			    int *problems)
{
	json_t *a = json_loads(crate, 0, NULL), *b = json_loads(now, 0, NULL);

	if (!a)
		say(fn, arg, problems, file, "is not JSON");
	else
		compare_json(file, "", a, b, fn, arg, problems);
	json_decref(a);
	json_decref(b);
}

char *lr_verify_renumber(const char *text, const int64_t *from, const int64_t *to, int n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *p = text;

	if (!f)
		return NULL;
	while (*p) {
		const char *at = strstr(p, "run ");
		char *end;
		int64_t id;
		int i;

		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p) + 4, f);
		p = at + 4;
		/* a whole word "run" and a whole number after it */
		if ((at > text && (isalnum((unsigned char)at[-1]) || at[-1] == '_')) || !isdigit((unsigned char)*p))
			continue;
		id = strtoll(p, &end, 10);
		if (isalnum((unsigned char)*end))
			continue;
		for (i = 0; i < n && from[i] != id; i++)
			;
		if (i < n) {
			fprintf(f, "%lld", (long long)to[i]);
			p = end;
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
