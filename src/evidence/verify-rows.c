/* labrun verify: a run's file against the bytes its rows give: JSON by member, CSV by column, other text by line. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "evidence/verify-int.h"

/* A JSON value as a short text for a message. */
static void json_said(struct lr_buf *out, const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);

	lr_buf_addf(out, "%.80s%s", s ? s : "?", s && strlen(s) > 80 ? "..." : "");
	free(s);
}

/* A member of run.json that labrun wrote only after its first crates: an older crate's run.json lacks it. */
static int later_member(const char *key)
{
	static const char *const later[] = { "tool_probes", "recorder", "checks" };
	size_t i;

	for (i = 0; i < sizeof later / sizeof *later; i++)
		if (!strcmp(key, later[i]))
			return 1;
	return 0;
}

/*
 * The first member where 'a' (the crate's) and 'b' (the rows') differ, said
 * into 'out' under 'path'; 1 when one does. A member the crate lacks is a
 * difference, but, unless 'strict' (a crate that says its run files are
 * its rows' bytes), one of the members labrun added to run.json since its
 * first crates: dropping the crate's word "runFiles" buys no more.
 */
static int json_apart(struct lr_buf *out, const char *path, json_t *a, json_t *b, int strict)
{
	char sub[512];
	const char *key;
	json_t *v;

	if (!json_is_object(a) || !json_is_object(b)) {
		if (json_equal(a, b))
			return 0;
		lr_buf_addf(out, "%s is ", path);
		json_said(out, a);
		lr_buf_addf(out, " where the rows give ");
		json_said(out, b);
		return 1;
	}
	json_object_foreach(a, key, v) {
		snprintf(sub, sizeof sub, "%s%s\"%s\"", path, *path ? "." : "", key);
		if (!json_object_get(b, key)) {
			lr_buf_addf(out, "%s is not in the rows", sub);
			return 1;
		}
		if (json_apart(out, sub, v, json_object_get(b, key), strict))
			return 1;
	}
	json_object_foreach(b, key, v)
		if (!json_object_get(a, key) && (strict || *path || !later_member(key))) {
			lr_buf_addf(out, "%s%s\"%s\" is missing", path, *path ? "." : "", key);
			return 1;
		}
	return 0;
}

int lr_verify_json_apart(struct lr_buf *out, json_t *a, json_t *b)
{
	return json_apart(out, "", a, b, 1);
}

/* The lines of 'text' (LF or CRLF), each split into its CSV fields (RFC 4180 quoting): rows of fields. */
struct csv {
	struct lr_strlist *rows;
	size_t n, cap;
};

static void csv_release(struct csv *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		lr_strlist_release(&t->rows[i]);
	free(t->rows);
}

static int csv_read(struct csv *t, const char *text, size_t len)
{
	struct lr_buf f = LR_BUF_INIT;
	struct lr_strlist *row = NULL;
	size_t i;
	int quoted = 0, rc = 0;

	for (i = 0; i <= len && !rc; i++) {
		char ch = i < len ? text[i] : '\n';

		if (!row && i == len)
			break;
		if (!row) {
			if ((rc = LR_ALLOC_GROW(t->rows, t->n + 1, t->cap)))
				break;
			row = &t->rows[t->n++];
			memset(row, 0, sizeof *row);
		}
		if (quoted && ch == '"' && i + 1 < len && text[i + 1] == '"')
			lr_buf_addch(&f, text[i++]);
		else if (ch == '"')
			quoted = !quoted;
		else if (quoted || (ch != ',' && ch != '\n' && (ch != '\r' || (i + 1 < len && text[i + 1] != '\n'))))
			lr_buf_addch(&f, ch);
		else if (ch != '\r') {
			rc = lr_strlist_add(row, f.len ? f.buf : "");
			lr_buf_reset(&f);
			row = ch == '\n' ? NULL : row;
		}
	}
	lr_buf_release(&f);
	return rc;
}

/* Column 'name' of header 'h', or -1. */
static int column(const struct lr_strlist *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->v[i], name))
			return (int)i;
	return -1;
}

/* The first cell where CSV 'a' (the crate's) and 'b' (the rows') differ, by column name; 1 when one does. */
static int table_apart(struct lr_buf *out, const struct csv *a, const struct csv *b)
{
	const struct lr_strlist *ha = a->n ? &a->rows[0] : NULL, *hb = b->n ? &b->rows[0] : NULL;
	size_t i, k;
	int j;

	if (!ha || !hb || a->n != b->n) {
		lr_buf_addf(out, "%zu row(s) where the rows give %zu", a->n ? a->n - 1 : 0, b->n ? b->n - 1 : 0);
		return 1;
	}
	for (k = 0; k < ha->n; k++)
		if (column(hb, ha->v[k]) < 0) {
			lr_buf_addf(out, "column \"%s\" is not in the rows", ha->v[k]);
			return 1;
		}
	for (k = 0; k < hb->n; k++)
		if (column(ha, hb->v[k]) < 0) {
			lr_buf_addf(out, "column \"%s\" is missing", hb->v[k]);
			return 1;
		}
	for (i = 1; i < a->n; i++)
		for (k = 0; k < ha->n; k++) {
			const char *x = k < a->rows[i].n ? a->rows[i].v[k] : "";
			const char *y = (j = column(hb, ha->v[k])) < (int)b->rows[i].n ? b->rows[i].v[j] : "";

			if (strcmp(x, y)) {
				lr_buf_addf(out, "row %zu, %s: \"%.60s\" where the rows give \"%.60s\"", i, ha->v[k], x,
					    y);
				return 1;
			}
		}
	return 0;
}

/* 'line N: "crate words" where the rows give "rows words"' of the first line where 'have' and 'want' differ. */
static void first_line_apart(struct lr_buf *out, const char *have, size_t hlen, const char *want, size_t wlen)
{
	size_t i = 0, line = 1, start = 0, he, we;
	char *a, *b;

	for (; i < hlen && i < wlen && have[i] == want[i]; i++)
		if (have[i] == '\n')
			line++, start = i + 1;
	for (he = start; he < hlen && have[he] != '\n'; he++)
		;
	for (we = start; we < wlen && want[we] != '\n'; we++)
		;
	a = strndup(have + start, he - start);
	b = strndup(want + start, we - start);
	lr_buf_addf(out, "line %zu: ", line);
	if (a && b)
		lr_verify_words(out, a, b);
	free(a);
	free(b);
}

int lr_verify_apart(struct lr_buf *out, const char *rel, const char *have, size_t hlen, const char *want, size_t wlen,
		    int strict)
{
	const char *dot = strrchr(rel, '.');
	int apart = 0, same = hlen == wlen && !memcmp(have, want, hlen);

	if (dot && !strcmp(dot, ".json")) {
		json_t *a = json_loadb(have, hlen, JSON_REJECT_DUPLICATES, NULL), *b = json_loadb(want, wlen, 0, NULL);

		if (!a)
			lr_buf_addf(out, "is not JSON (each key once)");
		apart = !a || json_apart(out, "", a, b, strict);
		json_decref(a);
		json_decref(b);
	} else if (dot && !strcmp(dot, ".csv")) {
		struct csv a = { 0 }, b = { 0 };

		apart = csv_read(&a, have, hlen) || csv_read(&b, want, wlen) || table_apart(out, &a, &b);
		csv_release(&a);
		csv_release(&b);
	} else if (!same) {
		first_line_apart(out, have, hlen, want, wlen);
		return 1;
	}
	if (!apart && strict && !same)
		lr_buf_addf(out, "its values are the rows', its bytes are not");
	return apart || (strict && !same);
}
