/*
 * The store core: opening a store, its schema and migrations, and the
 * statement helpers every store file uses (store-int.h).
 */
#include "config.h"
#include "base/system.h"

#include <sys/file.h>
#include <sys/statvfs.h>

#include "base/error.h"
#include "base/sign.h"
#include "store/schema.h"
#include "store/store-int.h"

/* Free bytes below which a connection keeps its WAL index in memory (connect_vfs): two -shm extents. */
#define LR_STORE_SHM_ROOM ((int64_t)64 << 10)

const char *lr_store_dir(const struct lr_store *st)
{
	return st->dir;
}

/* Read an integer PRAGMA. */
static int pragma_int(struct lr_store *st, const char *pragma, int *val)
{
	sqlite3_stmt *s = NULL;
	char sql[64];
	int rc;

	snprintf(sql, sizeof sql, "PRAGMA %s", pragma);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(st, "read the schema version");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*val = sqlite3_column_int(s, 0);
		rc = 0;
	} else {
		rc = db_error(st, "read the schema version");
	}
	sqlite3_finalize(s);
	return rc;
}

const char *lr_store_sqlite_version(void)
{
	return sqlite3_libversion();
}

int lr_store_schema_version(struct lr_store *st)
{
	int v = -1;

	pragma_int(st, "user_version", &v);
	return v;
}

/*
 * Refuse databases this binary must not touch; *version gets user_version.
 * Both header fields are read by one statement, so from one snapshot: read
 * one by one, a concurrent first open's migration could commit in between
 * and make a fresh labrun store look like another program's database.
 */
static int check_schema(struct lr_store *st, int *version)
{
	sqlite3_stmt *s = NULL;
	int app = 0, objects = 0, rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_schema)"
			     " FROM pragma_application_id AS a, pragma_user_version AS v")))
		return rc;
	if (db_step_row(st, s, "read the schema version", &rc)) {
		app = sqlite3_column_int(s, 0);
		*version = sqlite3_column_int(s, 1);
		objects = sqlite3_column_int(s, 2);
	} else if (!rc) {
		rc = db_error(st, "read the schema version");
	}
	sqlite3_finalize(s);
	if (rc)
		return rc;
	if (app != 0 && app != LR_APPLICATION_ID) {
		lr_error_set(LR_ESCHEMA, "cannot open store '%s': '%s' is not a labrun database (application_id %d)",
			     st->dir, st->db_path, app);
		lr_error_hint("pass --store with the directory of a labrun store");
		return LR_ESCHEMA;
	}
	/* unmarked but not empty: another program's tables, never to be converted in place */
	if (app == 0 && (*version != 0 || objects != 0)) {
		lr_error_set(LR_ESCHEMA, "cannot open store '%s': '%s' is a database of another program", st->dir,
			     st->db_path);
		lr_error_hint("pass --store with the directory of a labrun store");
		return LR_ESCHEMA;
	}
	if (*version > lr_migration_count) {
		lr_error_set(LR_ESCHEMA,
			     "cannot open store '%s': its schema version %d is newer than this labrun %s knows (%d)",
			     st->dir, *version, PACKAGE_VERSION, lr_migration_count);
		lr_error_hint("upgrade labrun; the store was left untouched");
		return LR_ESCHEMA;
	}
	return 0;
}

/*
 * Apply migrations user_version+1..latest. Serialised across processes by a
 * lock file (switching to WAL needs the database to itself) and by BEGIN
 * IMMEDIATE; the version is re-read under the lock, so concurrent first
 * opens migrate once.
 */
static int migrate(struct lr_store *st)
{
	char lock_path[PATH_MAX], sql[128];
	int fd, version = 0, rc, i;

	snprintf(lock_path, sizeof lock_path, "%s/migrate.lock", st->dir);
	fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return lr_error_set(LR_EIO, "cannot create '%s': %s", lock_path, strerror(errno));
	if (flock(fd, LOCK_EX) != 0) {
		rc = lr_error_set(LR_EIO, "cannot lock '%s': %s", lock_path, strerror(errno));
		goto out;
	}
	if ((rc = db_exec(st, "PRAGMA page_size=16384; PRAGMA journal_mode=WAL", "switch to WAL mode")))
		goto out;
	if ((rc = db_exec(st, "BEGIN IMMEDIATE", "start the schema migration")))
		goto out;
	if ((rc = check_schema(st, &version)))
		goto rollback;
	for (i = version; i < lr_migration_count; i++) {
		if (sqlite3_exec(st->db, lr_migrations[i].sql, NULL, NULL, NULL) != SQLITE_OK) {
			rc = db_error(st, "apply the schema migration");
			lr_error_wrap("migration '%s'", lr_migrations[i].name);
			goto rollback;
		}
	}
	if (version < 10 && (rc = db_ledger_backfill(st))) /* the ledger starts with the runs already there */
		goto rollback;
	/* Integers of our own, not user data: formatting is safe here. */
	snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d", LR_APPLICATION_ID,
		 lr_migration_count);
	if ((rc = db_exec(st, sql, "record the schema version")))
		goto rollback;
	if ((rc = db_exec(st, "COMMIT", "commit the schema migration")))
		goto rollback;
	goto out;
rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
out:
	close(fd);
	return rc;
}

/*
 * The URI of a read-only connection to the store: mode=ro, and on a
 * read-only file system also immutable=1, since SQLite could not create the
 * WAL index there and nothing can change the file under us. NULL: no memory.
 */
char *db_readonly_uri(struct lr_store *st)
{
	static const char hex[] = "0123456789ABCDEF";
	struct statvfs fs;
	const unsigned char *p;
	char *uri;
	size_t n;

	if (!(uri = malloc(strlen(st->db_path) * 3 + 40)))
		return NULL;
	memcpy(uri, "file:", 5);
	n = 5;
	for (p = (const unsigned char *)st->db_path; *p; p++) {
		if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p >= 0x7f) {
			uri[n++] = '%';
			uri[n++] = hex[*p >> 4];
			uri[n++] = hex[*p & 15];
		} else {
			uri[n++] = (char)*p;
		}
	}
	snprintf(uri + n, 40, "?mode=ro%s", !statvfs(st->dir, &fs) && (fs.f_flag & ST_RDONLY) ? "&immutable=1" : "");
	return uri;
}

/* A reader's connection to a store it cannot write (a read-only mount, no write permission). */
static int open_readonly(struct lr_store *st)
{
	char *uri = db_readonly_uri(st);
	int rc;

	if (!uri)
		return SQLITE_NOMEM;
	db_kept_free(st);
	sqlite3_close(st->db);
	st->db = NULL;
	rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	st->readonly = 1;
	return rc;
}

/*
 * The VFS of a connection: SQLite's own, unless the store's disk has no room
 * for the WAL index (-shm grows to 32 KiB as a connection opens, and failed
 * with "disk I/O error" on a full disk, so fsck could not even read). Then
 * unix-excl, which keeps the index in memory and holds the database
 * exclusively while open: on a full disk nothing else can write anyway.
 */
static const char *connect_vfs(const char *dir)
{
	struct statvfs fs;

	if (statvfs(dir, &fs) || (int64_t)fs.f_bavail * (int64_t)fs.f_frsize >= LR_STORE_SHM_ROOM)
		return NULL;
	return sqlite3_vfs_find("unix-excl") ? "unix-excl" : NULL;
}

/* A reader that cannot write the store falls back to a read-only connection. */
static int store_connect(struct lr_store *st, unsigned flags)
{
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, rc;

	if (flags & LR_STORE_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	else if (access(st->dir, W_OK) || access(st->db_path, W_OK))
		return open_readonly(st);
	rc = sqlite3_open_v2(st->db_path, &st->db, oflags, connect_vfs(st->dir));
	if (rc != SQLITE_OK && !(flags & LR_STORE_CREATE) && access(st->db_path, R_OK) == 0)
		rc = open_readonly(st);
	return rc;
}

int lr_store_open(struct lr_store **out, const char *dir, unsigned flags)
{
	struct lr_store *st;
	int version = 0, rc, existed;

	*out = NULL;
	st = calloc(1, sizeof *st);
	if (!st)
		return lr_error_set(LR_ENOMEM, "out of memory");
	st->dir = strdup(dir);
	if (!st->dir || asprintf(&st->db_path, "%s/labrun.db", dir) < 0) {
		st->db_path = NULL;
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto fail;
	}
	/* a database already there is checked before anything is made beside it: it may be another program's */
	existed = access(st->db_path, F_OK) == 0;
	if (flags & LR_STORE_CREATE) {
		if (!existed && (rc = lr_store_make_layout(dir)))
			goto fail;
	} else if (!lr_store_is_dir(dir)) {
		rc = lr_error_set(LR_ENOTFOUND, "cannot open store '%s': no such directory", dir);
		lr_error_hint("record a run first, run 'labrun init', or pass --store DIR");
		goto fail;
	}
	if ((flags & (LR_STORE_CREATE | LR_STORE_WRITE)) && existed && access(dir, W_OK)) {
		rc = lr_error_set(LR_ESTORE, "cannot write to store '%s': %s", dir, strerror(errno));
		lr_error_hint("commands that only read (list, show, cat, sql, report, audit) work on it; "
			      "to write, pass --store DIR on a writable file system");
		goto fail;
	}
	if (store_connect(st, flags) != SQLITE_OK) {
		rc = lr_error_set(LR_ESTORE, "cannot open store '%s': %s", st->db_path,
				  st->db ? sqlite3_errmsg(st->db) : "out of memory");
		if (access(st->db_path, F_OK) != 0)
			lr_error_hint("run 'labrun init' to create it, or pass --store DIR");
		else
			lr_error_hint("check that '%s' is writable, or pass --store DIR", dir);
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	db_busy_install(st->db, &st->busy, st->db_path);
	if ((rc = check_schema(st, &version)))
		goto fail;
	if ((flags & LR_STORE_CREATE) && existed && (rc = lr_store_make_layout(dir)))
		goto fail;
	if (version < lr_migration_count && st->readonly) {
		rc = lr_error_set(LR_ESCHEMA,
				  "cannot open store '%s' read-only: its schema (version %d) needs migrating to %d",
				  dir, version, lr_migration_count);
		lr_error_hint("open it once where it is writable, with any labrun command, to migrate it");
		goto fail;
	}
	if (version < lr_migration_count && (rc = migrate(st)))
		goto fail;
	if ((rc = db_exec(st, "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL", "configure the connection")))
		goto fail;
	*out = st;
	return 0;
fail:
	lr_store_free(st);
	return rc;
}

int lr_store_scratch_begin(struct lr_store *st)
{
	int rc;

	if (st->bulk)
		return 0;
	if ((rc = db_exec(st, "PRAGMA synchronous=OFF; BEGIN IMMEDIATE", "fill a throwaway store")))
		return rc;
	st->bulk = 1;
	return 0;
}

int lr_store_scratch_commit(struct lr_store *st)
{
	if (!st->bulk)
		return 0;
	st->bulk = 0;
	return db_exec(st, "COMMIT", "commit to a throwaway store");
}

static void (*wait_notice)(const char *path);

void lr_store_set_wait_notice(void (*fn)(const char *path))
{
	wait_notice = fn;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SQLite's busy handler: retry for up to BUSY_TIMEOUT_MS, and say so once the wait passes 1 s. */
static int busy_wait(void *arg, int count)
{
	struct db_busy *b = arg;
	double now = seconds();

	if (count == 0) {
		b->since = now;
		b->told = 0;
	}
	if (now - b->since >= BUSY_TIMEOUT_MS / 1000.0)
		return 0;
	if (!b->told && now - b->since >= 1.0 && wait_notice) {
		b->told = 1;
		wait_notice(b->path);
	}
	usleep(count < 20 ? 1000 : 10000);
	return 1;
}

void db_busy_install(sqlite3 *db, struct db_busy *b, const char *path)
{
	b->path = path;
	b->since = 0;
	b->told = 0;
	sqlite3_busy_handler(db, busy_wait, b);
}

void lr_store_free(struct lr_store *st)
{
	if (!st)
		return;
	db_seal_memo_free(st);
	db_kept_free(st);
	sqlite3_close(st->db);
	lr_signer_free(st->signer);
	free(st->unsigned_why);
	free(st->unsigned_hint);
	free(st->now); /* a stamped write never committed */
	free(st->db_path);
	free(st->dir);
	free(st);
}

int lr_store_snapshot_begin(struct lr_store *st)
{
	int rc;

	if (st->snapshot++)
		return 0;
	/* query_only: a write inside fails every time, not only once another process has committed */
	if ((rc = db_exec(st, "BEGIN DEFERRED; SELECT count(*) FROM sqlite_schema; PRAGMA query_only = ON",
			  "begin reading a snapshot"))) {
		sqlite3_exec(st->db, "PRAGMA query_only = OFF; ROLLBACK", NULL, NULL, NULL);
		st->snapshot = 0;
	}
	return rc;
}

void lr_store_snapshot_end(struct lr_store *st)
{
	if (!st->snapshot || --st->snapshot)
		return;
	/* a read transaction: COMMIT and ROLLBACK end it alike */
	sqlite3_exec(st->db, "PRAGMA query_only = OFF; ROLLBACK", NULL, NULL, NULL);
}

int lr_store_integrity(struct lr_store *st)
{
	sqlite3_stmt *s = NULL;
	const char *t;
	int rc;

	if ((rc = db_prepare(st, &s, "PRAGMA integrity_check")))
		return rc;
	if (!db_step_row(st, s, "check integrity", &rc)) {
		if (!rc)
			rc = db_error(st, "check integrity");
	} else {
		t = (const char *)sqlite3_column_text(s, 0);
		if (!t || strcmp(t, "ok")) {
			rc = lr_error_set(LR_ESTORE, "store '%s' fails its integrity check: %s", st->db_path,
					  t ? t : "(no answer)");
			lr_error_hint("restore the store from a copy");
		}
	}
	sqlite3_finalize(s);
	return rc;
}
