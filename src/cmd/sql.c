#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"

static const char usage[] = "usage: labrun sql [--csv | --json] \"SELECT ...\"\n"
			    "\n"
			    "Run one read-only SQL statement on the store's database and print the rows.\n"
			    "The database is opened read-only and statements that could write are refused,\n"
			    "so no query can change the store. Tables, views and example queries:\n"
			    "docs/schema.md.\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

struct sql_ctx {
	int fmt;
	int rows;
	/* table mode: every cell kept to size the columns */
	char **cells;
	size_t ncells, capcells;
	int ncol;
};

/* A JSON string for text that is not valid UTF-8: other bytes become "\\xNN". */
static json_t *json_string_lossy(const char *v)
{
	size_t n = strlen(v), i, o = 0;
	char *buf = malloc(n * 4 + 1);
	json_t *j;

	if (!buf)
		return json_null();
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch < 0x80)
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, 5, "\\x%02x", ch);
	}
	buf[o] = '\0';
	j = json_string(buf);
	free(buf);
	return j ? j : json_null();
}

static int keep_cell(struct sql_ctx *c, const char *v)
{
	if (c->ncells == c->capcells) {
		size_t ncap = c->capcells ? c->capcells * 2 : 64;
		char **p = realloc(c->cells, ncap * sizeof *p);

		if (!p)
			return lr_error_set(LR_ENOMEM, "out of memory");
		c->cells = p;
		c->capcells = ncap;
	}
	c->cells[c->ncells] = strdup(v ? v : "NULL");
	if (!c->cells[c->ncells])
		return lr_error_set(LR_ENOMEM, "out of memory");
	c->ncells++;
	return 0;
}

static int on_row(void *arg, const struct lr_sqlrow *row, int is_header)
{
	struct sql_ctx *c = arg;
	int i, rc;

	c->ncol = row->ncol;
	switch (c->fmt) {
	case FMT_CSV: return lr_csv_write_row(stdout, is_header ? row->names : row->values, row->ncol);
	case FMT_JSON: {
		json_t *o;
		char *s;

		if (is_header) {
			putchar('[');
			return 0;
		}
		o = json_object();
		for (i = 0; i < row->ncol; i++) {
			const char *v = row->values[i];
			json_t *j;

			if (!v)
				j = json_null();
			else if (row->types[i] == 1)
				j = json_integer(strtoll(v, NULL, 10));
			else if (row->types[i] == 2)
				j = json_real(strtod(v, NULL));
			else if (!(j = json_string(v)))
				j = json_string_lossy(v);
			json_object_set_new(o, row->names[i], j ? j : json_null());
		}
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		printf("%s\n  %s", c->rows++ ? "," : "", s ? s : "null");
		free(s);
		json_decref(o);
		return 0;
	}
	default:
		for (i = 0; i < row->ncol; i++)
			if ((rc = keep_cell(c, is_header ? row->names[i] : row->values[i])))
				return rc;
		return 0;
	}
}

int cmd_sql(const struct lr_global *g, int argc, char **argv)
{
	struct sql_ctx ctx;
	struct lr_store *st = NULL;
	size_t i;
	int rc, csv = 0, json = 0, first;
	const struct cmd_opt opts[] = {
		CMD_BOOL(0, "csv", &csv, "RFC 4180 CSV with a header row"),
		CMD_BOOL(0, "json", &json, "one JSON array of objects (numbers stay numbers, NULL is null)"),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "sql", .usage = usage, .min = 1, .max = 1, .operands = "one quoted SQL statement"
	};

	memset(&ctx, 0, sizeof ctx);
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (csv && json)
		return cmd_usage_error("sql", "give at most one of --csv and --json");
	ctx.fmt = csv ? FMT_CSV : json ? FMT_JSON : FMT_TABLE;

	if ((rc = cmd_store(&st, g)))
		return rc;
	rc = lr_store_sql_readonly(st, argv[first], on_row, &ctx);
	if (!rc && ctx.fmt == FMT_JSON)
		printf("%s]\n", ctx.rows ? "\n" : "");
	if (!rc && ctx.fmt == FMT_TABLE)
		rc = lr_render_sql_table(stdout, ctx.cells, ctx.ncells, ctx.ncol);
	for (i = 0; i < ctx.ncells; i++)
		free(ctx.cells[i]);
	free(ctx.cells);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
