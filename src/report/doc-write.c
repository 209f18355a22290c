/*
 * A document written as Markdown (what is pasted as an issue comment and put
 * into a crate) and as text for a terminal; HTML is doc-html.c's. Every
 * string is escaped here, for its format, and nowhere else.
 */
#include "config.h"
#include "base/system.h"

#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "report/text.h"

/* A code span in Markdown: fenced by one more backtick than the longest run inside it. */
static void md_code(FILE *f, const char *s, size_t n)
{
	size_t run = 0, longest = 0, i;
	int pad;

	for (i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	pad = n && (s[0] == '`' || s[n - 1] == '`');
	for (i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, "%s%.*s%s", pad ? " " : "", (int)n, s, pad ? " " : "");
	for (i = 0; i <= longest; i++)
		fputc('`', f);
}

/*
 * Words at the start of a line: a first character that would start a heading,
 * quote, list, table or link definition is escaped ('*', '~' and '`' are
 * lr_md_text's).
 */
static void md_line_start(FILE *f, const char *s, size_t n)
{
	size_t d = strspn(s, "0123456789");

	if (n && (strchr("#>+-=|[", s[0]) || (d && d < n && (s[d] == '.' || s[d] == ')'))))
		fputc('\\', f);
}

static void md_words(FILE *f, const char *s, size_t n, int line_start)
{
	char *w = strndup(s, n);

	if (!w)
		return;
	if (line_start)
		md_line_start(f, w, n);
	lr_md_text(f, w, 0);
	free(w);
}

/* Inline text as Markdown: words escaped, code spans fenced, breaks as new lines. */
static void md_inline(FILE *f, const struct lr_buf *t)
{
	int line_start = 1;
	const char *s;
	size_t i = 0, n;

	while (i < t->len) {
		if (lr_doc_next_span(t, &i, &s, &n)) {
			md_code(f, s, n);
		} else if (n == 1 && *s == LR_DOC_BREAK) {
			fputc('\n', f);
			line_start = 1;
			continue;
		} else {
			md_words(f, s, n, line_start);
		}
		line_start = 0;
	}
}

/* Inline text for a terminal: code spans as plain words, control characters shown, never obeyed. */
static void text_inline(FILE *f, const struct lr_buf *t)
{
	char *flat = lr_doc_flat(t);

	lr_term_text(f, flat ? flat : "");
	free(flat);
}

static void md_facts(FILE *f, const struct lr_doc_block *b)
{
	if (b->text.len) {
		md_inline(f, &b->text);
		fputs(b->nitems ? ":\n" : ": none.\n", f);
	}
	for (size_t i = 0; i < b->nitems; i++) {
		fputs(b->items[i].level ? "  * " : "* ", f);
		md_inline(f, &b->items[i].text);
		fputc('\n', f);
	}
}

static void md_details(FILE *f, const struct lr_doc_block *b)
{
	size_t run = 0, longest = 2;

	for (size_t i = 0; i < b->code.len; i++) {
		run = b->code.buf[i] == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	/* raw HTML: Markdown is not read inside it, so the summary is written as HTML */
	fputs("<details><summary>", f);
	lr_doc_html_inline(f, &b->text);
	fputs("</summary>\n\n", f);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, "json\n%s\n", b->code.buf);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fputs("\n\n</details>\n", f);
}

/* Block b as Markdown; 0 when it writes nothing (a chart). */
static int md_block(FILE *f, const struct lr_doc_block *b)
{
	switch (b->kind) {
	case LR_BLOCK_HEADING:
		fprintf(f, "%.*s ", b->level < 1 ? 1 : b->level > 6 ? 6 : b->level, "######");
		md_inline(f, &b->text);
		fputc('\n', f);
		return 1;
	case LR_BLOCK_PROSE:
	case LR_BLOCK_NOTE:
		md_inline(f, &b->text);
		fputc('\n', f);
		return 1;
	case LR_BLOCK_FACTS: md_facts(f, b); return b->text.len || b->nitems;
	case LR_BLOCK_TABLE:
		if (b->missing)
			fprintf(f, "(%s: the table is missing)\n", b->missing);
		else
			lr_render_table_md(f, &b->table);
		return 1;
	case LR_BLOCK_CODE: md_details(f, b); return 1;
	case LR_BLOCK_FOLD:
		/* raw HTML, as a folded block's; the blank line after it (lr_doc_write's) lets Markdown in */
		fputs("<details><summary>", f);
		lr_doc_html_inline(f, &b->text);
		fputs("</summary>\n", f);
		return 1;
	case LR_BLOCK_CHART: return 0;
	}
	return 0;
}

static void text_facts(FILE *f, const struct lr_doc_block *b)
{
	if (b->text.len) {
		text_inline(f, &b->text);
		fputs(b->nitems ? ":\n" : ": none.\n", f);
	}
	for (size_t i = 0; i < b->nitems; i++) {
		fputs(b->items[i].level ? "    " : "  ", f);
		text_inline(f, &b->items[i].text);
		fputc('\n', f);
	}
}

/* Block b for a terminal; 0 when it writes nothing (a chart, the folded text). */
static int text_block(FILE *f, const struct lr_doc_block *b)
{
	switch (b->kind) {
	case LR_BLOCK_HEADING:
	case LR_BLOCK_PROSE:
	case LR_BLOCK_NOTE:
	case LR_BLOCK_FOLD: /* a terminal folds nothing: the summary line, then its blocks */
		text_inline(f, &b->text);
		fputc('\n', f);
		return 1;
	case LR_BLOCK_FACTS: text_facts(f, b); return b->text.len || b->nitems;
	case LR_BLOCK_TABLE:
		if (b->missing)
			fprintf(f, "(%s: the table is missing)\n", b->missing);
		else if (lr_render_table_text(f, &b->table, 2, 0))
			fputs("(the table could not be written)\n", f);
		return 1;
	case LR_BLOCK_CODE:
	case LR_BLOCK_CHART: return 0;
	}
	return 0;
}

/* Whether block b writes anything in format f. */
static int shows(const struct lr_doc_block *b, enum lr_format f)
{
	switch (b->kind) {
	case LR_BLOCK_CHART: return f == LR_FORMAT_HTML;
	case LR_BLOCK_CODE: return f != LR_FORMAT_TEXT;
	case LR_BLOCK_FACTS: return b->text.len || b->nitems;
	default: return 1;
	}
}

static int write_block(FILE *out, const struct lr_doc *d, size_t i, enum lr_format f)
{
	const struct lr_doc_block *b = &d->v[i];

	switch (f) {
	case LR_FORMAT_MD: return md_block(out, b);
	case LR_FORMAT_TEXT: return text_block(out, b);
	case LR_FORMAT_HTML: return lr_doc_html_block(out, b);
	default: return 0;
	}
}

/* Whether block i is the last of a folded section (or an empty fold itself). */
static int closes_fold(const struct lr_doc *d, size_t i)
{
	size_t k = lr_doc_fold_of(d, i);

	if (d->v[i].kind == LR_BLOCK_FOLD)
		return !d->v[i].nfold;
	return k != (size_t)-1 && k + d->v[k].nfold == i;
}

/* Block i as lr_doc_write writes it, with the end of the fold it closes; 0 when it writes nothing. */
static int write_piece(FILE *out, const struct lr_doc *d, size_t i, enum lr_format f)
{
	int wrote = shows(&d->v[i], f) && write_block(out, d, i, f);

	if (!closes_fold(d, i) || f == LR_FORMAT_TEXT)
		return wrote;
	/* Markdown: after a blank line, so the fold's last block ends before it */
	fputs(wrote && f == LR_FORMAT_MD ? "\n</details>\n" : "</details>\n", out);
	return 1;
}

int lr_doc_write_block(FILE *out, const struct lr_doc *d, size_t i, enum lr_format f)
{
	if (f != LR_FORMAT_MD && f != LR_FORMAT_TEXT && f != LR_FORMAT_HTML)
		return lr_error_set(LR_EINVAL, "a document is not written as %s", lr_format_name(f));
	write_piece(out, d, i, f);
	return ferror(out) ? lr_error_set(LR_EIO, "cannot write the document: %s", strerror(errno)) : 0;
}

int lr_doc_write(FILE *out, const struct lr_doc *d, enum lr_format f)
{
	int wrote = 0;

	if (f != LR_FORMAT_MD && f != LR_FORMAT_TEXT && f != LR_FORMAT_HTML)
		return lr_error_set(LR_EINVAL, "a document is not written as %s", lr_format_name(f));
	for (size_t i = 0; i < d->n; i++) {
		/* text: a blank line between blocks; Markdown: after every block, so a section reads the same last or not */
		if (f == LR_FORMAT_TEXT && !shows(&d->v[i], f))
			continue;
		if (wrote && f == LR_FORMAT_TEXT)
			fputc('\n', out);
		if (!write_piece(out, d, i, f))
			continue;
		if (f == LR_FORMAT_MD)
			fputc('\n', out);
		wrote = 1;
	}
	return ferror(out) ? lr_error_set(LR_EIO, "cannot write the document: %s", strerror(errno)) : 0;
}
