/*
 * A document cut to fit where its Markdown is pasted: an issue comment holds
 * 65,536 characters, and a longer one is refused whole. What stays is chosen
 * by units, each kept whole or left out whole (a block outside a fold, or a
 * folded section with every block it holds), so no table is ever cut, and
 * the Markdown keeps every <details> it opens closed. Sizes are measured on
 * the bytes the Markdown writer gives, in code points, as the limit counts.
 */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "report/doc.h"

/*
 * The closing paragraph names what was left out in at most an eighth of the
 * characters there are, and 480: with its other words (about 250), it fits
 * in LR_DOC_FIT_MIN and leaves most of the room to what stays.
 */
#define NAMES_MAX(max) ((max) / 8 < 480 ? (max) / 8 : 480)
#define NAME_CHARS     80

struct unit {
	size_t from, to; /* blocks [from, to) */
	size_t chars;    /* as lr_doc_write writes them, the blank lines after them included */
	int fold, kept;
};

size_t lr_doc_chars(const char *s, size_t n)
{
	size_t chars = 0;
	int need = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80 && need > 0) { /* a continuation its lead announced */
			need--;
			continue;
		}
		chars++;
		need = c >= 0xf0 && c < 0xf8 ? 3 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xc0 && c < 0xe0 ? 1 : 0;
	}
	return chars;
}

/* Block i of d as Markdown, among the others: its characters and the blank line after it (0: it writes nothing). */
static size_t block_chars(struct lr_doc *d, size_t i)
{
	char *s = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f || lr_doc_write_block(f, d, i, LR_FORMAT_MD))
		d->failed = 1;
	if (f && fclose(f))
		d->failed = 1;
	if (s && len)
		n = lr_doc_chars(s, len) + 1;
	free(s);
	return n;
}

/* d's units in order, each measured. */
static struct unit *units_of(struct lr_doc *d, size_t *n)
{
	struct unit *u = calloc(d->n + 1, sizeof *u);
	size_t i = 0;

	*n = 0;
	if (!u)
		return NULL;
	while (i < d->n) {
		struct unit *x = &u[(*n)++];

		x->from = i;
		x->fold = d->v[i].kind == LR_BLOCK_FOLD;
		x->to = i + 1 + (x->fold ? d->v[i].nfold : 0);
		for (; i < x->to && i < d->n; i++)
			x->chars += block_chars(d, i);
	}
	return u;
}

/* Text t flat, quoted, cut to NAME_CHARS characters. */
static void quoted(struct lr_buf *out, const struct lr_buf *t)
{
	char *flat = lr_doc_flat(t);
	size_t n = flat ? strlen(flat) : 0, cut = n;

	while (cut && lr_doc_chars(flat, cut) > NAME_CHARS) /* whole characters only */
		for (cut--; cut && ((unsigned char)flat[cut] & 0xc0) == 0x80;)
			cut--;
	lr_buf_addf(out, "\"%.*s%s\"", (int)cut, flat ? flat : "", cut < n ? "..." : "");
	free(flat);
}

/* A unit's name in the closing paragraph: a fold's summary; else the block's kind and its words, or the heading above it. */
static void unit_name(struct lr_buf *out, const struct lr_doc *d, const struct unit *x)
{
	const struct lr_doc_block *b = &d->v[x->from];
	size_t k = x->from;

	switch (b->kind) {
	case LR_BLOCK_FOLD:
	case LR_BLOCK_CODE: quoted(out, &b->text); return;
	case LR_BLOCK_HEADING: lr_buf_adds(out, "the heading "); break;
	case LR_BLOCK_FACTS: lr_buf_adds(out, b->text.len ? "the list " : "a list"); break;
	case LR_BLOCK_TABLE:
	case LR_BLOCK_CHART: lr_buf_adds(out, "the table"); break;
	default: lr_buf_adds(out, "the paragraph "); break;
	}
	if (b->kind != LR_BLOCK_TABLE && b->kind != LR_BLOCK_CHART && (b->kind != LR_BLOCK_FACTS || b->text.len)) {
		quoted(out, &b->text);
		return;
	}
	while (k-- > 0 && d->v[k].kind != LR_BLOCK_HEADING)
		;
	if (k == (size_t)-1)
		return;
	lr_buf_adds(out, " under ");
	quoted(out, &d->v[k].text);
}

/* The closing paragraph: what was left out (the first names that fit, then how many more) and where it is. */
static void closing(struct lr_buf *t, const struct lr_doc *d, const struct unit *u, size_t n, size_t max,
		    const struct lr_buf *where)
{
	struct lr_buf names = LR_BUF_INIT, one = LR_BUF_INIT;
	size_t left = 0, named = 0;

	for (size_t k = 0; k < n; k++) {
		if (u[k].kept)
			continue;
		left++;
		lr_buf_reset(&one);
		unit_name(&one, d, &u[k]);
		if (one.failed || lr_doc_chars(names.buf, names.len) + lr_doc_chars(one.buf, one.len) > NAMES_MAX(max))
			continue;
		lr_buf_addf(&names, "%s%s", named++ ? ", " : "", one.buf);
	}
	lr_doc_addf(t, "Left out to keep this report within %zu characters: %s", max, names.buf ? names.buf : "");
	if (left > named)
		lr_doc_addf(t, "%s%zu more part%s", named ? ", and " : "", left - named, left - named == 1 ? "" : "s");
	lr_doc_add(t, ". ");
	if (where)
		lr_buf_add(t, where->buf, where->len); /* inline text already, its code spans kept */
	if (names.failed || one.failed)
		t->failed = 1;
	lr_buf_release(&names);
	lr_buf_release(&one);
}

/* The closing paragraph's characters as Markdown, the blank line after it included. */
static size_t closing_chars(struct lr_doc *d, const struct unit *u, size_t n, size_t max, const struct lr_buf *where)
{
	struct lr_doc c;
	size_t chars;

	lr_doc_init(&c);
	closing(&lr_doc_prose(&c)->text, d, u, n, max, where);
	chars = block_chars(&c, 0);
	if (lr_doc_error(&c))
		d->failed = 1;
	lr_doc_release(&c);
	return chars;
}

/*
 * Keep units by priority (every unit outside a fold, then the folds, each in
 * order) while they fit; then, while the closing paragraph does not fit
 * too, give back the last kept.
 */
static void choose(struct lr_doc *d, struct unit *u, size_t n, size_t max, const struct lr_buf *where)
{
	size_t used = 0, *order = calloc(n + 1, sizeof *order), m = 0, kept;

	if (!order) {
		d->failed = 1;
		return;
	}
	for (int fold = 0; fold <= 1; fold++)
		for (size_t k = 0; k < n; k++)
			if (u[k].fold == fold)
				order[m++] = k;
	for (kept = 0; kept < m && used + u[order[kept]].chars <= max; kept++) {
		u[order[kept]].kept = 1;
		used += u[order[kept]].chars;
	}
	for (size_t k = kept; k < m; k++) /* one too large leaves room for the smaller ones after it */
		if (used + u[order[k]].chars <= max) {
			u[order[k]].kept = 1;
			used += u[order[k]].chars;
		}
	for (size_t k = m; k-- > 0 && used + closing_chars(d, u, n, max, where) > max;)
		if (u[order[k]].kept) {
			u[order[k]].kept = 0;
			used -= u[order[k]].chars;
		}
	free(order);
}

void lr_doc_fit(struct lr_doc *d, size_t max, const struct lr_buf *where)
{
	struct unit *u;
	unsigned char *drop;
	size_t n, total = 0;

	lr_doc_fold_end(d);
	if (!max || lr_doc_error(d))
		return;
	if (max < LR_DOC_FIT_MIN)
		max = LR_DOC_FIT_MIN;
	if (!(u = units_of(d, &n)))
		goto oom;
	for (size_t k = 0; k < n; k++)
		total += u[k].chars;
	if (total <= max) {
		free(u);
		return;
	}
	choose(d, u, n, max, where);
	if (!(drop = calloc(d->n + 1, 1))) { /* and a byte for the closing paragraph, kept */
		free(u);
		goto oom;
	}
	for (size_t k = 0; k < n; k++)
		if (!u[k].kept)
			memset(drop + u[k].from, 1, u[k].to - u[k].from);
	/* named before they go */
	closing(&lr_doc_prose(d)->text, d, u, n, max, where);
	lr_doc_drop(d, drop);
	free(drop);
	free(u);
	return;
oom:
	d->failed = 1;
}
