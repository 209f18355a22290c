/*
 * One writer per format for a table of typed cells (base/table.h): for a
 * person (Markdown, HTML, a terminal) numbers with the digits the table
 * gives, for a program (CSV, JSON) numbers that read back to the same double.
 */
#include "config.h"
#include "base/system.h"

#include "base/csv.h"
#include "report/report.h"
#include "report/text.h"

/* A cell as a person reads it; "-" when it has no value. */
static const char *person(char *buf, size_t size, const struct lr_cell *c)
{
	switch (c->kind) {
	case LR_CELL_TEXT: return c->text;
	case LR_CELL_REAL: snprintf(buf, size, "%.*f", c->digits, c->real); return buf;
	case LR_CELL_INT: snprintf(buf, size, "%lld", c->i); return buf;
	default: return "-";
	}
}

static int shown(const struct lr_table *t, int c, int prose)
{
	return !(t->cols[c].flags & (prose ? LR_COL_DATA : LR_COL_PROSE));
}

void lr_render_table_md(FILE *f, const struct lr_table *t)
{
	char buf[64];
	int c;

	for (c = 0; c < t->ncols; c++)
		if (shown(t, c, 1)) {
			fputs("| ", f);
			lr_md_text(f, t->cols[c].head, 1);
			fputc(' ', f);
		}
	fputs("|\n", f);
	for (c = 0; c < t->ncols; c++)
		if (shown(t, c, 1))
			fputs(t->cols[c].flags & LR_COL_NUMBER ? "|---:" : "|---", f);
	fputs("|\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++)
			if (shown(t, c, 1)) {
				fputs("| ", f);
				lr_md_text(f, person(buf, sizeof buf, lr_table_cell(t, r, c)), 1);
				fputc(' ', f);
			}
		fputs("|\n", f);
	}
}

void lr_render_table_html(FILE *f, const struct lr_table *t)
{
	char buf[64];
	int c;

	fputs("<table><tr>", f);
	for (c = 0; c < t->ncols; c++)
		if (shown(t, c, 1)) {
			fputs("<th>", f);
			lr_html_text(f, t->cols[c].head);
			fputs("</th>", f);
		}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (c = 0; c < t->ncols; c++)
			if (shown(t, c, 1)) {
				fputs(t->cols[c].flags & LR_COL_NUMBER ? "<td class=\"n\">" : "<td>", f);
				lr_html_text(f, person(buf, sizeof buf, lr_table_cell(t, r, c)));
				fputs("</td>", f);
			}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Cell c of line r on a terminal: the head at line 0, then row r - 1. */
static const char *line_cell(char *buf, size_t size, const struct lr_table *t, size_t r, int c)
{
	return r ? person(buf, size, lr_table_cell(t, r - 1, c)) : t->cols[c].head;
}

int lr_render_table_text(FILE *f, const struct lr_table *t, int indent, size_t from)
{
	size_t *w = calloc((size_t)t->ncols + 1, sizeof *w);
	const char *sep;
	char buf[64];
	int c, end;

	if (!w)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c].head);
		if (t->cols[c].flags & LR_COL_NUMBER && w[c] < 9)
			w[c] = 9; /* rows printed as they come line up with the head */
		for (size_t r = 1; r <= t->nrows; r++) {
			size_t n = strlen(line_cell(buf, sizeof buf, t, r, c));

			w[c] = n > w[c] ? n : w[c];
		}
	}
	for (size_t r = from ? from + 1 : 0; r <= t->nrows; r++) {
		/* the line ends at its last cell with something in it: no trailing blanks */
		for (end = t->ncols - 1; end > 0 && (!shown(t, end, 1) || !*line_cell(buf, sizeof buf, t, r, end));
		     end--)
			;
		fprintf(f, "%*s", indent, "");
		for (c = 0, sep = ""; c <= end; c++)
			if (shown(t, c, 1)) {
				fprintf(f, t->cols[c].flags & LR_COL_NUMBER ? "%s%*s" : "%s%-*s", sep,
					c == end && !(t->cols[c].flags & LR_COL_NUMBER) ? 0 : (int)w[c],
					line_cell(buf, sizeof buf, t, r, c));
				sep = "  ";
			}
		fputc('\n', f);
	}
	free(w);
	return 0;
}

int lr_render_table_tidy(FILE *f, const char *name, const struct lr_table *t, int header)
{
	static const char *const head[] = { "table", "row", "column", "value", "text" };
	char num[LR_DOUBLE_TEXT], row[24];
	int rc = header ? lr_csv_write_row(f, head, 5) : 0;

	for (size_t r = 0; !rc && r < t->nrows; r++)
		for (int c = 0; !rc && c < t->ncols; c++) {
			const struct lr_cell *x = lr_table_cell(t, r, c);
			const char *v[5] = { name, row, t->cols[c].key, NULL, NULL };

			if (!shown(t, c, 0))
				continue;
			snprintf(row, sizeof row, "%zu", r);
			if (x->kind == LR_CELL_REAL)
				v[3] = lr_double_text(num, x->real);
			else if (x->kind == LR_CELL_INT)
				snprintf(num, sizeof num, "%lld", x->i), v[3] = num;
			else if (x->kind == LR_CELL_TEXT)
				v[4] = x->text;
			rc = lr_csv_write_row(f, v, 5);
		}
	return rc;
}

int lr_render_table_csv(FILE *f, const struct lr_table *t, int header)
{
	char(*buf)[LR_DOUBLE_TEXT] = calloc((size_t)t->ncols + 1, sizeof *buf);
	const char **row = calloc((size_t)t->ncols + 1, sizeof *row);
	int c, n = 0, rc = 0;

	if (!buf || !row) {
		free(buf);
		free(row);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (c = 0; c < t->ncols; c++)
		if (shown(t, c, 0))
			row[n++] = t->cols[c].key;
	if (header)
		rc = lr_csv_write_row(f, row, n);
	for (size_t r = 0; !rc && r < t->nrows; r++) {
		for (c = 0, n = 0; c < t->ncols; c++) {
			const struct lr_cell *x = lr_table_cell(t, r, c);

			if (!shown(t, c, 0))
				continue;
			if (x->kind == LR_CELL_REAL)
				row[n++] = lr_double_text(buf[c], x->real);
			else if (x->kind == LR_CELL_INT)
				snprintf(buf[c], sizeof buf[c], "%lld", x->i), row[n++] = buf[c];
			else
				row[n++] = x->kind == LR_CELL_TEXT ? x->text : "";
		}
		rc = lr_csv_write_row(f, row, n);
	}
	free(buf);
	free(row);
	return rc;
}

json_t *lr_render_table_json(const struct lr_table *t)
{
	json_t *rows = json_array();

	for (size_t r = 0; r < t->nrows; r++) {
		json_t *o = json_object();

		for (int c = 0; c < t->ncols; c++) {
			const struct lr_cell *x = lr_table_cell(t, r, c);

			if (shown(t, c, 0))
				json_object_set_new(o, t->cols[c].key,
						    x->kind == LR_CELL_REAL   ? json_real(x->real)
						    : x->kind == LR_CELL_INT  ? json_integer(x->i)
						    : x->kind == LR_CELL_TEXT ? json_string(x->text)
									      : json_null());
		}
		json_array_append_new(rows, o);
	}
	return rows;
}
