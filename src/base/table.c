/* A table of typed cells (base/table.h). */
#include "config.h"
#include "base/system.h"

#include "base/list.h"
#include "base/table.h"

void lr_table_init(struct lr_table *t, const struct lr_column *cols, int ncols)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
	t->ncols = ncols;
}

static struct lr_cell *next(struct lr_table *t)
{
	struct lr_cell *c;

	if (t->failed || t->ncols < 1 || LR_ALLOC_GROW(t->cells, t->ncells + 1, t->cap)) {
		t->failed = 1;
		return NULL;
	}
	c = &t->cells[t->ncells++];
	memset(c, 0, sizeof *c);
	t->nrows = t->ncells / (size_t)t->ncols;
	return c;
}

void lr_table_text(struct lr_table *t, const char *s)
{
	struct lr_cell *c = next(t);

	if (!c || !s)
		return;
	if (!(c->text = strdup(s)))
		t->failed = 1;
	else
		c->kind = LR_CELL_TEXT;
}

void lr_table_real(struct lr_table *t, double v, int digits)
{
	struct lr_cell *c = next(t);

	if (c) {
		c->kind = LR_CELL_REAL;
		c->real = v;
		c->digits = digits;
	}
}

void lr_table_int(struct lr_table *t, long long v)
{
	struct lr_cell *c = next(t);

	if (c) {
		c->kind = LR_CELL_INT;
		c->i = v;
	}
}

void lr_table_none(struct lr_table *t)
{
	next(t);
}

const struct lr_cell *lr_table_cell(const struct lr_table *t, size_t r, int c)
{
	return &t->cells[r * (size_t)t->ncols + (size_t)c];
}

int lr_table_error(const struct lr_table *t)
{
	if (t->failed)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (t->ncols < 1 || t->ncells % (size_t)t->ncols)
		return lr_error_set(LR_EINVAL, "a table row has %zu of its %d cells", t->ncells % (size_t)t->ncols,
				    t->ncols);
	return 0;
}

void lr_table_release(struct lr_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i].text);
	free(t->cells);
	lr_table_init(t, t->cols, t->ncols);
}
