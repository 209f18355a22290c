/* The document model: blocks built, inline text kept clean of control characters, formats named. */
#include "config.h"
#include "base/system.h"

#include <stdarg.h>

#include "base/list.h"
#include "report/doc.h"

/* clang-format off */
const char *const lr_format_names[] = {
	[LR_FORMAT_MD] = "md", [LR_FORMAT_CSV] = "csv", [LR_FORMAT_JSON] = "json",
	[LR_FORMAT_HTML] = "html", [LR_FORMAT_TEXT] = "text", [LR_FORMAT_TIDY] = "tidy", NULL,
};
/* clang-format on */
#define NFORMATS (sizeof lr_format_names / sizeof lr_format_names[0] - 1)

const char *lr_format_name(enum lr_format f)
{
	return (size_t)f < NFORMATS ? lr_format_names[f] : "?";
}

void lr_doc_init(struct lr_doc *d)
{
	memset(d, 0, sizeof *d);
}

static void block_release(struct lr_doc_block *b)
{
	lr_buf_release(&b->text);
	for (size_t i = 0; i < b->nitems; i++)
		lr_buf_release(&b->items[i].text);
	free(b->items);
	lr_buf_release(&b->code);
	lr_table_release(&b->table);
	if (b->cols)
		for (int c = 0; c < b->table.ncols; c++) {
			free((char *)b->cols[c].key);
			free((char *)b->cols[c].head);
		}
	free(b->cols);
	free(b->missing);
	free(b->chart.title);
	free(b->chart.values);
	memset(b, 0, sizeof *b);
}

void lr_doc_release(struct lr_doc *d)
{
	for (size_t i = 0; i < d->n; i++)
		block_release(&d->v[i]);
	free(d->v);
	memset(d, 0, sizeof *d);
}

/* Where a block goes when there is no room for it: filled, then thrown away by the next one. */
static struct lr_doc_block lost;

static int block_failed(const struct lr_doc_block *b)
{
	int rc = b->text.failed || b->code.failed;

	for (size_t i = 0; i < b->nitems && !rc; i++)
		rc = b->items[i].text.failed;
	return rc;
}

int lr_doc_error(const struct lr_doc *d)
{
	int rc = d->failed;

	for (size_t i = 0; i < d->n && !rc; i++)
		rc = block_failed(&d->v[i]) ||
		     (d->v[i].kind == LR_BLOCK_TABLE && !d->v[i].missing && lr_table_error(&d->v[i].table));
	return rc ? lr_error_set(LR_ENOMEM, "out of memory") : 0;
}

static struct lr_doc_block *add_block(struct lr_doc *d, enum lr_block_kind kind)
{
	struct lr_doc_block *b;

	block_release(&lost);
	if (LR_ALLOC_GROW(d->v, d->n + 1, d->cap)) {
		d->failed = 1;
		b = &lost;
	} else {
		b = &d->v[d->n++];
	}
	memset(b, 0, sizeof *b);
	b->kind = kind;
	lr_buf_init(&b->text, 0);
	lr_buf_init(&b->code, 0);
	return b;
}

struct lr_doc_block *lr_doc_heading(struct lr_doc *d, int level)
{
	struct lr_doc_block *b = add_block(d, LR_BLOCK_HEADING);

	b->level = level;
	return b;
}

struct lr_doc_block *lr_doc_prose(struct lr_doc *d)
{
	return add_block(d, LR_BLOCK_PROSE);
}

struct lr_doc_block *lr_doc_note(struct lr_doc *d)
{
	return add_block(d, LR_BLOCK_NOTE);
}

struct lr_doc_block *lr_doc_facts(struct lr_doc *d)
{
	return add_block(d, LR_BLOCK_FACTS);
}

struct lr_doc_block *lr_doc_code_block(struct lr_doc *d, const char *code)
{
	struct lr_doc_block *b = add_block(d, LR_BLOCK_CODE);

	lr_buf_adds(&b->code, code);
	return b;
}

struct lr_doc_block *lr_doc_fold(struct lr_doc *d)
{
	struct lr_doc_block *b;

	lr_doc_fold_end(d);
	b = add_block(d, LR_BLOCK_FOLD);
	if (b != &lost) {
		d->fold = d->n - 1;
		d->folding = 1;
	}
	return b;
}

void lr_doc_fold_end(struct lr_doc *d)
{
	if (d->folding)
		d->v[d->fold].nfold = d->n - d->fold - 1;
	d->folding = 0;
}

size_t lr_doc_fold_of(const struct lr_doc *d, size_t i)
{
	for (size_t k = i; k-- > 0;) /* folds do not nest: the nearest one before i, if it reaches i */
		if (d->v[k].kind == LR_BLOCK_FOLD)
			return k + d->v[k].nfold >= i ? k : (size_t)-1;
	return (size_t)-1;
}

void lr_doc_drop(struct lr_doc *d, const unsigned char *drop)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		if (drop[i])
			block_release(&d->v[i]);
		else
			d->v[n++] = d->v[i];
	d->n = n;
	d->folding = 0;
}

void lr_doc_table(struct lr_doc *d, int rc, struct lr_table *t)
{
	struct lr_doc_block *b = add_block(d, LR_BLOCK_TABLE);
	int c;

	if (!rc && !(rc = lr_table_error(t)) && !(b->cols = calloc((size_t)t->ncols + 1, sizeof *b->cols)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	if (rc) {
		if (!(b->missing = strdup(lr_error_msg())))
			d->failed = 1;
		lr_table_release(t);
		return;
	}
	for (c = 0; c < t->ncols; c++) {
		b->cols[c].key = lr_strdup0(t->cols[c].key);
		b->cols[c].head = lr_strdup0(t->cols[c].head);
		b->cols[c].flags = t->cols[c].flags;
		if ((t->cols[c].key && !b->cols[c].key) || (t->cols[c].head && !b->cols[c].head))
			d->failed = 1;
	}
	b->table = *t;
	b->table.cols = b->cols;
	memset(t, 0, sizeof *t);
}

void lr_doc_chart(struct lr_doc *d, const struct lr_chart *c)
{
	struct lr_doc_block *b = add_block(d, LR_BLOCK_CHART);

	b->chart = *c;
	b->chart.title = lr_strdup0(c->title);
	b->chart.values = c->n ? malloc((size_t)c->n * sizeof *c->values) : NULL;
	if ((c->title && !b->chart.title) || (c->n && !b->chart.values)) {
		d->failed = 1;
		b->chart.n = 0;
		return;
	}
	if (c->n)
		memcpy(b->chart.values, c->values, (size_t)c->n * sizeof *c->values);
}

struct lr_buf *lr_doc_item(struct lr_doc *d, struct lr_doc_block *b, int level)
{
	static struct lr_buf lost_item;

	if (LR_ALLOC_GROW(b->items, b->nitems + 1, b->capitems)) {
		d->failed = 1;
		lr_buf_release(&lost_item);
		return &lost_item;
	}
	b->items[b->nitems].level = level;
	lr_buf_init(&b->items[b->nitems].text, 0);
	return &b->items[b->nitems++].text;
}

/* s[0..len) with every control character (a break or a code mark among them) a blank. */
static void add_clean(struct lr_buf *t, const char *s, size_t len)
{
	size_t from = t->len;

	lr_buf_add(t, s, len);
	if (t->failed)
		return;
	for (size_t i = from; i < t->len; i++)
		if ((unsigned char)t->buf[i] < 0x20 || t->buf[i] == 0x7f)
			t->buf[i] = ' ';
}

void lr_doc_add(struct lr_buf *t, const char *s)
{
	if (s)
		add_clean(t, s, strlen(s));
}

void lr_doc_addf(struct lr_buf *t, const char *fmt, ...)
{
	struct lr_buf tmp = LR_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	lr_buf_vaddf(&tmp, fmt, ap);
	va_end(ap);
	if (tmp.failed)
		t->failed = tmp.failed;
	else
		add_clean(t, tmp.buf, tmp.len);
	lr_buf_release(&tmp);
}

void lr_doc_code(struct lr_buf *t, const char *s)
{
	lr_buf_addch(t, LR_DOC_CODE_ON);
	lr_doc_add(t, s);
	lr_buf_addch(t, LR_DOC_CODE_OFF);
}

void lr_doc_break(struct lr_buf *t)
{
	lr_buf_addch(t, LR_DOC_BREAK);
}

void lr_doc_add_lines(struct lr_buf *t, const char *s)
{
	const char *nl;

	for (; (nl = strchr(s, '\n')); s = nl + 1) {
		add_clean(t, s, (size_t)(nl - s));
		lr_doc_break(t);
	}
	lr_doc_add(t, s);
}

char *lr_doc_flat(const struct lr_buf *t)
{
	char *s = malloc(t->len + 1);
	size_t n = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < t->len; i++)
		if (t->buf[i] == LR_DOC_BREAK)
			s[n++] = ' ';
		else if (t->buf[i] != LR_DOC_CODE_ON && t->buf[i] != LR_DOC_CODE_OFF)
			s[n++] = t->buf[i];
	s[n] = '\0';
	return s;
}

int lr_doc_next_span(const struct lr_buf *t, size_t *i, const char **s, size_t *n)
{
	int code = t->buf[*i] == LR_DOC_CODE_ON;
	size_t from = *i + (size_t)code, k = from;

	while (k < t->len && t->buf[k] != (code ? LR_DOC_CODE_OFF : LR_DOC_CODE_ON) &&
	       (code || t->buf[k] != LR_DOC_BREAK || k == from))
		k++;
	if (!code && t->buf[from] == LR_DOC_BREAK)
		k = from + 1;
	*s = t->buf + from;
	*n = k - from;
	*i = k + (size_t)(code && k < t->len);
	return code;
}
