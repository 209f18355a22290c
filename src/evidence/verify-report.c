/*
 * A crate's report against the document its rows give now: the report is
 * rebuilt from the rows loaded into the throwaway store (their ids kept),
 * titled, versioned and headed as the crate says (the head being the one
 * verify checked against the ledger), then compared with report.json's
 * document block by block and cell by cell, with report.md rendered block by
 * block, and with report.json's data value by value. Every difference is
 * named: the file, the block, the words.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/lines.h"
#include "evidence/verify.h"
#include "experiment/report.h"
#include "report/doc.h"
#include "report/report.h"
#include "serving/report.h"

#define REPORT_MAX (256u << 20) /* a report larger than this is not read */

struct cmp {
	const char *file;
	lr_verify_fn fn;
	void *arg;
	int *problems;
	int format; /* report.json's "format": 1 where it has none */
};

/*
 * Members report.json gained after format 1: a crate of an older format was written without
 * them, and is not asked for them (everything it does say is still compared).
 */
static int newer_than_crate(const struct cmp *c, const char *key)
{
	static const struct {
		const char *key;
		int since;
	} added[] = { { "format", 2 },     { "per_block", 2 },   { "declared", 2 },
		      { "undeclared", 2 }, { "ratio_trend", 3 }, { "cleanup", 3 } };

	for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
		if (!strcmp(key, added[i].key))
			return added[i].since > c->format;
	return 0;
}

static void say(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct cmp *c, const char *fmt, ...)
{
	struct lr_buf b = LR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	lr_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	(*c->problems)++;
	c->fn(c->arg, c->file, b.failed ? "differs (out of memory saying how)" : b.buf);
	lr_buf_release(&b);
}

/* The words w[from..to) of a text cut at blanks, at most 16, into b. */
static void words_out(struct lr_buf *b, char **w, size_t from, size_t to)
{
	size_t i;

	if (from >= to)
		lr_buf_adds(b, "(nothing)");
	for (i = from; i < to && i < from + 16; i++)
		lr_buf_addf(b, "%s%s", i > from ? " " : "", w[i]);
	if (i < to)
		lr_buf_adds(b, " ...");
}

static char **split_words(char *s, size_t *n)
{
	char **w = NULL, *save = NULL, *t;
	size_t cap = 0;

	*n = 0;
	for (t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		if (LR_ALLOC_GROW(w, *n + 1, cap))
			break;
		w[(*n)++] = t;
	}
	return w;
}

/*
 * The words of a and b that differ, between the words both start with and
 * those both end with: 'open' before a's, 'mid' between, 'close' after b's.
 * With 'context', a lone word gets the common word after it, for its sense.
 */
static void words_between(struct lr_buf *out, const char *a, const char *b, const char *open, const char *mid,
			  const char *close, int context)
{
	char *ca = strdup(a ? a : ""), *cb = strdup(b ? b : "");
	size_t na = 0, nb = 0, p = 0, s = 0;
	char **wa = ca ? split_words(ca, &na) : NULL, **wb = cb ? split_words(cb, &nb) : NULL;

	while (p < na && p < nb && !strcmp(wa[p], wb[p]))
		p++;
	while (s < na - p && s < nb - p && !strcmp(wa[na - 1 - s], wb[nb - 1 - s]))
		s++;
	if (context && s && na - p - s <= 1 && nb - p - s <= 1)
		s--;
	lr_buf_adds(out, open);
	words_out(out, wa, p, na - s);
	lr_buf_adds(out, mid);
	words_out(out, wb, p, nb - s);
	lr_buf_adds(out, close);
	free(wa);
	free(wb);
	free(ca);
	free(cb);
}

void lr_verify_words(struct lr_buf *out, const char *a, const char *b)
{
	words_between(out, a, b, "\"", "\" where the rows give \"", "\"", 1);
}

/* "the crate says 'X', its rows give 'Y'": the words of a and b that differ, without the ones around them. */
static void words_apart(struct lr_buf *out, const char *a, const char *b)
{
	words_between(out, a, b, "the crate says '", "', its rows give '", "'", 0);
}

/* A block's name in a message: its heading, its first words, or the heading above a table. */
static void block_name(struct lr_buf *out, const struct lr_doc *d, size_t i)
{
	const struct lr_doc_block *b = &d->v[i];
	const struct lr_buf *t = &b->text;
	char *flat;

	if (b->kind == LR_BLOCK_TABLE || b->kind == LR_BLOCK_CHART)
		for (size_t k = i; k-- > 0;)
			if (d->v[k].kind == LR_BLOCK_HEADING) {
				t = &d->v[k].text;
				break;
			}
	if (b->kind == LR_BLOCK_FACTS && !t->len && b->nitems)
		t = &b->items[0].text;
	flat = lr_doc_flat(t);
	lr_buf_addf(out, "block %zu (%s \"%.60s%s\")", i + 1, lr_doc_kind_name(b->kind), flat ? flat : "",
		    flat && strlen(flat) > 60 ? "..." : "");
	free(flat);
}

/* "Parity" of "Parity: 2 passed, ...": an item's label, or its first words. */
static void item_label(struct lr_buf *out, const char *flat)
{
	const char *colon = strchr(flat, ':');
	int n = colon && colon - flat <= 40 ? (int)(colon - flat) : 40;

	lr_buf_addf(out, "\"%.*s%s\"", n, flat, !colon && strlen(flat) > 40 ? "..." : "");
}

/* "NAME: words" when fa and fb differ; name is the caller's, filled. */
static void say_words(struct cmp *c, struct lr_buf *name, const char *fa, const char *fb)
{
	if (!fa || !fb || !strcmp(fa, fb))
		return;
	lr_buf_adds(name, ": ");
	lr_verify_words(name, fa, fb);
	say(c, "%s", name->buf);
}

static void text_diff(struct cmp *c, const struct lr_doc *d, size_t i, const char *what, const struct lr_buf *a,
		      const struct lr_buf *b)
{
	char *fa = lr_doc_flat(a), *fb = lr_doc_flat(b);
	struct lr_buf m = LR_BUF_INIT;

	block_name(&m, d, i);
	if (what)
		lr_buf_addf(&m, ", %s", what);
	say_words(c, &m, fa, fb);
	lr_buf_release(&m);
	free(fa);
	free(fb);
}

static void facts_diff(struct cmp *c, const struct lr_doc *d, size_t i, const struct lr_doc_block *a,
		       const struct lr_doc_block *b)
{
	text_diff(c, d, i, "its lead", &a->text, &b->text);
	for (size_t k = 0; k < a->nitems || k < b->nitems; k++) {
		char *fa = k < a->nitems ? lr_doc_flat(&a->items[k].text) : strdup("");
		char *fb = k < b->nitems ? lr_doc_flat(&b->items[k].text) : strdup("");
		struct lr_buf m = LR_BUF_INIT;

		lr_buf_addf(&m, "block %zu ", i + 1);
		item_label(&m, fa && *fa ? fa : fb ? fb : "");
		say_words(c, &m, fa, fb);
		lr_buf_release(&m);
		free(fa);
		free(fb);
	}
}

static int cell_equal(const struct lr_cell *x, const struct lr_cell *y)
{
	if (x->kind != y->kind)
		return (x->kind == LR_CELL_INT || x->kind == LR_CELL_REAL) &&
		       (y->kind == LR_CELL_INT || y->kind == LR_CELL_REAL) &&
		       (x->kind == LR_CELL_INT ? (double)x->i : x->real) ==
			       (y->kind == LR_CELL_INT ? (double)y->i : y->real);
	switch (x->kind) {
	case LR_CELL_TEXT: return !strcmp(x->text, y->text);
	case LR_CELL_REAL: return x->real == y->real;
	case LR_CELL_INT: return x->i == y->i;
	default: return 1;
	}
}

static void cell_text(struct lr_buf *b, const struct lr_cell *x)
{
	switch (x->kind) {
	case LR_CELL_TEXT: lr_buf_addf(b, "\"%s\"", x->text); break;
	case LR_CELL_REAL: lr_buf_addf(b, "%.17g", x->real); break;
	case LR_CELL_INT: lr_buf_addf(b, "%lld", x->i); break;
	default: lr_buf_adds(b, "nothing");
	}
}

/* "### heading" of the table or chart at block i: the heading above it, as Markdown writes it. */
static void table_heading(struct lr_buf *out, const struct lr_doc *d, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (d->v[k].kind == LR_BLOCK_HEADING) {
			char *flat = lr_doc_flat(&d->v[k].text);

			lr_buf_addf(out, "%.*s %s", d->v[k].level, "######", flat ? flat : "");
			free(flat);
			return;
		}
}

static void table_diff(struct cmp *c, const struct lr_doc *d, size_t i, const struct lr_table *a,
		       const struct lr_table *b)
{
	struct lr_buf h = LR_BUF_INIT;

	table_heading(&h, d, i);
	if (a->ncols != b->ncols || a->nrows != b->nrows) {
		say(c, "table '%s': %zu rows of %d columns where the rows give %zu of %d (block %zu)", h.buf, a->nrows,
		    a->ncols, b->nrows, b->ncols, i + 1);
		lr_buf_release(&h);
		return;
	}
	for (size_t r = 0; r < a->nrows; r++)
		for (int k = 0; k < a->ncols; k++) {
			const struct lr_cell *x = lr_table_cell(a, r, k), *y = lr_table_cell(b, r, k);
			struct lr_buf w = LR_BUF_INIT;

			if (cell_equal(x, y))
				continue;
			cell_text(&w, x);
			lr_buf_adds(&w, ", its rows give ");
			cell_text(&w, y);
			say(c, "table '%s', row '%s', column '%s': the crate says %s (block %zu)", h.buf,
			    lr_table_cell(b, r, 0)->kind == LR_CELL_TEXT ? lr_table_cell(b, r, 0)->text : "-",
			    b->cols[k].head && *b->cols[k].head ? b->cols[k].head : b->cols[k].key, w.buf, i + 1);
			lr_buf_release(&w);
		}
	lr_buf_release(&h);
}

/* The crate's document against the rows' one, block by block. */
static void doc_diff(struct cmp *c, const struct lr_doc *a, const struct lr_doc *b)
{
	size_t i;

	if (a->n != b->n)
		say(c, "its document holds %zu blocks, the rows give %zu", a->n, b->n);
	for (i = 0; i < a->n && i < b->n; i++) {
		const struct lr_doc_block *x = &a->v[i], *y = &b->v[i];

		if (x->kind != y->kind) {
			struct lr_buf m = LR_BUF_INIT;

			block_name(&m, b, i);
			say(c, "block %zu is a %s where the rows give %s", i + 1, lr_doc_kind_name(x->kind), m.buf);
			lr_buf_release(&m);
			continue;
		}
		switch (x->kind) {
		case LR_BLOCK_FACTS: facts_diff(c, b, i, x, y); break;
		case LR_BLOCK_TABLE:
			if (!x->missing != !y->missing)
				say(c, "block %zu: a table %s where the rows give %s", i + 1,
				    x->missing ? "missing" : "", y->missing ? "none" : "one");
			else if (!x->missing)
				table_diff(c, b, i, &x->table, &y->table);
			break;
		default:
			if (x->kind == LR_BLOCK_FOLD && x->nfold != y->nfold)
				say(c, "block %zu: a fold of %zu blocks where the rows give %zu", i + 1, x->nfold,
				    y->nfold);
			if (x->kind == LR_BLOCK_CODE && strcmp(x->code.buf, y->code.buf))
				say(c, "block %zu: its folded text differs from the one the rows give", i + 1);
			text_diff(c, b, i, NULL, &x->text, &y->text);
		}
	}
}

/* ---- report.md: the rows' blocks rendered, found in the crate's text in order ---- */

/* Block i of d as Markdown, malloc'd ("" for a block Markdown leaves out). */
static char *md_block(const struct lr_doc *d, size_t i)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int rc;

	if (!f)
		return NULL;
	rc = lr_doc_write_block(f, d, i, LR_FORMAT_MD);

	if (fclose(f) || rc) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * A table's row differs at offset 'at' of its line: named by its heading, row
 * and column as the rows give them (the column counted on the rows' own line,
 * b), with the words that differ. The crate's line is never taken apart.
 */
static void md_cell(struct cmp *c, const struct lr_doc *d, size_t i, size_t row, const char *a, const char *b,
		    size_t at)
{
	const struct lr_table *t = &d->v[i].table;
	struct lr_buf head = LR_BUF_INIT, w = LR_BUF_INIT;
	size_t col = 0;

	for (size_t k = 1; k < at && b[k]; k++) /* the bars of the rows' own line before the difference */
		if (b[k] == '\\' && b[k + 1])
			k++;
		else if (b[k] == '|')
			col++;
	table_heading(&head, d, i);
	for (int k = 0, shown = 0; k < t->ncols; k++) /* the col-th column a person sees */
		if (!(t->cols[k].flags & LR_COL_DATA) && shown++ == (int)col) {
			col = (size_t)k;
			break;
		}
	words_apart(&w, a, b);
	say(c, "table '%s', row '%s', column '%s': %s (block %zu)", head.buf,
	    row < t->nrows && lr_table_cell(t, row, 0)->kind == LR_CELL_TEXT ? lr_table_cell(t, row, 0)->text : "?",
	    (int)col < t->ncols ? t->cols[col].head : "?", w.buf, i + 1);
	lr_buf_release(&head);
	lr_buf_release(&w);
}

/* Where block i of the rows (b) and the crate's text (a, alen bytes) part: a table's cell, or the words, named. */
static void md_mismatch(struct cmp *c, const struct lr_doc *d, size_t i, const char *a, size_t alen, const char *b)
{
	const struct lr_doc_block *blk = &d->v[i];
	struct lr_buf m = LR_BUF_INIT;
	size_t k = 0, line = 0, from;
	char *la, *lb, *whole;

	while (k < alen && b[k] && a[k] == b[k])
		line += a[k++] == '\n';
	for (from = k; from > 0 && a[from - 1] != '\n';)
		from--;
	la = strndup(a + from, strcspn(a + from, "\n") < alen - from ? strcspn(a + from, "\n") : alen - from);
	lb = strndup(b + from, strcspn(b + from, "\n"));
	whole = strndup(a, alen);
	if (!la || !lb || !whole) {
		say(c, "block %zu differs from the one its rows give", i + 1);
	} else if (blk->kind == LR_BLOCK_TABLE && !blk->missing && line >= 2 && *la == '|' && *lb == '|') {
		md_cell(c, d, i, line - 2, la, lb, k - from);
	} else {
		if (blk->kind == LR_BLOCK_FACTS && strchr(lb, ':')) {
			lr_buf_addf(&m, "block %zu ", i + 1);
			item_label(&m, lb + strspn(lb, " *"));
		} else {
			block_name(&m, d, i);
		}
		lr_buf_adds(&m, ": ");
		lr_verify_words(&m, whole, b);
		say(c, "%s", m.buf);
	}
	lr_buf_release(&m);
	free(la);
	free(lb);
	free(whole);
}

/* How much of text, from its start, block i takes: to the next blank line, or (folded, or ending a fold) its own lines. */
static size_t md_extent(const struct lr_doc *d, size_t i, const char *text, const char *rendered)
{
	const char *end = strstr(text, "\n\n");
	size_t lines = 0, k = 0;

	if (d->v[i].kind != LR_BLOCK_CODE && !strstr(rendered, "\n\n")) /* a fold's end is its last block's */
		return end ? (size_t)(end - text) + 1 : strlen(text);
	for (const char *p = rendered; *p; p++)
		lines += *p == '\n';
	while (text[k] && lines)
		lines -= text[k++] == '\n';
	return k;
}

static void md_diff(struct cmp *c, const struct lr_doc *d, const char *text)
{
	size_t pos = 0, len = strlen(text), i, n;
	char *r;

	for (i = 0; i < d->n; i++) {
		if (!(r = md_block(d, i))) {
			say(c, "block %zu cannot be rendered to compare (out of memory)", i + 1);
			return;
		}
		pos += strspn(text + pos, "\n");
		n = strlen(r);
		if (n && strncmp(text + pos, r, n)) {
			n = md_extent(d, i, text + pos, r);
			md_mismatch(c, d, i, text + pos, n, r);
		}
		pos += n;
		free(r);
	}
	pos += strspn(text + pos, "\n");
	if (pos < len)
		say(c, "ends with text its rows do not give: \"%.80s%s\"", text + pos, len - pos > 80 ? "..." : "");
}
/* ---- report.json's data ---- */

static void json_diff(struct cmp *c, const char *path, json_t *a, json_t *b)
{
	struct lr_buf sub = LR_BUF_INIT;
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_object(a) && json_is_object(b)) {
		json_object_foreach(a, key, v) {
			if (!*path && !strcmp(key, "document"))
				continue; /* compared as a document */
			lr_buf_reset(&sub);
			lr_buf_addf(&sub, "%s%s%s", path, *path ? "." : "", key);
			json_diff(c, sub.buf, v, json_object_get(b, key));
		}
		json_object_foreach(b, key, v)
			if (!json_object_get(a, key) && (*path || strcmp(key, "document")) && !newer_than_crate(c, key))
				say(c, "%s%s%s: missing from the crate's report, its rows give it", path,
				    *path ? "." : "", key);
	} else if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		json_array_foreach(a, i, v) {
			lr_buf_reset(&sub);
			lr_buf_addf(&sub, "%s[%zu]", path, i);
			json_diff(c, sub.buf, v, json_array_get(b, i));
		}
	} else if (!json_equal(a, b) &&
		   !(json_is_number(a) && json_is_number(b) && json_number_value(a) == json_number_value(b))) {
		char *ta = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		char *tb = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

		say(c, "%s: the crate says %.200s, its rows give %.200s", path, ta ? ta : "nothing",
		    tb ? tb : "nothing");
		free(ta);
		free(tb);
	}
	lr_buf_release(&sub);
}

/* ---- the whole ---- */

/* The crate's file 'rel' (NUL-terminated), or NULL when it has none. */
static char *crate_text(const char *dir, const char *rel)
{
	struct lr_buf path = LR_BUF_INIT;
	char *text = NULL;
	size_t len;

	lr_buf_addf(&path, "%s/%s", dir, rel);
	if (path.failed || access(path.buf, F_OK) || lr_read_regular_text(rel, path.buf, REPORT_MAX, &text, &len))
		text = NULL;
	lr_buf_release(&path);
	return text;
}

/*
 * What the rows give, titled, versioned and headed as the crate says; 0 with
 * *none when they give no report. A crate whose report.json ('cjson') has no
 * "records", or that has none, was written before reports listed the
 * recorded runs: they are left out, as its report left them out (a crate
 * signed since carries them; removing them breaks its signature).
 */
static int rebuild(const struct lr_verified *v, json_t *cjson, struct lr_report *rep, struct lr_serving_report *sv,
		   int *none)
{
	int rc;

	*none = 0;
	if ((rc = lr_report_build_runs(v->st, v->ids, v->nids, rep)))
		return rc == LR_ENOTFOUND ? (*none = 1, 0) : rc;
	if ((rc = lr_serving_report_build(v->st, rep->ids, rep->nids, NULL, 0, sv)))
		return rc;
	/* a crate of report format 1 was written before reports listed recorded runs; a later one must list them */
	if (!json_object_get(cjson, "records") && !json_object_get(cjson, "format"))
		while (rep->nrecords)
			lr_run_release(&rep->records[--rep->nrecords]);
	*none = !rep->nruns && !rep->nrecords && !sv->nrows;
	/* where it was computed: the crate's own head, which verify held to its ledger */
	rep->head = v->head;
	free(rep->head_statement);
	rep->head_statement = v->head_statement ? strdup(v->head_statement) : NULL;
	return v->head_statement && !rep->head_statement ? lr_error_set(LR_ENOMEM, "out of memory") : 0;
}

int lr_verify_report(const char *dir, const struct lr_verified *v, lr_verify_fn fn, void *arg, int *problems)
{
	char *md = crate_text(dir, "report.md"), *js = crate_text(dir, "report.json");
	json_t *cjson = js ? json_loads(js, 0, NULL) : NULL, *data = NULL;
	struct lr_serving_report sv = { 0 };
	struct lr_report rep = { 0 };
	struct lr_doc now, then, cut; /* the rows' document, the crate's, and the rows' as report.md has it */
	struct cmp c = { "report.md", fn, arg, problems, 1 };
	struct lr_report_label l = { json_string_value(json_object_get(cjson, "report")) ?: "",
				     json_string_value(json_object_get(cjson, "labrun_version")) };
	int rc, none = 0;

	lr_doc_init(&now);
	lr_doc_init(&then);
	lr_doc_init(&cut);
	if ((rc = rebuild(v, cjson, &rep, &sv, &none)))
		goto out;
	c.format = json_is_integer(json_object_get(cjson, "format"))
			   ? (int)json_integer_value(json_object_get(cjson, "format"))
			   : 1;
	lr_report_as_format(&rep, c.format); /* its words and flags as that format had them */
	if (none || !md) {
		if (none == (md != NULL))
			say(&c, "%s",
			    md ? "is in the crate, but its rows give no report"
			       : "is missing, though its rows give a report");
		goto out;
	}
	/* as the crate's statement says report.md was written; without a word of it, as labrun wrote it before */
	(v->report_fit ? lr_render_report_doc : lr_render_report_doc_flat)(&now, &rep, &sv, &l, 0);
	if (v->report_fit) {
		lr_render_report_doc(&cut, &rep, &sv, &l, 0);
		lr_render_report_fit(&cut, (size_t)v->report_max_chars);
	}
	if ((rc = lr_doc_error(&now)) || (rc = lr_doc_error(&cut)))
		goto out;
	md_diff(&c, v->report_fit ? &cut : &now, md);
	c.file = "report.json";
	if (!cjson) {
		say(&c, "%s", js ? "is not JSON" : "is missing");
		goto out;
	}
	if (json_object_get(cjson, "document")) { /* crates written before labrun had documents carry none */
		if (lr_doc_from_json(&then, json_object_get(cjson, "document")))
			say(&c, "its document cannot be read: %s", lr_error_msg());
		else
			doc_diff(&c, &then, &now);
	}
	if (!(data = lr_render_report_data(&rep, &sv, &l)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else
		json_diff(&c, "", cjson, data);
out:
	lr_doc_release(&now);
	lr_doc_release(&then);
	lr_doc_release(&cut);
	lr_serving_report_release(&sv);
	lr_report_release(&rep);
	json_decref(cjson);
	json_decref(data);
	free(md);
	free(js);
	return rc;
}
