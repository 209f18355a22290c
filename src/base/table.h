#ifndef LR_BASE_TABLE_H
#define LR_BASE_TABLE_H

/*
 * A table of typed cells: what every benchmark's results and the report's
 * comparison tables are before they are written (report/table.c writes one in
 * each format). A number is kept as a double with the digits a person reads
 * (Markdown, HTML, a terminal); CSV and JSON write it in full, so it reads
 * back to the same double.
 *
 * Fill a table row by row, a cell per column in order. A cell that cannot be
 * stored (out of memory) makes the table fail: lr_table_error says so once,
 * after it is filled, instead of every call returning.
 */

#include <stddef.h>

#include "base/error.h"

enum lr_column_flags {
	LR_COL_NUMBER = 1, /* right-aligned */
	LR_COL_DATA = 2,   /* in CSV and JSON only */
	LR_COL_PROSE = 4,  /* in Markdown, HTML and on a terminal only */
};

struct lr_column {
	const char *key;  /* CSV header and JSON key: 'median_ms' */
	const char *head; /* what a person reads: 'median ms' */
	int flags;
};

enum lr_cell_kind { LR_CELL_NONE, LR_CELL_TEXT, LR_CELL_REAL, LR_CELL_INT };

struct lr_cell {
	enum lr_cell_kind kind;
	int digits; /* LR_CELL_REAL: after the point, for a person */
	char *text; /* LR_CELL_TEXT */
	double real;
	long long i;
};

struct lr_table {
	const struct lr_column *cols;
	int ncols;
	struct lr_cell *cells; /* nrows * ncols, row by row */
	size_t nrows, ncells, cap;
	int failed;
};

void lr_table_init(struct lr_table *t, const struct lr_column *cols, int ncols);
void lr_table_text(struct lr_table *t, const char *s); /* copied; NULL is no value */
void lr_table_real(struct lr_table *t, double v, int digits);
void lr_table_int(struct lr_table *t, long long v);
void lr_table_none(struct lr_table *t);

/* The cell at row r, column c. */
const struct lr_cell *lr_table_cell(const struct lr_table *t, size_t r, int c);

/* LR_ENOMEM when a cell could not be stored, LR_EINVAL when the last row is unfinished (error set); else 0. */
LR_MUST_CHECK int lr_table_error(const struct lr_table *t);

void lr_table_release(struct lr_table *t);

#endif
