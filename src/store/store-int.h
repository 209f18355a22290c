#ifndef LR_STORE_INT_H
#define LR_STORE_INT_H

/*
 * Private to src/store/: the open store and the statement helpers every
 * store file shares. Nothing outside this folder includes this header
 * (tests/arch/layers.sh checks that only src/store/ speaks SQLite).
 */

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store/ledger.h"
#include "store/store.h"

/* How long a connection waits for another writer before it gives up. */
#define BUSY_TIMEOUT_MS 60000

/* A wait for another connection's lock: up to BUSY_TIMEOUT_MS, said after 1 s. */
struct db_busy {
	const char *path;
	double since;
	int told;
};

/* Wait on 'db' with db_busy_wait (sqlite3_busy_handler) instead of a silent timeout. */
void db_busy_install(sqlite3 *db, struct db_busy *b, const char *path);

/* Statements kept prepared for the connection's life (db_prepare_kept): SQL text and statement. */
#define DB_KEPT_SLOTS 128
struct db_kept {
	const char *sql; /* the caller's text: its address is the key, its text checked */
	sqlite3_stmt *s;
};

struct lr_store {
	char *dir;
	char *db_path;
	sqlite3 *db;
	struct lr_signer *signer;  /* signs ledger entries; NULL: none; freed with the store */
	lr_sign_hook_fn sign_hook; /* called before an entry is signed (lr_store_set_sign_hook) */
	void *sign_arg;
	char *unsigned_why, *unsigned_hint; /* set: an unsigned append is refused with these */
	struct db_busy busy;                /* the current wait for a lock */
	int readonly;                       /* opened read-only: the store cannot be written here */
	struct seal_memo *memo;             /* run content digests computed since the last change (seals.c) */
	char *now;                          /* the time of the write db_begin_at began, until db_commit */
	int snapshot;                       /* lr_store_snapshot_begin calls not yet ended: no write */
	int bulk;                           /* lr_store_scratch_begin: each write a savepoint of one transaction */
	struct db_kept kept[DB_KEPT_SLOTS]; /* statements prepared once (db_prepare_kept) */
	unsigned kept_next;                 /* the slot the next new statement takes when all are used */
};

/* The seal digest of run 'id' computed from its rows now (or since nothing changed: seals.c keeps a memo). */
int db_seal_content_now(struct lr_store *st, int64_t id, char digest[LR_SHA256_HEX]);

/* Forget the memo of seals.c (lr_store_free does). */
void db_seal_memo_free(struct lr_store *st);

/* "file:...?mode=ro[&immutable=1]" for a read-only connection to the store's database (malloc'd). */
char *db_readonly_uri(struct lr_store *st);

/* Set an LR_ESTORE message "cannot WHAT in store '...': <sqlite's message>" with a hint; returns LR_ESTORE. */
int db_error(struct lr_store *st, const char *what);
/* output_dropped rows of one log pair (cond, seq -1: the run's own command); none when nothing was dropped. */
int db_output_dropped(struct lr_store *st, int64_t run, int cond, int seq, int64_t cap, const int64_t dropped[2]);
/* The processes one command left running (table leftover): cond and seq -1 for a recorded command. */
int db_leftovers(struct lr_store *st, int64_t run, int cond, int seq, const struct lr_leftovers *l);
/* db_error for a failed step of 's': a broken rule of the schema names its table and the statement's values. */
int db_stmt_error(struct lr_store *st, sqlite3_stmt *s, const char *what);

/* Run SQL without results (several statements allowed). */
int db_exec(struct lr_store *st, const char *sql, const char *what);

int db_prepare(struct lr_store *st, sqlite3_stmt **s, const char *sql);

/*
 * db_prepare for a statement a command runs again and again (every run's
 * rows, a row per item): prepared once a connection and kept with it, the
 * same 'sql' (a constant's address) giving the same statement back. The
 * caller never finalizes it; it hands it back with db_kept_done, which
 * resets it and clears its bindings. Parsing was most of the cost of
 * storing a run (docs/design.md, "The store at a million runs").
 */
int db_prepare_kept(struct lr_store *st, sqlite3_stmt **s, const char *sql);
void db_kept_done(sqlite3_stmt *s);

/* Finalize the kept statements (before the connection closes). */
void db_kept_free(struct lr_store *st);

/*
 * Bind by parameter name (":run"); a NULL text binds SQL NULL. A bind that
 * fails, a name the statement lacks included, is reported as an error by
 * the next db_step_done() or db_step_row().
 */
void db_bind_text(sqlite3_stmt *s, const char *name, const char *v);
void db_bind_int(sqlite3_stmt *s, const char *name, int64_t v);
void db_bind_real(sqlite3_stmt *s, const char *name, double v);
void db_bind_null(sqlite3_stmt *s, const char *name);

/* Step a statement that returns no rows, then reset it for reuse. */
int db_step_done(struct lr_store *st, sqlite3_stmt *s, const char *what);

/*
 * Step a query: 1 when a row is there; 0 at the end or on an error, which
 * goes to *rc (an LR_ESTORE message "cannot WHAT..."). Does nothing when
 * *rc is already set, so loops read: while (db_step_row(st, s, "what", &rc)).
 */
int db_step_row(struct lr_store *st, sqlite3_stmt *s, const char *what, int *rc);

/*
 * Run query 'sql' (no parameters) and call fn with the first three columns
 * of each row as text, in order; stops at fn's first non-zero return, which
 * it returns, or at an error ("cannot WHAT").
 */
typedef int (*db_text3_fn)(void *arg, const char *a, const char *b, const char *c);
int db_each_text3(struct lr_store *st, const char *sql, const char *what, db_text3_fn fn, void *arg);

/*
 * Call fn(arg, s) with each row of the prepared query 's', then finalise
 * it; stops at fn's first non-zero return, which it returns, or at an error
 * ("cannot WHAT ..."). A row's columns are fn's to read until it returns.
 */
typedef int (*db_row_fn)(void *arg, sqlite3_stmt *s);
int db_each(struct lr_store *st, sqlite3_stmt *s, const char *what, db_row_fn fn, void *arg);
/* db_each over query 'sql', whose one parameter 'name' is bound to v. */
int db_each_int(struct lr_store *st, const char *sql, const char *name, int64_t v, const char *what, db_row_fn fn,
		void *arg);

/*
 * One-row queries: the integer in the first column of the first row of
 * 'sql', whose one parameter 'name' is bound to v, in *out; 0 when there is
 * no row. "cannot WHAT ..." on an error.
 */
int db_one_int(struct lr_store *st, const char *sql, const char *name, int64_t v, int64_t *out, const char *what);
int db_one_int_text(struct lr_store *st, const char *sql, const char *name, const char *v, int64_t *out,
		    const char *what);

/* Step an INSERT ... RETURNING id statement and finalise it. */
int db_returning_id(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id);
/* The same for a kept statement (db_prepare_kept), handed back instead. */
int db_returning_kept(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id);

/* Column i as a malloc'd string, NULL for SQL NULL. */
char *db_col_dup(sqlite3_stmt *s, int i);
/* Column i's text into buf (truncated to size, "" for NULL). */
void db_col_copy(sqlite3_stmt *s, int i, char *buf, size_t size);

/*
 * A column table: the fields of a struct that a row's columns fill, column
 * i into entry i's field (db_row_read), or that bind the parameters of a
 * statement, each its entry's (db_row_bind). DB_COL names a field of 'type'
 * and its kind; DB_PARAM the same with its parameter; DB_COLS passes a table
 * and its length.
 */
enum db_kind {
	DB_INT,   /* int or int64_t (uint64_t: the same bits), by the field's size */
	DB_REAL,  /* double (NULL reads as 0) */
	DB_NREAL, /* double, NAN for NULL */
	DB_TEXT,  /* char[]: read as a copy cut to the field's size, "" for NULL (db_col_copy) */
	DB_DUP,   /* char *: read as a malloc'd copy, NULL for NULL (db_col_dup) */
	DB_PTR,   /* char *: read as the column's own text, until the next step; NULL for NULL */
};
struct db_col {
	enum db_kind kind;
	size_t offset, size;
	const char *param; /* ":name"; NULL: a column only read */
};
#define DB_COL(type, field, kind) DB_PARAM(NULL, type, field, kind)
#define DB_PARAM(param, type, field, kind) \
	{ \
		kind, offsetof(type, field), sizeof(((type *)0)->field), param \
	}
#define DB_COLS(cols) (cols), sizeof(cols) / sizeof *(cols)
/* Fill the fields of 'out' that 'cols' names from the row 's' is on; the others are left as they are. */
void db_row_read(sqlite3_stmt *s, const struct db_col *cols, size_t n, void *out);
/* Bind the parameters that 'cols' names to the fields of 'in' (a char * that is NULL binds NULL). */
void db_row_bind(sqlite3_stmt *s, const struct db_col *cols, size_t n, const void *in);
/*
 * The first row of query 'sql', whose one parameter 'name' is bound to v,
 * into 'out' by 'cols' (db_row_read): 1 when there is a row, 0 when there
 * is none (out left as it was), or an error ("cannot WHAT ...").
 */
int db_one_row(struct lr_store *st, const char *sql, const char *name, int64_t v, const struct db_col *cols, size_t n,
	       void *out, const char *what);

/*
 * Write a row for each of n items with one statement 'sql', prepared once:
 * bind(arg, s, i) binds item i's parameters and returns 0, then the
 * statement is stepped ("cannot WHAT ..."); a non-zero return says item i
 * has no row. Stops at the first error; nothing is prepared when n is 0.
 */
typedef int (*db_bind_fn)(const void *arg, sqlite3_stmt *s, size_t i);
int db_insert_each(struct lr_store *st, const char *sql, size_t n, db_bind_fn bind, const void *arg, const char *what);

/*
 * Items that bind by a column table, for db_insert_each with db_bind_items:
 * item i (at v + i * size) by 'cols', 'key' (":run") to id, and 'index',
 * when not NULL, to i.
 */
struct db_items {
	const char *key;
	int64_t id;
	const char *index;
	const void *v;
	size_t size;
	const struct db_col *cols;
	size_t ncols;
};
int db_bind_items(const void *arg, sqlite3_stmt *s, size_t i);

/* Step a statement that returns no rows and finalise it (db_step_done, then sqlite3_finalize). */
int db_step_final(struct lr_store *st, sqlite3_stmt *s, const char *what);

/* How a process ended (a run's own command, an execution); DB_OUTCOME(p) takes it from a struct lr_run or lr_store_exec. */
struct db_outcome {
	int has_exit, exit_code, signal, timed_out;
	double wall_s, user_s, sys_s;
	int64_t peak_rss_kib;
};
#define DB_OUTCOME(p) \
	(&(const struct db_outcome){ (p)->has_exit, (p)->exit_code, (p)->signal, (p)->timed_out, (p)->wall_s, \
				     (p)->user_s, (p)->sys_s, (p)->peak_rss_kib })
/* Bind o: :exit (NULL when it has no exit code), :signal (NULL when none), :timed_out, :wall, :user, :sys, :rss. */
void db_bind_outcome(sqlite3_stmt *s, const struct db_outcome *o);

/*
 * Call 'fn' with the header, then with every row of 's' (values as text).
 * Returns SQLITE_DONE after the last row, another SQLite result code when
 * stepping failed, or the first non-zero (negative) result of 'fn'.
 */
int db_each_row(sqlite3_stmt *s, lr_sqlrow_fn fn, void *arg);

/* BEGIN IMMEDIATE; and COMMIT when rc is 0, else ROLLBACK (returns the outcome). */
int db_begin(struct lr_store *st);
int db_commit(struct lr_store *st, int rc);
/*
 * db_begin for rows stamped with the time they are written: st->now is that
 * time (lr_now_iso()) until db_commit, for every row of the transaction.
 * When the transaction cannot begin, st->now is NULL again.
 */
int db_begin_at(struct lr_store *st);

/*
 * The rows of a run, table by table: each query takes :run and returns the
 * run's rows of 'table' in a fixed order (seals.c). Seals hash them; run
 * bundles (bundle.c) carry them to other stores.
 */
struct db_seal_query {
	const char *table, *sql;
};
extern const struct db_seal_query db_seal_queries[];
extern const size_t db_nseal_queries;

/* The columns of run_design, in their order, and the parameters that write them (experiments.c). */
extern const struct db_col db_design_cols[];
extern const size_t db_ndesign_cols;

struct lr_kv;

/* Write (or rewrite) the seal of run 'id'; call inside a write transaction (seals.c). */
int db_seal_run(struct lr_store *st, int64_t id, const char *now);
/*
 * The same after rows were added to the tables named in 'changed' (a
 * NULL-terminated list) only: those are read again, the others' digests come
 * from the run's stored seal, so amending a run costs what was added to it;
 * 'known' (may be NULL) gives one changed table's digest, computed while its
 * rows were written (store/sealfeed.h), which is then not read again.
 */
int db_reseal_run(struct lr_store *st, int64_t id, const char *now, const char *const *changed,
		  const struct lr_kv *known);
/*
 * Append an entry of run 'id' to the ledger (seals.c): of 'kind', or, with
 * kind NULL, its seal ('final' the first time, then 'amend'), signed when the
 * store has a signer; *seq_out (may be NULL) gets its number. Call inside a
 * write transaction.
 */
int db_ledger_append(struct lr_store *st, int64_t id, const char *kind, const char *content, const char *now,
		     int64_t *seq_out);
/* The digest of the rows query 'sql' (:run bound to id) gives, hashed as a seal hashes a table (sealfeed.c). */
int db_seal_query_digest(struct lr_store *st, const char *sql, int64_t id, char hex[LR_SHA256_HEX]);
/* Migration 10: seal every sealed run again and chain it into the ledger. */
int db_ledger_backfill(struct lr_store *st);

/* The directory of a store (dir.c): does it exist, and create its layout (idempotent). */
int lr_store_is_dir(const char *path);
int lr_store_make_layout(const char *dir);

#endif
