#ifndef LR_STORE_H
#define LR_STORE_H

/*
 * The store: <dir>/labrun.db (SQLite, WAL) and <dir>/objects/. These are the
 * only functions that know SQL. Writes run in BEGIN IMMEDIATE transactions
 * that never span a command's execution. This header is the store itself
 * (open, find, settings, the read-only SQL surface); each concern has its own:
 * store/runs.h, store/experiments.h, store/ledger.h, store/archives.h,
 * store/serving.h, store/hashcache.h, store/remote.h, store/objects.h.
 */

#include "base/error.h"
#include <stdint.h>
#include <sys/stat.h>

#include "base/model.h"

#define LR_APPLICATION_ID 0x4C616252 /* "LabR" */

struct lr_store;

/* A callback taking a string (a table name, an object hash...). */
typedef int (*lr_str_fn)(void *arg, const char *s);

/*
 * A row of a query: column count, names, values as text (NULL for SQL NULL)
 * and types (1 integer, 2 float, 3 text, 4 blob, 5 null). Borrowed: valid
 * during the callback only. 'is_header' is set on the first call, which
 * carries the names only.
 */
struct lr_sqlrow {
	int ncol;
	const char *const *names;
	const char *const *values;
	const int *types; /* 1 integer, 2 float, 3 text, 4 blob, 5 null */
};
typedef int (*lr_sqlrow_fn)(void *arg, const struct lr_sqlrow *row, int is_header);

enum {
	LR_STORE_CREATE = 1, /* create the directory and database if missing */
	LR_STORE_WRITE = 2,  /* a writer: a store it cannot write is refused up front (LR_ESTORE) */
};

/*
 * Find the store directory: 'override' (from --store or LABRUN_STORE) if
 * given, else the nearest '.labrun' walking up from 'cwd'. When none exists
 * and 'for_write' is set, the place a new one goes: '.labrun' in 'cwd' (a
 * caller that knows the enclosing git work tree puts it at its top instead,
 * as cmd_store does). *out is malloc'd; *exists says whether the
 * directory is already there. LR_ENOTFOUND when reading and there is none.
 */
LR_MUST_CHECK int lr_store_find(char **out, int *exists, const char *override, const char *cwd, int for_write);

/*
 * Open (and with LR_STORE_CREATE, create) the store in 'dir', applying any
 * pending migrations. A store whose schema is newer than this binary, or a
 * database that is not a labrun store, is refused with LR_ESCHEMA and left
 * untouched. *out belongs to the caller: lr_store_free().
 */
LR_MUST_CHECK int lr_store_open(struct lr_store **out, const char *dir, unsigned flags);

/*
 * Only for the throwaway stores a benchmark fills with a million runs, where
 * a crash loses nothing but the benchmark: begin one transaction that every
 * write on this connection joins (each as a savepoint, rolled back alone on
 * failure) until lr_store_scratch_commit, which commits it without waiting
 * for the disk (synchronous=OFF on this connection). Every other connection,
 * and this store's next one, commits each write with synchronous=FULL.
 */
LR_MUST_CHECK int lr_store_scratch_begin(struct lr_store *st);
LR_MUST_CHECK int lr_store_scratch_commit(struct lr_store *st);

/*
 * Called once per wait when a store's lock has been held by another process
 * for a second (the wait goes on up to a minute): commands say so on stderr.
 */
void lr_store_set_wait_notice(void (*fn)(const char *path));
void lr_store_free(struct lr_store *st);

/* The store directory (borrowed, lives as long as 'st'). */
const char *lr_store_dir(const struct lr_store *st);

/* The SQLite library's version ("3.40.1"); static. */
const char *lr_store_sqlite_version(void);

/* PRAGMA user_version of the open database. */
LR_MUST_CHECK int lr_store_schema_version(struct lr_store *st);

/* The store's settings ('labrun config'): *value is malloc'd, NULL when the key is not set. */
LR_MUST_CHECK int lr_store_setting_get(struct lr_store *st, const char *key, char **value);
/* Set KEY to VALUE, or remove it when VALUE is NULL. */
LR_MUST_CHECK int lr_store_setting_set(struct lr_store *st, const char *key, const char *value);
typedef int (*lr_setting_fn)(void *arg, const char *key, const char *value, const char *set_at);
LR_MUST_CHECK int lr_store_settings(struct lr_store *st, lr_setting_fn fn, void *arg);

/*
 * Run one read-only SQL statement on a separate read-only connection.
 * Statements that could write are refused with LR_EREFUSED before they run.
 * 'fn' gets the column count, names, values (NULL for SQL NULL) and types
 * (SQLITE_INTEGER... as ints) of each row; 'header' is called once first.
 */
LR_MUST_CHECK int lr_store_sql_readonly(struct lr_store *st, const char *sql, lr_sqlrow_fn fn, void *arg);

/* The checks of lr_store_sql_readonly() alone: 0 when 'sql' would run, without running it. */
LR_MUST_CHECK int lr_store_sql_screen(struct lr_store *st, const char *sql);

/*
 * A read snapshot: from lr_store_snapshot_begin() to lr_store_snapshot_end(),
 * every read through 'st' sees the store as it was when the snapshot began,
 * whatever other processes commit meanwhile (a deferred transaction whose
 * first read is made at once; readers of a WAL store hold no writer up).
 * What a crate signs is then one state of the store, the one verify sees in
 * it. Nothing is written through 'st' inside: caches are not kept
 * (lr_store_hash_remember does nothing) and any other write fails with
 * LR_ESTORE. Calls nest: only the outermost pair begins and ends the
 * snapshot; an _end with none open (after a failed _begin) does nothing.
 */
LR_MUST_CHECK int lr_store_snapshot_begin(struct lr_store *st);
void lr_store_snapshot_end(struct lr_store *st);

/* PRAGMA integrity_check: 0 when "ok", else LR_ESTORE with the first problem. */
LR_MUST_CHECK int lr_store_integrity(struct lr_store *st);

/* Call 'fn' with every object sha256 the database references and expects in objects/ (not pruned
 * ones, nor those pulled lazily and not fetched yet: they are on their remote). */
LR_MUST_CHECK int lr_store_objects(struct lr_store *st, lr_str_fn fn, void *arg);

#endif
