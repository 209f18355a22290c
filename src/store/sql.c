/* The read-only SQL surface users query, and the objects the database refers to. */
#include "config.h"
#include "base/system.h"

#include "base/csv.h"
#include "base/error.h"
#include "store/objects.h"
#include "store/store-int.h"

/* ---- read-only SQL for users ---------------------------------------------- */

/*
 * Functions a read-only query must not call: fts3_tokenizer('simple') returns
 * a raw pointer into labrun's memory (and with an argument would install a
 * tokenizer from one); the others reach files or code outside the store.
 */
static const char *const denied_functions[] = { "fts3_tokenizer", "load_extension", "readfile",
						"writefile",      "edit",           NULL };

/* Deny anything that could reach outside the store, change it, or read labrun's memory. */
static int authorizer(void *arg, int action, const char *a, const char *b, const char *c, const char *d)
{
	size_t i;

	(void)arg;
	(void)a;
	(void)c;
	(void)d;
	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH: return SQLITE_DENY;
	case SQLITE_FUNCTION: /* b: the function's name */
		for (i = 0; b && denied_functions[i]; i++)
			if (!sqlite3_stricmp(b, denied_functions[i]))
				return SQLITE_DENY;
		return SQLITE_OK;
	default: return SQLITE_OK;
	}
}

int db_each_row(sqlite3_stmt *s, lr_sqlrow_fn fn, void *arg)
{
	int ncol = sqlite3_column_count(s), i, rc, step;
	const char **names = calloc((size_t)ncol + 1, sizeof *names);
	const char **values = calloc((size_t)ncol + 1, sizeof *values);
	int *types = calloc((size_t)ncol + 1, sizeof *types);
	char *reals = calloc((size_t)ncol + 1, LR_DOUBLE_TEXT);
	struct lr_sqlrow row = { ncol, names, values, types };

	if (!names || !values || !types || !reals) {
		step = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ncol; i++)
		names[i] = sqlite3_column_name(s, i);
	if ((rc = fn(arg, &row, 1))) {
		step = rc;
		goto out;
	}
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			types[i] = sqlite3_column_type(s, i);
			/* reals as text that reads back to the same double (SQLite's own text keeps 15 digits) */
			values[i] = types[i] == SQLITE_FLOAT ? lr_double_text(reals + (size_t)i * LR_DOUBLE_TEXT,
									      sqlite3_column_double(s, i))
							     : (const char *)sqlite3_column_text(s, i);
		}
		if ((rc = fn(arg, &row, 0))) {
			step = rc;
			break;
		}
	}
out:
	free(names);
	free(values);
	free(types);
	free(reals);
	return step;
}

/* A read-only connection to the store, with the authorizer in place. */
static int sql_open(struct lr_store *st, sqlite3 **db, struct db_busy *busy)
{
	char *uri = db_readonly_uri(st);
	int rc;

	if (!uri)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return lr_error_set(LR_ESTORE, "cannot open store '%s' read-only: %s", st->db_path,
				    *db ? sqlite3_errmsg(*db) : "out of memory");
	db_busy_install(*db, busy, st->db_path);
	if (sqlite3_exec(*db, "PRAGMA query_only=ON", NULL, NULL, NULL) != SQLITE_OK)
		return lr_error_set(LR_ESTORE, "cannot open store '%s' read-only: %s", st->db_path,
				    sqlite3_errmsg(*db));
	sqlite3_set_authorizer(*db, authorizer, NULL);
	return 0;
}

static int refuse_write(const char *sql)
{
	int rc = lr_error_set(LR_EREFUSED, "refusing to run '%.60s': labrun sql is read-only", sql);

	lr_error_hint("the store changes only through labrun commands; query it with SELECT");
	return rc;
}

/* The first statement of 'sql' (the text after the first) that could write, or NULL; never runs one. */
static const char *later_write(sqlite3 *db, const char *sql)
{
	const char *at = sql, *found = NULL;
	sqlite3_stmt *s = NULL;

	while (!found && *at && sqlite3_prepare_v2(db, at, -1, &s, &sql) == SQLITE_OK && s) {
		if (!sqlite3_stmt_readonly(s))
			found = at + strspn(at, " \t\r\n;");
		sqlite3_finalize(s);
		s = NULL;
		at = sql;
	}
	return found;
}

/* Prepare 'sql' as exactly one read-only statement, or say why not. */
static int sql_screen(sqlite3 *db, const char *sql, sqlite3_stmt **out)
{
	const char *tail = NULL;
	int rc;

	*out = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, out, &tail) != SQLITE_OK) {
		if (sqlite3_errcode(db) == SQLITE_AUTH) {
			rc = lr_error_set(LR_EREFUSED, "refusing to run query: %s", sqlite3_errmsg(db));
			lr_error_hint("labrun sql reads this store only; it cannot attach other databases");
			return rc;
		}
		rc = lr_error_set(LR_EINVAL, "cannot run query: %s", sqlite3_errmsg(db));
		lr_error_hint("'labrun sql' takes one SELECT statement; docs/schema.md lists the tables");
		return rc;
	}
	if (!*out) {
		rc = lr_error_set(LR_EINVAL, "cannot run query: the text holds no SQL statement");
		lr_error_hint("pass one SELECT statement, e.g. labrun sql \"SELECT * FROM run_overview\"");
		return rc;
	}
	while (tail && (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' || *tail == ';'))
		tail++;
	if (!sqlite3_stmt_readonly(*out))
		return refuse_write(sql);
	if (tail && *tail) {
		/* a write is refused as a write wherever it stands, so one rule gives its exit code */
		const char *write = later_write(db, tail);

		if (write)
			return refuse_write(write);
		rc = lr_error_set(LR_EINVAL, "cannot run query: more than one statement (at '%.40s')", tail);
		lr_error_hint("run one statement per 'labrun sql' call");
		return rc;
	}
	return 0;
}

int lr_store_sql_screen(struct lr_store *st, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	struct db_busy busy;
	int rc;

	if (!(rc = sql_open(st, &db, &busy)))
		rc = sql_screen(db, sql, &s);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc;
}

int lr_store_sql_readonly(struct lr_store *st, const char *sql, lr_sqlrow_fn fn, void *arg)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	struct db_busy busy;
	int rc, step;

	if ((rc = sql_open(st, &db, &busy)) || (rc = sql_screen(db, sql, &s)))
		goto out;
	if ((step = db_each_row(s, fn, arg)) != SQLITE_DONE)
		rc = step < 0 ? step : lr_error_set(LR_EINVAL, "cannot run query: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc;
}

int lr_store_objects(struct lr_store *st, lr_str_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL, *lazy = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT sha256 FROM object UNION SELECT sha256 FROM artifact WHERE sha256 IS NOT NULL"
			     " UNION SELECT stdout_sha256 FROM execution WHERE stdout_sha256 IS NOT NULL"
			     " UNION SELECT stderr_sha256 FROM execution WHERE stderr_sha256 IS NOT NULL"
			     " UNION SELECT sha256 FROM execution_output WHERE sha256 IS NOT NULL"
			     " UNION SELECT raw_sha256 FROM response_set UNION SELECT key_sha256 FROM gate"
			     " EXCEPT SELECT sha256 FROM archived_object ORDER BY 1")) ||
	    (rc = db_prepare(st, &lazy, "SELECT 1 FROM remote_object WHERE sha256 = :sha")))
		goto out;
	while (db_step_row(st, s, "read the object list", &rc)) {
		const char *sha = (const char *)sqlite3_column_text(s, 0);
		char *path;
		struct stat sb;

		/* pulled lazily and not read yet: on its remote, not missing here */
		sqlite3_reset(lazy);
		db_bind_text(lazy, ":sha", sha);
		if (sqlite3_step(lazy) == SQLITE_ROW && (path = lr_obj_path(st->dir, sha))) {
			int absent = stat(path, &sb) != 0;

			free(path);
			if (absent)
				continue;
		}
		rc = fn(arg, sha);
	}
out:
	sqlite3_finalize(s);
	sqlite3_finalize(lazy);
	return rc;
}
