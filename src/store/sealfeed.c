/* A run's rows into seal digests: read from the store, or fed by a writer as it inserts them (store/sealfeed.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "store/sealfeed.h"
#include "store/store-int.h"

/* Feed the rows of 's' (kept, bound, not yet stepped) into 't' as a seal hashes them; hands 's' back. */
static int feed_rows(struct lr_store *st, sqlite3_stmt *s, struct lr_seal_table *t)
{
	int c, n, rc = 0;

	while (db_step_row(st, s, "read the run's rows for its seal", &rc)) {
		n = sqlite3_column_count(s);
		for (c = 0; c < n; c++) {
			switch (sqlite3_column_type(s, c)) {
			case SQLITE_INTEGER: lr_seal_int(t, sqlite3_column_int64(s, c)); break;
			case SQLITE_FLOAT: lr_seal_real(t, sqlite3_column_double(s, c)); break;
			case SQLITE_BLOB:
				lr_seal_bytes(t, LR_SEAL_BLOB, sqlite3_column_blob(s, c),
					      (size_t)sqlite3_column_bytes(s, c));
				break;
			case SQLITE_TEXT:
				lr_seal_bytes(t, LR_SEAL_TEXT, sqlite3_column_text(s, c),
					      (size_t)sqlite3_column_bytes(s, c));
				break;
			default: lr_seal_null(t); break;
			}
		}
		lr_seal_row_end(t);
	}
	db_kept_done(s);
	return rc;
}

int db_seal_query_digest(struct lr_store *st, const char *sql, int64_t id, char hex[LR_SHA256_HEX])
{
	sqlite3_stmt *s = NULL;
	struct lr_seal_table t;
	int rc;

	if ((rc = db_prepare_kept(st, &s, sql)) || (rc = lr_seal_table_init(&t))) {
		db_kept_done(s);
		return rc;
	}
	db_bind_int(s, ":run", id);
	rc = feed_rows(st, s, &t);
	lr_seal_table_final(&t, hex);
	return rc;
}

/*
 * Tables whose public query joins a parent and sorts: SQLite sorted every
 * response row of the run in a temporary B-tree (spilled to disk: 650 MB
 * written to audit two sets of 100,000) and scanned every comparison's cases
 * in the store. The same rows in the same order, parent by parent, each
 * parent's rows by the table's primary key.
 */
static const struct {
	const char *table, *parents, *rows;
} by_parent[] = {
	{ "response", "SELECT id FROM response_set WHERE run_id = :run ORDER BY id",
	  "SELECT * FROM response WHERE set_id = :run ORDER BY case_id" },
	{ "comparison_case", "SELECT id FROM comparison WHERE run_id = :run ORDER BY id",
	  "SELECT * FROM comparison_case WHERE comparison_id = :run ORDER BY case_id" },
};

int db_seal_feed_table(struct lr_store *st, const struct db_seal_query *q, int64_t id, struct lr_seal_table *t)
{
	sqlite3_stmt *s = NULL, *rows = NULL;
	size_t b;
	int rc;

	for (b = 0; b < sizeof by_parent / sizeof by_parent[0]; b++)
		if (!strcmp(by_parent[b].table, q->table))
			break;
	if (b == sizeof by_parent / sizeof by_parent[0]) {
		if ((rc = db_prepare_kept(st, &s, q->sql)))
			return rc;
		db_bind_int(s, ":run", id);
		return feed_rows(st, s, t);
	}
	if ((rc = db_prepare_kept(st, &s, by_parent[b].parents)))
		return rc;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's rows for its seal", &rc) &&
	       !(rc = db_prepare_kept(st, &rows, by_parent[b].rows))) {
		db_bind_int(rows, ":run", sqlite3_column_int64(s, 0));
		if ((rc = feed_rows(st, rows, t)))
			break;
	}
	db_kept_done(s);
	return rc;
}

/* A text value as sqlite3_bind_text(p, len) stores it (p NULL: NULL). */
static void text(struct lr_seal_table *t, const char *p, size_t len)
{
	if (p)
		lr_seal_bytes(t, LR_SEAL_TEXT, p, len);
	else
		lr_seal_null(t);
}

/* A C string bound with length -1: its bytes up to the first NUL. */
static void string(struct lr_seal_table *t, const char *p)
{
	text(t, p, p ? strlen(p) : 0);
}

/* An integer column bound only when 'present'. */
static void opt_int(struct lr_seal_table *t, int present, int64_t v)
{
	if (present)
		lr_seal_int(t, v);
	else
		lr_seal_null(t);
}

/*
 * A REAL column bound unless NaN. SQLite writes a whole REAL as an integer
 * and reads it back as a double: the same bits, but for -0.0, which comes
 * back as 0.0.
 */
static void opt_real(struct lr_seal_table *t, double v)
{
	if (isnan(v))
		lr_seal_null(t);
	else
		lr_seal_real(t, v == 0 ? 0.0 : v);
}

int db_seal_response(struct lr_seal_table *t, int64_t set, const struct lr_response *r, char **last, size_t *cap)
{
	size_t n = strlen(r->case_id);

	/* case_id's BINARY order is strcmp's: the stored case_id ends at its first NUL */
	if ((*last && strcmp(r->case_id, *last) <= 0) || LR_ALLOC_GROW(*last, n + 1, *cap))
		return 1;
	memcpy(*last, r->case_id, n + 1);
	/* the columns in the table's order (schema/0008-serving.sql), as lr_store_set_add binds them */
	lr_seal_int(t, set);
	text(t, r->case_id, n);
	lr_seal_int(t, r->line);
	string(t, r->tokens);
	lr_seal_int(t, r->ntokens);
	text(t, r->text, r->text_len);
	string(t, r->finish_reason);
	opt_real(t, r->latency_ms);
	opt_real(t, r->ttft_ms);
	opt_int(t, r->input_tokens >= 0, r->input_tokens);
	opt_int(t, r->output_tokens >= 0, r->output_tokens);
	opt_int(t, r->lane >= 0, r->lane);
	string(t, r->model);
	lr_seal_row_end(t);
	return 0;
}

void db_seal_compared(struct lr_seal_table *t, int64_t id, const char *case_id, const char *missing,
		      const struct lr_case_outcome *o)
{
	/* comparison_id, case_id, missing, tokens_equal, first_token_diff, text_equal, finish_equal */
	lr_seal_int(t, id);
	string(t, case_id);
	string(t, missing);
	opt_int(t, !missing, o->tokens_equal);
	opt_int(t, !missing && o->first_token_diff >= 0, o->first_token_diff);
	opt_int(t, !missing, o->text_equal);
	opt_int(t, !missing, o->finish_equal);
	lr_seal_row_end(t);
}
