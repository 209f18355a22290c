#ifndef LR_REPORT_DOC_H
#define LR_REPORT_DOC_H

/*
 * The document model: what every report, page and printout is before it is
 * written. A document is an ordered list of blocks (a heading, a paragraph,
 * a list of facts, a table, a chart, a note under a table, a folded piece of
 * preformatted text, a folded section). Builders turn a domain model into a document; one
 * writer per format (doc-write.c: Markdown, HTML, text) turns a document into
 * bytes and escapes every string for its format there, so no builder does;
 * verify compares two documents block by block (doc-json.c, doc-compare.c).
 *
 * Text in a block is inline text: plain words, code spans and line breaks.
 * It is built through lr_doc_add* only, which replace every control character
 * of what they are given by a blank: a name from a store or another host can
 * never end a line, start a heading or a list, or open a table row. Code
 * spans and line breaks are marked in the text by LR_DOC_CODE_ON/OFF and
 * LR_DOC_BREAK, which only lr_doc_code() and lr_doc_break() put there.
 *
 * Out of memory is sticky, as in struct lr_buf and struct lr_table: the
 * document remembers it and lr_doc_error() reports it once it is built.
 */

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/table.h"

/* The formats labrun writes, parsed once where an option names one (CMD_CHOICE over lr_format_names). */
enum lr_format { LR_FORMAT_MD, LR_FORMAT_CSV, LR_FORMAT_JSON, LR_FORMAT_HTML, LR_FORMAT_TEXT, LR_FORMAT_TIDY };

/* The formats' names, in the enum's order and NULL-terminated, for an option's choices (cmd/options.h). */
extern const char *const lr_format_names[];

/* The name of a format ("md", "csv", "json", "html", "text"). */
const char *lr_format_name(enum lr_format f);

#define LR_DOC_CODE_ON  '\016'
#define LR_DOC_CODE_OFF '\017'
#define LR_DOC_BREAK    '\n'

enum lr_block_kind {
	LR_BLOCK_HEADING, /* text, at level 1 to 3 */
	LR_BLOCK_PROSE,   /* a paragraph of text */
	LR_BLOCK_FACTS,   /* a list: items, each at level 0 or 1; lead, when set, introduces it */
	LR_BLOCK_TABLE,   /* table; or missing: why it could not be built */
	LR_BLOCK_CHART,   /* chart */
	LR_BLOCK_NOTE,    /* a remark under the table before it */
	LR_BLOCK_CODE,    /* preformatted text (code), folded under a summary (text) */
	LR_BLOCK_FOLD,    /* a folded section: text, its summary line; it holds the nfold blocks after it */
};

struct lr_doc_item {
	int level;
	struct lr_buf text;
};

/*
 * A chart of paired blocks: each block's ratio B/A (values), the estimate,
 * its interval when there is one, and the practical margin; 'change' says
 * the table's figure is a change (r - 1) rather than a reduction (1 - r).
 * Drawn in HTML; the text formats leave it out (the table beside it holds
 * its figures).
 */
struct lr_chart {
	char *title; /* "B vs A, condition" */
	double *values;
	int n;
	double estimate, lo, hi;
	int has_interval;
	double margin;
	int change;
};

struct lr_doc_block {
	enum lr_block_kind kind;
	int level;                 /* HEADING */
	struct lr_buf text;        /* HEADING, PROSE, NOTE; FACTS: the lead; CODE: the summary */
	struct lr_doc_item *items; /* FACTS */
	size_t nitems, capitems;
	struct lr_buf code;     /* CODE: the preformatted text */
	struct lr_table table;  /* TABLE */
	struct lr_column *cols; /* TABLE: its columns, owned (heads and keys copied) */
	char *missing;          /* TABLE: why there is no table, or NULL */
	struct lr_chart chart;  /* CHART */
	size_t nfold;           /* FOLD: how many of the blocks after it are folded under it */
};

/*
 * Folded sections do not nest: a fold holds no fold. 'fold' is the one open
 * (lr_doc_fold) while 'folding'.
 */
struct lr_doc {
	struct lr_doc_block *v;
	size_t n, cap;
	int failed;
	size_t fold;
	int folding;
};

void lr_doc_init(struct lr_doc *d);
void lr_doc_release(struct lr_doc *d);

/* 0, or the first failure while the document was built (LR_ENOMEM; message set now). */
LR_MUST_CHECK int lr_doc_error(const struct lr_doc *d);

/*
 * A new block at the end of d, its text empty (a block that cannot be had
 * marks d failed and returns a block of its own that is thrown away, so a
 * builder never checks a call). The block is d's.
 */
struct lr_doc_block *lr_doc_heading(struct lr_doc *d, int level);
struct lr_doc_block *lr_doc_prose(struct lr_doc *d);
struct lr_doc_block *lr_doc_note(struct lr_doc *d);
struct lr_doc_block *lr_doc_facts(struct lr_doc *d);
struct lr_doc_block *lr_doc_code_block(struct lr_doc *d, const char *code);

/*
 * A folded section (its summary line the block's text, to be added): the
 * blocks added after it, up to lr_doc_fold_end, are folded under it. A fold
 * opened while one is open closes that one first. Markdown and HTML write it
 * as <details> with a <summary>; text writes the summary as a line before its
 * blocks. lr_doc_fold_end without an open fold does nothing.
 */
struct lr_doc_block *lr_doc_fold(struct lr_doc *d);
void lr_doc_fold_end(struct lr_doc *d);

/* The fold that holds block i of d, or (size_t)-1 when none does. */
size_t lr_doc_fold_of(const struct lr_doc *d, size_t i);

/*
 * A table block holding t, which the document now owns (t is left empty),
 * its columns copied; or, when rc is an error, a block saying the table is
 * missing and why (the current error message).
 */
void lr_doc_table(struct lr_doc *d, int rc, struct lr_table *t);

/* A chart block holding a copy of c. */
void lr_doc_chart(struct lr_doc *d, const struct lr_chart *c);

/* A new item of a facts block, at 'level' (0 or 1); its text to be added. */
struct lr_buf *lr_doc_item(struct lr_doc *d, struct lr_doc_block *b, int level);

/* Inline text: words (control characters become blanks), printf-style words, a code span, a line break. */
void lr_doc_add(struct lr_buf *t, const char *s);
void lr_doc_addf(struct lr_buf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lr_doc_code(struct lr_buf *t, const char *s);
void lr_doc_break(struct lr_buf *t);

/* Words with their line breaks: each '\n' of s a break (labrun's own paragraphs, written over lines). */
void lr_doc_add_lines(struct lr_buf *t, const char *s);

/*
 * The span of inline text t that starts at t->buf[*i]: 1 for a code span
 * (its words at *s, *n bytes), 0 for words or a line break (LR_DOC_BREAK
 * alone); *i moves past it. For the writers.
 */
int lr_doc_next_span(const struct lr_buf *t, size_t *i, const char **s, size_t *n);

/* The text of an inline text, flat: code spans as plain words, breaks as blanks (malloc'd; NULL on ENOMEM). */
char *lr_doc_flat(const struct lr_buf *t);

/*
 * Write d in format f (Markdown, HTML or text; LR_EINVAL for the data
 * formats, which are the report's own: report/data.c). HTML is the blocks
 * alone, for a page's body.
 */
LR_MUST_CHECK int lr_doc_write(FILE *out, const struct lr_doc *d, enum lr_format f);

/* Block i of d alone, as lr_doc_write writes it among the others (Markdown: its bytes, ending in a newline). */
LR_MUST_CHECK int lr_doc_write_block(FILE *out, const struct lr_doc *d, size_t i, enum lr_format f);

/*
 * d cut to fit in 'max' characters (Unicode code points) as Markdown
 * (doc-fit.c), for an issue comment: every block outside a fold, then every
 * folded section in order, each whole or not at all, while they fit; when
 * something was left out, a closing paragraph names it and says that
 * 'where' holds the whole (inline text; NULL: nothing). The blocks
 * left out are removed from d. 'max' 0 keeps everything; a 'max' under
 * LR_DOC_FIT_MIN is taken as LR_DOC_FIT_MIN, which the closing paragraph
 * always fits in. Out of memory is kept in d (lr_doc_error).
 */
#define LR_DOC_FIT_MIN 1024
void lr_doc_fit(struct lr_doc *d, size_t max, const struct lr_buf *where);

/* Remove from d every block i with drop[i] set (a fold with its blocks, or none of them), the rest in order. */
void lr_doc_drop(struct lr_doc *d, const unsigned char *drop);

/* How many characters (code points; each byte of invalid UTF-8 one) s[0..n) holds. */
size_t lr_doc_chars(const char *s, size_t n);

/* The name of a block's kind as the JSON form says it ("heading", "table", ...). */
const char *lr_doc_kind_name(enum lr_block_kind k);

/*
 * d as JSON (doc-json.c): {"version": 1, "blocks": [...]}, each block's text
 * flat, each table's cells typed and in full; NULL when out of memory.
 */
json_t *lr_doc_json(const struct lr_doc *d);

/*
 * A document read back from lr_doc_json's form (another host's data: every
 * member's type checked), into d (initialised here; release it either way).
 * LR_EINVAL naming the block that is not what it must be.
 */
LR_MUST_CHECK int lr_doc_from_json(struct lr_doc *d, json_t *doc);

#endif
