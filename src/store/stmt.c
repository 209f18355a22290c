/*
 * Statements: preparing, binding (a failed bind kept with its statement),
 * stepping, reading columns, transactions, and the store's error for a
 * failed call. The one file every other file of the store layer calls.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>
#include <sys/statvfs.h>

#include "base/clock.h"
#include "base/error.h"
#include "store/store-int.h"

/* No block left for us on the file system of 'dir' (a disk I/O error is often that). */
static int disk_full(const char *dir)
{
	struct statvfs fs;

	return !statvfs(dir, &fs) && fs.f_bavail == 0;
}

int db_error(struct lr_store *st, const char *what)
{
	int code = sqlite3_extended_errcode(st->db) & 0xff;
	int full = (code == SQLITE_FULL || code == SQLITE_IOERR) && disk_full(st->dir);
	int rc = lr_error_set(LR_ESTORE, "cannot %s in store '%s': %s%s", what, st->db_path, sqlite3_errmsg(st->db),
			      full ? " (the file system holding the store is full)" : "");

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		lr_error_hint("another labrun may hold the store for a long write; retry, or pass --store");
	else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN)
		lr_error_hint("check that '%s' is writable, or pass --store DIR", st->dir);
	else if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		lr_error_hint("run 'labrun fsck' and restore the store from a copy");
	else if (full)
		lr_error_hint("free space on it; 'labrun fsck' then removes what failed writers left");
	return rc;
}

/* The table an INSERT, UPDATE or DELETE statement writes ("" when it is none of those). */
static void statement_table(sqlite3_stmt *s, char *buf, size_t size)
{
	const char *sql = s ? sqlite3_sql(s) : NULL, *p;
	size_t n;

	buf[0] = '\0';
	if (!sql)
		return;
	if ((p = strstr(sql, "INSERT")) && (p = strstr(p, " INTO ")))
		p += 6;
	else if ((p = strstr(sql, "UPDATE ")))
		p += 7;
	else if ((p = strstr(sql, "DELETE FROM ")))
		p += 12;
	else
		return;
	n = strcspn(p, " (");
	lr_fmt_cut(buf, size, "%.*s", (int)n, p);
}

int db_stmt_error(struct lr_store *st, sqlite3_stmt *s, const char *what)
{
	char table[64], *row;
	int rc;

	if ((sqlite3_extended_errcode(st->db) & 0xff) != SQLITE_CONSTRAINT || !s)
		return db_error(st, what);
	/* a rule of the schema: say which table and which values, not only SQLite's words */
	statement_table(s, table, sizeof table);
	row = sqlite3_expanded_sql(s);
	rc = lr_error_set(LR_ESTORE,
			  "cannot %s in store '%s': a row of table '%s' breaks a rule of its schema (%s); the "
			  "statement: %.300s%s",
			  what, st->db_path, table, sqlite3_errmsg(st->db), row ? row : sqlite3_sql(s),
			  row && strlen(row) > 300 ? "..." : "");
	lr_error_hint("labrun checks what it writes, so this is a bug in labrun or a store changed by hand: "
		      "please report it with this message");
	sqlite3_free(row);
	return rc;
}

int db_exec(struct lr_store *st, const char *sql, const char *what)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(st, what);
	return 0;
}

/*
 * A bind that failed (a name the statement lacks: a bug in labrun; out of
 * memory; a value too big) is kept with its statement and reported by that
 * statement's next step, so a row is never written with a parameter silently
 * left NULL, and never blamed on another statement. SQLite has no room for
 * it in the statement, so it is kept beside it, per thread (statements are
 * stepped where they are bound); a few slots are plenty, since a failed bind
 * is stepped, or its statement given up, right after it.
 */
#define BIND_SLOTS 4
static _Thread_local struct bind_failure {
	sqlite3_stmt *stmt;
	int code;
	char name[32];
} bind_failed[BIND_SLOTS];
static _Thread_local unsigned bind_next;

static struct bind_failure *bind_slot(sqlite3_stmt *s)
{
	int i;

	for (i = 0; i < BIND_SLOTS; i++)
		if (bind_failed[i].stmt == s)
			return &bind_failed[i];
	return NULL;
}

int db_prepare(struct lr_store *st, sqlite3_stmt **s, const char *sql)
{
	struct bind_failure *f;

	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK)
		return db_error(st, "prepare a statement");
	/* a statement given up after a failed bind, whose memory this one reuses */
	if ((f = bind_slot(*s)))
		f->stmt = NULL;
	return 0;
}

int db_prepare_kept(struct lr_store *st, sqlite3_stmt **s, const char *sql)
{
	struct db_kept *k;
	unsigned i;
	int rc;

	for (i = 0; i < DB_KEPT_SLOTS; i++) {
		k = &st->kept[i];
		if (k->sql == sql && k->s && !strcmp(sqlite3_sql(k->s), sql)) {
			*s = k->s;
			return 0;
		}
	}
	for (i = 0; i < DB_KEPT_SLOTS && st->kept[i].s; i++)
		;
	k = &st->kept[i < DB_KEPT_SLOTS ? i : st->kept_next++ % DB_KEPT_SLOTS];
	if ((rc = db_prepare(st, s, sql)))
		return rc;
	sqlite3_finalize(k->s); /* a slot taken back: its statement was handed back, never in use */
	k->sql = sql;
	k->s = *s;
	return 0;
}

void db_kept_done(sqlite3_stmt *s)
{
	struct bind_failure *f;

	if (!s)
		return;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if ((f = bind_slot(s))) /* a failed bind never stepped: not the next user's */
		f->stmt = NULL;
}

void db_kept_free(struct lr_store *st)
{
	for (unsigned i = 0; i < DB_KEPT_SLOTS; i++) {
		sqlite3_finalize(st->kept[i].s);
		st->kept[i].s = NULL;
		st->kept[i].sql = NULL;
	}
}

static void bind_result(sqlite3_stmt *s, int code, const char *name)
{
	struct bind_failure *f;

	if (code == SQLITE_OK || bind_slot(s)) /* the first failure of a statement is the one to report */
		return;
	if (!(f = bind_slot(NULL)))
		f = &bind_failed[bind_next++ % BIND_SLOTS];
	f->stmt = s;
	f->code = code;
	snprintf(f->name, sizeof f->name, "%s", name);
}

/* A name the statement lacks has index 0, which every sqlite3_bind_* refuses with SQLITE_RANGE. */
#define bind_index sqlite3_bind_parameter_index

void db_bind_text(sqlite3_stmt *s, const char *name, const char *v)
{
	int i = bind_index(s, name);

	bind_result(s, v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i), name);
}

void db_bind_int(sqlite3_stmt *s, const char *name, int64_t v)
{
	bind_result(s, sqlite3_bind_int64(s, bind_index(s, name), v), name);
}

void db_bind_real(sqlite3_stmt *s, const char *name, double v)
{
	bind_result(s, sqlite3_bind_double(s, bind_index(s, name), v), name);
}

void db_bind_null(sqlite3_stmt *s, const char *name)
{
	bind_result(s, sqlite3_bind_null(s, bind_index(s, name)), name);
}

/* Statement s's failed bind since its last step, as an error (and forgotten); 0: none. */
static int bind_error(struct lr_store *st, sqlite3_stmt *s, const char *what)
{
	struct bind_failure *f = s ? bind_slot(s) : NULL;
	int rc;

	if (!f)
		return 0;
	rc = lr_error_set(LR_ESTORE, "cannot %s in store '%s': parameter %s: %s", what, st->db_path, f->name,
			  f->code == SQLITE_RANGE ? "the statement has no such parameter (a bug in labrun)"
						  : sqlite3_errstr(f->code));
	f->stmt = NULL;
	return rc;
}

/* Step a statement that returns no rows, then reset it for reuse. */
int db_step_done(struct lr_store *st, sqlite3_stmt *s, const char *what)
{
	int rc;

	if ((rc = bind_error(st, s, what))) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		return rc;
	}
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		rc = db_stmt_error(st, s, what);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return 0;
}

int db_step_row(struct lr_store *st, sqlite3_stmt *s, const char *what, int *rc)
{
	int step;

	if (*rc)
		return 0;
	if ((*rc = bind_error(st, s, what)))
		return 0;
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		return 1;
	if (step != SQLITE_DONE)
		*rc = db_stmt_error(st, s, what);
	return 0;
}

int db_each_text3(struct lr_store *st, const char *sql, const char *what, db_text3_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	while (db_step_row(st, s, what, &rc))
		rc = fn(arg, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
			(const char *)sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	return rc;
}

int db_each(struct lr_store *st, sqlite3_stmt *s, const char *what, db_row_fn fn, void *arg)
{
	int rc = 0;

	while (db_step_row(st, s, what, &rc))
		rc = fn(arg, s);
	sqlite3_finalize(s);
	return rc;
}

int db_each_int(struct lr_store *st, const char *sql, const char *name, int64_t v, const char *what, db_row_fn fn,
		void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, name, v);
	return db_each(st, s, what, fn, arg);
}

void db_col_copy(sqlite3_stmt *s, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

char *db_col_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? strdup((const char *)t) : NULL;
}

void db_row_read(sqlite3_stmt *s, const struct db_col *cols, size_t n, void *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *field = (char *)out + cols[i].offset, *t;
		int k = (int)i, v;
		int64_t v64;
		double d;

		switch (cols[i].kind) {
		case DB_INT:
			if (cols[i].size == sizeof v) {
				v = sqlite3_column_int(s, k);
				memcpy(field, &v, sizeof v);
			} else {
				v64 = sqlite3_column_int64(s, k);
				memcpy(field, &v64, sizeof v64);
			}
			break;
		case DB_REAL:
		case DB_NREAL:
			d = cols[i].kind == DB_NREAL && sqlite3_column_type(s, k) == SQLITE_NULL
				    ? NAN
				    : sqlite3_column_double(s, k);
			memcpy(field, &d, sizeof d);
			break;
		case DB_TEXT: db_col_copy(s, k, field, cols[i].size); break;
		case DB_DUP:
		case DB_PTR:
			t = cols[i].kind == DB_DUP ? db_col_dup(s, k) : (char *)sqlite3_column_text(s, k);
			memcpy(field, &t, sizeof t);
			break;
		}
	}
}

void db_row_bind(sqlite3_stmt *s, const struct db_col *cols, size_t n, const void *in)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *field = (const char *)in + cols[i].offset, *param = cols[i].param, *t;
		int64_t v64;
		double d;
		int v;

		if (!param)
			continue;
		switch (cols[i].kind) {
		case DB_INT:
			if (cols[i].size == sizeof v) {
				memcpy(&v, field, sizeof v);
				v64 = v;
			} else {
				memcpy(&v64, field, sizeof v64);
			}
			db_bind_int(s, param, v64);
			break;
		case DB_REAL:
		case DB_NREAL:
			memcpy(&d, field, sizeof d);
			if (cols[i].kind == DB_NREAL && isnan(d))
				db_bind_null(s, param);
			else
				db_bind_real(s, param, d);
			break;
		case DB_TEXT: db_bind_text(s, param, field); break;
		case DB_DUP:
		case DB_PTR:
			memcpy(&t, field, sizeof t);
			db_bind_text(s, param, t);
			break;
		}
	}
}

int db_one_row(struct lr_store *st, const char *sql, const char *name, int64_t v, const struct db_col *cols, size_t n,
	       void *out, const char *what)
{
	sqlite3_stmt *s = NULL;
	int rc, found;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, name, v);
	if ((found = db_step_row(st, s, what, &rc)))
		db_row_read(s, cols, n, out);
	sqlite3_finalize(s);
	return rc ? rc : found;
}

int db_insert_each(struct lr_store *st, const char *sql, size_t n, db_bind_fn bind, const void *arg, const char *what)
{
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if (!n)
		return 0;
	if ((rc = db_prepare_kept(st, &s, sql)))
		return rc;
	for (i = 0; i < n && !rc; i++)
		if (!bind(arg, s, i))
			rc = db_step_done(st, s, what);
	db_kept_done(s);
	return rc;
}

int db_bind_items(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct db_items *it = arg;

	db_bind_int(s, it->key, it->id);
	if (it->index)
		db_bind_int(s, it->index, (int64_t)i);
	db_row_bind(s, it->cols, it->ncols, (const char *)it->v + i * it->size);
	return 0;
}

int db_step_final(struct lr_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = db_step_done(st, s, what);

	sqlite3_finalize(s);
	return rc;
}

void db_bind_outcome(sqlite3_stmt *s, const struct db_outcome *o)
{
	static const struct db_col params[] = {
		DB_PARAM(":timed_out", struct db_outcome, timed_out, DB_INT),
		DB_PARAM(":wall", struct db_outcome, wall_s, DB_REAL),
		DB_PARAM(":user", struct db_outcome, user_s, DB_REAL),
		DB_PARAM(":sys", struct db_outcome, sys_s, DB_REAL),
		DB_PARAM(":rss", struct db_outcome, peak_rss_kib, DB_INT),
	};

	if (o->has_exit)
		db_bind_int(s, ":exit", o->exit_code);
	if (o->signal)
		db_bind_int(s, ":signal", o->signal);
	db_row_bind(s, DB_COLS(params), o);
}

/* Step an INSERT ... RETURNING id statement and finalise it. */
static int returning_id(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id)
{
	int rc = 0;

	if (db_step_row(st, s, what, &rc))
		*id = sqlite3_column_int64(s, 0);
	else if (!rc)
		rc = db_error(st, what);
	return rc;
}

int db_returning_id(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id)
{
	int rc = returning_id(st, s, what, id);

	sqlite3_finalize(s);
	return rc;
}

int db_returning_kept(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id)
{
	int rc = returning_id(st, s, what, id);

	db_kept_done(s);
	return rc;
}

static int one_int(struct lr_store *st, const char *sql, const char *name, const char *text, int64_t v, int64_t *out,
		   const char *what)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*out = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	if (text)
		db_bind_text(s, name, text);
	else
		db_bind_int(s, name, v);
	if (db_step_row(st, s, what, &rc))
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

int db_one_int_text(struct lr_store *st, const char *sql, const char *name, const char *v, int64_t *out,
		    const char *what)
{
	return one_int(st, sql, name, v ? v : "", 0, out, what);
}

int db_one_int(struct lr_store *st, const char *sql, const char *name, int64_t v, int64_t *out, const char *what)
{
	return one_int(st, sql, name, NULL, v, out, what);
}

int db_begin(struct lr_store *st)
{
	if (st->snapshot) /* a bug: the snapshot's reads would no longer be of one state */
		return lr_error_set(LR_ESTORE, "cannot write to store '%s' while reading a snapshot of it", st->dir);
	return db_exec(st, st->bulk ? "SAVEPOINT w" : "BEGIN IMMEDIATE", "start a write transaction");
}

int db_begin_at(struct lr_store *st)
{
	int rc;

	free(st->now);
	if (!(st->now = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = db_begin(st))) {
		free(st->now);
		st->now = NULL;
	}
	return rc;
}

int db_commit(struct lr_store *st, int rc)
{
	free(st->now);
	st->now = NULL;
	if (rc == 0)
		rc = db_exec(st, st->bulk ? "RELEASE w" : "COMMIT", "commit");
	if (rc)
		sqlite3_exec(st->db, st->bulk ? "ROLLBACK TO w; RELEASE w" : "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
