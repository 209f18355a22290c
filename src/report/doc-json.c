/*
 * A document as JSON, and back: the "document" of report.json, which a
 * reviewer's program reads block by block and 'labrun verify' compares with
 * the document a crate's rows give. Text is flat (code spans as their words);
 * numbers are written in full, so they read back to the same double. What is
 * read back is data from another host: every member is checked for its type,
 * and nothing in it is more than text.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "report/doc.h"

/* clang-format off */
static const char *const kind_names[] = {
	[LR_BLOCK_HEADING] = "heading", [LR_BLOCK_PROSE] = "prose", [LR_BLOCK_FACTS] = "facts",
	[LR_BLOCK_TABLE] = "table", [LR_BLOCK_CHART] = "chart", [LR_BLOCK_NOTE] = "note", [LR_BLOCK_CODE] = "code",
	[LR_BLOCK_FOLD] = "fold",
};
/* clang-format on */
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

const char *lr_doc_kind_name(enum lr_block_kind k)
{
	return (size_t)k < NKINDS ? kind_names[k] : "?";
}

static json_t *flat(const struct lr_buf *t)
{
	char *s = lr_doc_flat(t);
	json_t *j = s ? json_string(s) : NULL;

	free(s);
	return j;
}

static json_t *cell_json(const struct lr_cell *c)
{
	switch (c->kind) {
	case LR_CELL_TEXT: return json_string(c->text);
	case LR_CELL_REAL: return json_real(c->real);
	case LR_CELL_INT: return json_integer(c->i);
	default: return json_null();
	}
}

static json_t *table_json(const struct lr_doc_block *b)
{
	json_t *cols = json_array(), *rows = json_array();

	if (b->missing)
		return json_pack("{s:s, s:s}", "kind", "table", "missing", b->missing);
	for (int c = 0; c < b->table.ncols; c++)
		json_array_append_new(
			cols, json_pack("{s:s?, s:s?}", "key", b->table.cols[c].key, "head", b->table.cols[c].head));
	for (size_t r = 0; r < b->table.nrows; r++) {
		json_t *row = json_array();

		for (int c = 0; c < b->table.ncols; c++)
			json_array_append_new(row, cell_json(lr_table_cell(&b->table, r, c)));
		json_array_append_new(rows, row);
	}
	return json_pack("{s:s, s:o, s:o}", "kind", "table", "columns", cols, "rows", rows);
}

static json_t *block_json(const struct lr_doc_block *b)
{
	json_t *o, *items, *values;

	switch (b->kind) {
	case LR_BLOCK_TABLE: return table_json(b);
	case LR_BLOCK_CHART:
		values = json_array();
		for (int i = 0; i < b->chart.n; i++)
			json_array_append_new(values, json_real(b->chart.values[i]));
		return json_pack("{s:s, s:s?, s:o, s:f, s:o, s:o, s:f, s:b}", "kind", "chart", "title", b->chart.title,
				 "values", values, "estimate", b->chart.estimate, "lo",
				 b->chart.has_interval ? json_real(b->chart.lo) : json_null(), "hi",
				 b->chart.has_interval ? json_real(b->chart.hi) : json_null(), "margin",
				 b->chart.margin, "change", b->chart.change);
	case LR_BLOCK_FACTS:
		items = json_array();
		for (size_t i = 0; i < b->nitems; i++)
			json_array_append_new(items, json_pack("{s:i, s:o}", "level", b->items[i].level, "text",
							       flat(&b->items[i].text)));
		o = json_pack("{s:s, s:o}", "kind", "facts", "items", items);
		if (o && b->text.len)
			json_object_set_new(o, "lead", flat(&b->text));
		return o;
	case LR_BLOCK_CODE:
		return json_pack("{s:s, s:o, s:s}", "kind", "code", "summary", flat(&b->text), "code", b->code.buf);
	case LR_BLOCK_HEADING:
		return json_pack("{s:s, s:i, s:o}", "kind", "heading", "level", b->level, "text", flat(&b->text));
	case LR_BLOCK_FOLD:
		return json_pack("{s:s, s:o, s:I}", "kind", "fold", "summary", flat(&b->text), "blocks",
				 (json_int_t)b->nfold);
	default: return json_pack("{s:s, s:o}", "kind", lr_doc_kind_name(b->kind), "text", flat(&b->text));
	}
}

json_t *lr_doc_json(const struct lr_doc *d)
{
	json_t *blocks = json_array();

	for (size_t i = 0; i < d->n; i++) {
		json_t *b = block_json(&d->v[i]);

		if (!b || json_array_append_new(blocks, b)) {
			json_decref(blocks);
			return NULL;
		}
	}
	return json_pack("{s:i, s:o}", "version", 1, "blocks", blocks);
}

/* ---- reading back ---- */

/* Member 'name' of o as text, or NULL (and *bad set) when it is not a string; absent is "" when 'optional'. */
static const char *text_member(json_t *o, const char *name, int optional, int *bad)
{
	json_t *v = json_object_get(o, name);

	if (!v && optional)
		return "";
	if (!json_is_string(v))
		*bad = 1;
	return json_string_value(v);
}

/* The table of block b from its JSON: columns and typed cells. */
static int table_read(struct lr_doc *d, json_t *o, size_t i)
{
	json_t *cols = json_object_get(o, "columns"), *rows = json_object_get(o, "rows"), *row, *c;
	struct lr_column *cv;
	struct lr_table t;
	size_t r, k, ncols = json_array_size(cols);

	if (json_is_string(json_object_get(o, "missing"))) {
		lr_error_set(LR_EINVAL, "%s", json_string_value(json_object_get(o, "missing")));
		lr_doc_table(d, LR_EINVAL, &(struct lr_table){ 0 });
		return 0;
	}
	if (!json_is_array(cols) || !json_is_array(rows) || !ncols || ncols > 1000)
		return lr_error_set(LR_EINVAL, "block %zu: a table needs 'columns' and 'rows'", i + 1);
	if (!(cv = calloc(ncols, sizeof *cv)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	json_array_foreach(cols, k, c) {
		cv[k].key = json_string_value(json_object_get(c, "key"));
		cv[k].head = json_string_value(json_object_get(c, "head"));
	}
	lr_table_init(&t, cv, (int)ncols);
	json_array_foreach(rows, r, row) {
		if (!json_is_array(row) || json_array_size(row) != ncols) {
			lr_table_release(&t);
			free(cv);
			return lr_error_set(LR_EINVAL, "block %zu: row %zu has not one cell per column", i + 1, r + 1);
		}
		json_array_foreach(row, k, c)
			if (json_is_integer(c))
				lr_table_int(&t, json_integer_value(c));
			else if (json_is_real(c))
				lr_table_real(&t, json_real_value(c), 3);
			else if (json_is_string(c))
				lr_table_text(&t, json_string_value(c));
			else
				lr_table_none(&t);
	}
	lr_doc_table(d, 0, &t); /* copies the columns */
	free(cv);
	return 0;
}

static int chart_read(struct lr_doc *d, json_t *o, size_t i)
{
	json_t *values = json_object_get(o, "values"), *v;
	struct lr_chart c = { 0 };
	size_t k;
	int rc = 0;

	if (!json_is_array(values) || json_array_size(values) > 100000)
		return lr_error_set(LR_EINVAL, "block %zu: a chart needs 'values'", i + 1);
	c.title = (char *)json_string_value(json_object_get(o, "title"));
	c.n = (int)json_array_size(values);
	if (c.n && !(c.values = calloc((size_t)c.n, sizeof *c.values)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	json_array_foreach(values, k, v)
		c.values[k] = json_number_value(v);
	c.estimate = json_number_value(json_object_get(o, "estimate"));
	c.has_interval = json_is_number(json_object_get(o, "lo"));
	c.lo = json_number_value(json_object_get(o, "lo"));
	c.hi = json_number_value(json_object_get(o, "hi"));
	c.margin = json_number_value(json_object_get(o, "margin"));
	c.change = json_is_true(json_object_get(o, "change"));
	lr_doc_chart(d, &c);
	free(c.values);
	return rc;
}

static int facts_read(struct lr_doc *d, json_t *o, size_t i)
{
	json_t *items = json_object_get(o, "items"), *it;
	struct lr_doc_block *b;
	int bad = 0;
	size_t k;

	if (!json_is_array(items))
		return lr_error_set(LR_EINVAL, "block %zu: a list of facts needs 'items'", i + 1);
	b = lr_doc_facts(d);
	lr_doc_add(&b->text, text_member(o, "lead", 1, &bad));
	json_array_foreach(items, k, it)
		lr_doc_add(lr_doc_item(d, b, json_integer_value(json_object_get(it, "level")) > 0),
			   text_member(it, "text", 0, &bad));
	return bad ? lr_error_set(LR_EINVAL, "block %zu: an item without text", i + 1) : 0;
}

/* A fold of 'blocks' blocks: that many must follow it, none of them a fold (checked once all are read). */
static int fold_read(struct lr_doc *d, json_t *o, size_t i)
{
	json_t *n = json_object_get(o, "blocks");
	struct lr_doc_block *b;
	int bad = 0;

	if (!json_is_integer(n) || json_integer_value(n) < 0)
		return lr_error_set(LR_EINVAL, "block %zu: a fold needs 'blocks', how many it holds", i + 1);
	b = lr_doc_fold(d);
	lr_doc_add(&b->text, text_member(o, "summary", 0, &bad));
	b->nfold = (size_t)json_integer_value(n);
	d->folding = 0;
	return bad ? lr_error_set(LR_EINVAL, "block %zu: a fold without its summary", i + 1) : 0;
}

/* Every fold holds blocks that are there, and no fold. */
static int folds_check(const struct lr_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->v[i].kind != LR_BLOCK_FOLD)
			continue;
		if (d->v[i].nfold > d->n - i - 1)
			return lr_error_set(LR_EINVAL, "block %zu: a fold of %zu blocks where %zu follow", i + 1,
					    d->v[i].nfold, d->n - i - 1);
		for (size_t k = i + 1; k <= i + d->v[i].nfold; k++)
			if (d->v[k].kind == LR_BLOCK_FOLD)
				return lr_error_set(LR_EINVAL, "block %zu: a fold inside the fold of block %zu", k + 1,
						    i + 1);
	}
	return 0;
}

static int block_read(struct lr_doc *d, json_t *o, size_t i)
{
	const char *kind = json_string_value(json_object_get(o, "kind"));
	int bad = 0;
	size_t k;

	for (k = 0; kind && k < NKINDS && strcmp(kind, kind_names[k]); k++)
		;
	if (!kind || k == NKINDS)
		return lr_error_set(LR_EINVAL, "block %zu: unknown kind '%s'", i + 1, kind ? kind : "(none)");
	switch ((enum lr_block_kind)k) {
	case LR_BLOCK_TABLE: return table_read(d, o, i);
	case LR_BLOCK_CHART: return chart_read(d, o, i);
	case LR_BLOCK_FACTS: return facts_read(d, o, i);
	case LR_BLOCK_CODE:
		lr_doc_add(&lr_doc_code_block(d, text_member(o, "code", 0, &bad) ?: "")->text,
			   text_member(o, "summary", 0, &bad));
		break;
	case LR_BLOCK_HEADING:
		lr_doc_add(&lr_doc_heading(d, (int)json_integer_value(json_object_get(o, "level")))->text,
			   text_member(o, "text", 0, &bad));
		break;
	case LR_BLOCK_FOLD: return fold_read(d, o, i);
	case LR_BLOCK_PROSE: lr_doc_add(&lr_doc_prose(d)->text, text_member(o, "text", 0, &bad)); break;
	case LR_BLOCK_NOTE: lr_doc_add(&lr_doc_note(d)->text, text_member(o, "text", 0, &bad)); break;
	}
	return bad ? lr_error_set(LR_EINVAL, "block %zu: a %s without its text", i + 1, kind) : 0;
}

int lr_doc_from_json(struct lr_doc *d, json_t *doc)
{
	json_t *blocks = json_object_get(doc, "blocks"), *b;
	size_t i;
	int rc = 0;

	lr_doc_init(d);
	if (json_integer_value(json_object_get(doc, "version")) != 1 || !json_is_array(blocks))
		return lr_error_set(LR_EINVAL, "not a document of version 1 (no 'blocks')");
	json_array_foreach(blocks, i, b)
		if (!json_is_object(b) || (rc = block_read(d, b, i)))
			return rc ? rc : lr_error_set(LR_EINVAL, "block %zu is not an object", i + 1);
	return lr_doc_error(d) ?: folds_check(d);
}
