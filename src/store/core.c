#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>
#include <sqlite3.h>

#include "base/error.h"
#include "store/objects.h"
#include "store/schema.h"
#include "store/store.h"

#define BUSY_TIMEOUT_MS 60000

struct lr_store {
	char *dir;
	char *db_path;
	sqlite3 *db;
};

const char *lr_store_dir(const struct lr_store *st)
{
	return st->dir;
}

static int db_error(struct lr_store *st, const char *what)
{
	int code = sqlite3_extended_errcode(st->db);
	int rc = lr_error_set(LR_ESTORE, "cannot %s in store '%s': %s", what, st->db_path,
			      sqlite3_errmsg(st->db));

	if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
		lr_error_hint("another labrun may hold the store for a long write; retry, or pass --store");
	else if ((code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN)
		lr_error_hint("check that '%s' is writable, or pass --store DIR", st->dir);
	else if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB)
		lr_error_hint("run 'labrun fsck' and restore the store from a copy");
	return rc;
}

/* ---- locating and opening ------------------------------------------------ */

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int lr_store_find(char **out, int *exists, const char *override, const char *cwd, int for_write)
{
	char path[PATH_MAX], dir[PATH_MAX];
	git_buf root = { 0 };
	char *slash;

	*out = NULL;
	*exists = 0;
	if (override && *override) {
		*out = strdup(override);
		if (!*out)
			return lr_error_set(LR_ENOMEM, "out of memory");
		*exists = is_dir(override);
		if (!*exists && !for_write) {
			lr_error_set(LR_ENOTFOUND, "cannot open store '%s': no such directory", override);
			lr_error_hint("check --store / LABRUN_STORE, or create it with 'labrun init'");
			return LR_ENOTFOUND;
		}
		return 0;
	}

	snprintf(dir, sizeof dir, "%s", cwd);
	for (;;) {
		snprintf(path, sizeof path, "%s/.labrun", strcmp(dir, "/") ? dir : "");
		if (is_dir(path)) {
			*exists = 1;
			*out = strdup(path);
			return *out ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
		}
		slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/"))
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!for_write) {
		lr_error_set(LR_ENOTFOUND, "cannot find a store: no '.labrun' directory in '%s' or above", cwd);
		lr_error_hint("record a run first, run 'labrun init', or pass --store DIR");
		return LR_ENOTFOUND;
	}

	/* A new store goes at the top of the enclosing work tree, else here. */
	if (git_repository_discover(&root, cwd, 0, NULL) == 0) {
		git_repository *repo = NULL;

		if (git_repository_open(&repo, root.ptr) == 0 && !git_repository_is_bare(repo))
			snprintf(dir, sizeof dir, "%s", git_repository_workdir(repo));
		else
			snprintf(dir, sizeof dir, "%s", cwd);
		git_repository_free(repo);
		git_buf_dispose(&root);
	} else {
		snprintf(dir, sizeof dir, "%s", cwd);
	}
	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	snprintf(path, sizeof path, "%s/.labrun", strcmp(dir, "/") ? dir : "");
	*out = strdup(path);
	return *out ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
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

static int exec(struct lr_store *st, const char *sql, const char *what)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(st, what);
	return 0;
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

/* Refuse databases this binary must not touch; *version gets user_version. */
static int check_schema(struct lr_store *st, int *version)
{
	int app = 0, rc;

	if ((rc = pragma_int(st, "application_id", &app)))
		return rc;
	if ((rc = pragma_int(st, "user_version", version)))
		return rc;
	if (app != 0 && app != LR_APPLICATION_ID) {
		lr_error_set(LR_ESCHEMA, "cannot open store '%s': '%s' is not a labrun database (application_id %d)",
			     st->dir, st->db_path, app);
		lr_error_hint("pass --store with the directory of a labrun store");
		return LR_ESCHEMA;
	}
	if (app == 0 && *version != 0) {
		lr_error_set(LR_ESCHEMA, "cannot open store '%s': '%s' is a database of another program",
			     st->dir, st->db_path);
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
	if ((rc = exec(st, "PRAGMA journal_mode=WAL", "switch to WAL mode")))
		goto out;
	if ((rc = exec(st, "BEGIN IMMEDIATE", "start the schema migration")))
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
	/* Integers of our own, not user data: formatting is safe here. */
	snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d",
		 LR_APPLICATION_ID, lr_migration_count);
	if ((rc = exec(st, sql, "record the schema version")))
		goto rollback;
	if ((rc = exec(st, "COMMIT", "commit the schema migration")))
		goto rollback;
	goto out;
rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
out:
	close(fd);
	return rc;
}

/* Create the directory layout of a new store (idempotent). */
static int make_layout(const char *dir)
{
	char p[PATH_MAX];
	FILE *f;
	int rc;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		int e = errno;

		lr_error_set(LR_EIO, "cannot create store '%s': %s", dir, strerror(e));
		if (e == ENOENT)
			lr_error_hint("create the parent directory first, or pass another --store");
		else
			lr_error_hint("pass --store (or LABRUN_STORE) with a writable directory");
		return LR_EIO;
	}
	snprintf(p, sizeof p, "%s/objects", dir);
	if ((rc = lr_mkdir1(p)))
		goto fail;
	snprintf(p, sizeof p, "%s/spool", dir);
	if ((rc = lr_mkdir1(p)))
		goto fail;
	/* Keep the store out of 'git status' (and so out of the diff hash). */
	snprintf(p, sizeof p, "%s/.gitignore", dir);
	if (access(p, F_OK) != 0) {
		f = fopen(p, "w");
		if (!f) {
			rc = lr_error_set(LR_EIO, "cannot create '%s': %s", p, strerror(errno));
			goto fail;
		}
		fputs("# labrun store: not part of the sources\n*\n", f);
		fclose(f);
	}
	return 0;
fail:
	lr_error_hint("pass --store (or LABRUN_STORE) with a writable directory");
	return rc;
}

int lr_store_open(struct lr_store **out, const char *dir, unsigned flags)
{
	struct lr_store *st;
	int version = 0, rc, oflags;

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
	if (flags & LR_STORE_CREATE) {
		if ((rc = make_layout(dir)))
			goto fail;
	} else if (!is_dir(dir)) {
		rc = lr_error_set(LR_ENOTFOUND, "cannot open store '%s': no such directory", dir);
		lr_error_hint("record a run first, run 'labrun init', or pass --store DIR");
		goto fail;
	}
	oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	if (flags & LR_STORE_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(st->db_path, &st->db, oflags, NULL) != SQLITE_OK) {
		rc = lr_error_set(LR_ESTORE, "cannot open store '%s': %s", st->db_path,
				  st->db ? sqlite3_errmsg(st->db) : "out of memory");
		if (access(st->db_path, F_OK) != 0)
			lr_error_hint("run 'labrun init' to create it, or pass --store DIR");
		else
			lr_error_hint("check that '%s' is writable, or pass --store DIR", dir);
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if ((rc = check_schema(st, &version)))
		goto fail;
	if (version < lr_migration_count && (rc = migrate(st)))
		goto fail;
	if ((rc = exec(st, "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL", "configure the connection")))
		goto fail;
	*out = st;
	return 0;
fail:
	lr_store_free(st);
	return rc;
}

void lr_store_free(struct lr_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->db_path);
	free(st->dir);
	free(st);
}

/* ---- statement helpers ---------------------------------------------------- */

static int prepare(struct lr_store *st, sqlite3_stmt **s, const char *sql)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK)
		return db_error(st, "prepare a statement");
	return 0;
}

static void bind_text(sqlite3_stmt *s, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(s, name);

	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static void bind_int(sqlite3_stmt *s, const char *name, int64_t v)
{
	sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, name), v);
}

static void bind_real(sqlite3_stmt *s, const char *name, double v)
{
	sqlite3_bind_double(s, sqlite3_bind_parameter_index(s, name), v);
}

static void bind_null(sqlite3_stmt *s, const char *name)
{
	sqlite3_bind_null(s, sqlite3_bind_parameter_index(s, name));
}

/* Step a statement that returns no rows, then reset it for reuse. */
static int step_done(struct lr_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		rc = db_error(st, what);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return 0;
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? strdup((const char *)t) : NULL;
}

static int begin(struct lr_store *st)
{
	return exec(st, "BEGIN IMMEDIATE", "start a write transaction");
}

static int commit(struct lr_store *st, int rc)
{
	if (rc == 0)
		rc = exec(st, "COMMIT", "commit");
	if (rc)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* ---- writing runs --------------------------------------------------------- */

/* Step an INSERT ... RETURNING id statement and finalise it. */
static int returning_id(struct lr_store *st, sqlite3_stmt *s, const char *what, int64_t *id)
{
	int rc = 0;

	if (sqlite3_step(s) == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	else
		rc = db_error(st, what);
	sqlite3_finalize(s);
	return rc;
}

static int host_id(struct lr_store *st, const struct lr_host *h, int64_t *id)
{
	/* The no-op update makes RETURNING give the id of an existing row too. */
	static const char sql[] =
		"INSERT INTO host(fingerprint, hostname, os, kernel, arch, cpu_model, cpu_flags, cores, memory_bytes)"
		" VALUES (:fp, :hostname, :os, :kernel, :arch, :cpu_model, :cpu_flags, :cores, :memory)"
		" ON CONFLICT(fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint RETURNING id";
	sqlite3_stmt *s = NULL;
	char fp[LR_SHA256_HEX], *text = NULL;
	int rc;

	if (asprintf(&text, "%s\n%s\n%s\n%s\n%s\n%s\n%lld\n%lld", h->hostname, h->os ? h->os : "",
		     h->kernel, h->arch, h->cpu_model ? h->cpu_model : "",
		     h->cpu_flags ? h->cpu_flags : "", (long long)h->cores,
		     (long long)h->memory_bytes) < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_sha256_buf(text, strlen(text), fp);
	free(text);
	if (rc || (rc = prepare(st, &s, sql)))
		return rc;
	bind_text(s, ":fp", fp);
	bind_text(s, ":hostname", h->hostname);
	bind_text(s, ":os", h->os);
	bind_text(s, ":kernel", h->kernel);
	bind_text(s, ":arch", h->arch);
	bind_text(s, ":cpu_model", h->cpu_model);
	bind_text(s, ":cpu_flags", h->cpu_flags);
	bind_int(s, ":cores", h->cores);
	if (h->memory_bytes)
		bind_int(s, ":memory", h->memory_bytes);
	return returning_id(st, s, "record the host", id);
}

static int experiment_id(struct lr_store *st, const char *name, const char *now, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO experiment(name, created_at) VALUES (:name, :now)"
		" ON CONFLICT(name) DO UPDATE SET name = excluded.name RETURNING id";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_text(s, ":name", name);
	bind_text(s, ":now", now);
	return returning_id(st, s, "record the experiment", id);
}

/* Insert every key/value of 'l' with one prepared statement. */
static int insert_kvs(struct lr_store *st, int64_t run_id, const struct lr_kvlist *l,
		      const char *sql, const char *what)
{
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if (!l->n)
		return 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	for (i = 0; i < l->n && !rc; i++) {
		bind_int(s, ":run", run_id);
		bind_text(s, ":key", l->v[i].key);
		bind_text(s, ":value", l->v[i].value);
		if (sqlite3_bind_parameter_index(s, ":tag"))
			bind_text(s, ":tag", l->v[i].tag ? l->v[i].tag : "user");
		if (sqlite3_bind_parameter_index(s, ":redacted"))
			bind_int(s, ":redacted", l->v[i].tag && !strcmp(l->v[i].tag, "redacted"));
		rc = step_done(st, s, what);
	}
	sqlite3_finalize(s);
	return rc;
}

static int insert_artifacts(struct lr_store *st, int64_t run_id, const struct lr_artifact *a,
			    size_t n, const char *now)
{
	static const char obj[] =
		"INSERT INTO object(sha256, size, created_at) VALUES (:sha, :size, :now)"
		" ON CONFLICT(sha256) DO NOTHING";
	static const char art[] =
		"INSERT INTO artifact(run_id, role, name, sha256, size) VALUES (:run, :role, :name, :sha, :size)";
	sqlite3_stmt *so = NULL, *sa = NULL;
	size_t i;
	int rc;

	if (!n)
		return 0;
	if ((rc = prepare(st, &so, obj)) || (rc = prepare(st, &sa, art)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		if (a[i].present) {
			bind_text(so, ":sha", a[i].sha256);
			bind_int(so, ":size", a[i].size);
			bind_text(so, ":now", now);
			if ((rc = step_done(st, so, "record an object")))
				break;
			bind_text(sa, ":sha", a[i].sha256);
			bind_int(sa, ":size", a[i].size);
		} else {
			bind_null(sa, ":sha");
			bind_null(sa, ":size");
		}
		bind_int(sa, ":run", run_id);
		bind_text(sa, ":role", a[i].role);
		bind_text(sa, ":name", a[i].name);
		rc = step_done(st, sa, "record an artifact");
		if (rc)
			lr_error_wrap("artifact '%s'", a[i].name);
	}
out:
	sqlite3_finalize(so);
	sqlite3_finalize(sa);
	return rc;
}

static int insert_sources(struct lr_store *st, const struct lr_run *r)
{
	static const char state[] =
		"INSERT INTO source_state(run_id, repo_path, head, branch, dirty, diff_sha256)"
		" VALUES (:run, :repo, :head, :branch, :dirty, :diff)";
	static const char file[] =
		"INSERT INTO source_file(run_id, path, sha256, size, git_status)"
		" VALUES (:run, :path, :sha, :size, :status)";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc = 0;

	if (r->source.present) {
		if ((rc = prepare(st, &s, state)))
			return rc;
		bind_int(s, ":run", r->id);
		bind_text(s, ":repo", r->source.repo_path);
		bind_text(s, ":head", r->source.head);
		bind_text(s, ":branch", r->source.branch);
		bind_int(s, ":dirty", r->source.dirty);
		bind_text(s, ":diff", r->source.diff_sha256);
		rc = step_done(st, s, "record the source state");
		sqlite3_finalize(s);
		s = NULL;
		if (rc)
			return rc;
	}
	if (!r->nfiles)
		return 0;
	if ((rc = prepare(st, &s, file)))
		return rc;
	for (i = 0; i < r->nfiles && !rc; i++) {
		const struct lr_srcfile *f = &r->files[i];

		bind_int(s, ":run", r->id);
		bind_text(s, ":path", f->path);
		bind_text(s, ":status", f->status);
		if (f->has_content) {
			bind_text(s, ":sha", f->sha256);
			bind_int(s, ":size", f->size);
		}
		rc = step_done(st, s, "record a source file");
	}
	sqlite3_finalize(s);
	return rc;
}

static int insert_run_row(struct lr_store *st, struct lr_run *r)
{
	static const char sql[] =
		"INSERT INTO run(uuid, kind, experiment_id, host_id, status, started_at, cwd, argv_json,"
		" labrun_version, replay_of, note)"
		" VALUES (:uuid, :kind, :exp, :host, 'running', :started, :cwd, :argv, :version, :replay, :note)";
	int64_t hid = 0, eid = 0;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = host_id(st, &r->host, &hid)))
		return rc;
	if (r->experiment && (rc = experiment_id(st, r->experiment, r->started_at, &eid)))
		return rc;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_text(s, ":uuid", r->uuid);
	bind_text(s, ":kind", r->kind);
	if (eid)
		bind_int(s, ":exp", eid);
	bind_int(s, ":host", hid);
	bind_text(s, ":started", r->started_at);
	bind_text(s, ":cwd", r->cwd);
	bind_text(s, ":argv", r->argv_json);
	bind_text(s, ":version", r->labrun_version);
	if (r->replay_of)
		bind_int(s, ":replay", r->replay_of);
	bind_text(s, ":note", r->note);
	rc = step_done(st, s, "record the run");
	sqlite3_finalize(s);
	if (!rc)
		r->id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int lr_store_run_begin(struct lr_store *st, struct lr_run *r)
{
	static const char issue[] = "INSERT INTO run_issue(run_id, issue_ref) VALUES (:run, :ref)";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if ((rc = begin(st)))
		return rc;
	if ((rc = insert_run_row(st, r)))
		goto out;
	if ((rc = insert_sources(st, r)))
		goto out;
	if ((rc = insert_kvs(st, r->id, &r->env,
			     "INSERT INTO env_var(run_id, name, value, redacted) VALUES (:run, :key, :value, :redacted)",
			     "record the environment")))
		goto out;
	if ((rc = insert_kvs(st, r->id, &r->binding,
			     "INSERT INTO binding(run_id, key, value, origin) VALUES (:run, :key, :value, :tag)",
			     "record the device binding")))
		goto out;
	if ((rc = insert_kvs(st, r->id, &r->geometry,
			     "INSERT INTO geometry(run_id, key, value) VALUES (:run, :key, :value)",
			     "record the geometry")))
		goto out;
	if ((rc = insert_kvs(st, r->id, &r->tools,
			     "INSERT INTO tool_version(run_id, name, version) VALUES (:run, :key, :value)",
			     "record the tool versions")))
		goto out;
	if (r->issues.n) {
		if ((rc = prepare(st, &s, issue)))
			goto out;
		for (i = 0; i < r->issues.n && !rc; i++) {
			bind_int(s, ":run", r->id);
			bind_text(s, ":ref", r->issues.v[i]);
			rc = step_done(st, s, "record the issue references");
		}
		sqlite3_finalize(s);
		if (rc)
			goto out;
	}
	rc = insert_artifacts(st, r->id, r->artifacts, r->nartifacts, r->started_at);
out:
	rc = commit(st, rc);
	if (rc)
		r->id = 0;
	return rc;
}

/* ---- seals: a digest per table of a run's rows ------------------------------ */

/* Each query returns one run's rows of a table in a fixed order; every column counts. */
static const struct {
	const char *table, *sql;
} seal_queries[] = {
	{ "run", "SELECT * FROM run WHERE id = :run" },
	{ "source_state", "SELECT * FROM source_state WHERE run_id = :run" },
	{ "source_file", "SELECT * FROM source_file WHERE run_id = :run ORDER BY path" },
	{ "env_var", "SELECT * FROM env_var WHERE run_id = :run ORDER BY name" },
	{ "binding", "SELECT * FROM binding WHERE run_id = :run ORDER BY key" },
	{ "geometry", "SELECT * FROM geometry WHERE run_id = :run ORDER BY key" },
	{ "tool_version", "SELECT * FROM tool_version WHERE run_id = :run ORDER BY name" },
	{ "artifact", "SELECT * FROM artifact WHERE run_id = :run ORDER BY role, name" },
	{ "run_issue", "SELECT * FROM run_issue WHERE run_id = :run ORDER BY issue_ref" },
	{ "measurement", "SELECT * FROM measurement WHERE run_id = :run ORDER BY name" },
	{ "run_definition", "SELECT * FROM run_definition WHERE run_id = :run" },
	{ "arm", "SELECT * FROM arm WHERE run_id = :run ORDER BY idx" },
	{ "condition", "SELECT * FROM condition WHERE run_id = :run ORDER BY idx" },
	{ "parity", "SELECT * FROM parity WHERE run_id = :run ORDER BY condition_idx, arm_idx" },
	{ "repetition", "SELECT * FROM repetition WHERE run_id = :run ORDER BY condition_idx, block, slot" },
	{ "replay_check", "SELECT * FROM replay_check WHERE run_id = :run ORDER BY item" },
};

/* JSON of table -> sha256 for run 'id' (malloc'd), and its own sha256. */
static int seal_compute(struct lr_store *st, int64_t id, char **tables, char digest[LR_SHA256_HEX])
{
	json_t *o = json_object();
	size_t q;
	int rc = 0;

	*tables = NULL;
	for (q = 0; q < sizeof seal_queries / sizeof seal_queries[0] && !rc; q++) {
		sqlite3_stmt *s = NULL;
		struct lr_sha256 h;
		char hex[LR_SHA256_HEX];
		int c, n;

		if ((rc = prepare(st, &s, seal_queries[q].sql)) || (rc = lr_sha256_init(&h))) {
			sqlite3_finalize(s);
			break;
		}
		bind_int(s, ":run", id);
		while (sqlite3_step(s) == SQLITE_ROW) {
			n = sqlite3_column_count(s);
			for (c = 0; c < n; c++) {
				/* the type, then the value: numbers by their binary value (text forms of
				 * doubles differ between SQLite builds), text and blobs by their bytes */
				unsigned char type = (unsigned char)sqlite3_column_type(s, c), le[8];
				uint64_t bits = 0;
				int b;

				lr_sha256_update(&h, &type, 1);
				if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
					if (type == SQLITE_INTEGER) {
						bits = (uint64_t)sqlite3_column_int64(s, c);
					} else {
						double d = sqlite3_column_double(s, c);

						memcpy(&bits, &d, sizeof bits);
					}
					for (b = 0; b < 8; b++)
						le[b] = (unsigned char)(bits >> (8 * b));
					lr_sha256_update(&h, le, 8);
				} else if (type != SQLITE_NULL) {
					const void *t = type == SQLITE_BLOB ? sqlite3_column_blob(s, c) : sqlite3_column_text(s, c);

					if (t)
						lr_sha256_update(&h, t, (size_t)sqlite3_column_bytes(s, c));
				}
				lr_sha256_update(&h, "\x1f", 1);
			}
			lr_sha256_update(&h, "\x1e", 1);
		}
		sqlite3_finalize(s);
		lr_sha256_final(&h, hex);
		json_object_set_new(o, seal_queries[q].table, json_string(hex));
	}
	if (!rc) {
		*tables = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		rc = *tables ? lr_sha256_buf(*tables, strlen(*tables), digest) : lr_error_set(LR_ENOMEM, "out of memory");
	}
	json_decref(o);
	return rc;
}

/* Write (or rewrite) the seal of run 'id'; call inside a write transaction. */
static int seal_run(struct lr_store *st, int64_t id, const char *now)
{
	static const char sql[] =
		"INSERT INTO run_seal(run_id, digest, tables, sealed_at) VALUES (:run, :digest, :tables, :now)"
		" ON CONFLICT(run_id) DO UPDATE SET digest = excluded.digest, tables = excluded.tables,"
		" sealed_at = excluded.sealed_at";
	char digest[LR_SHA256_HEX], *tables = NULL;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = seal_compute(st, id, &tables, digest)) || (rc = prepare(st, &s, sql)))
		goto out;
	bind_int(s, ":run", id);
	bind_text(s, ":digest", digest);
	bind_text(s, ":tables", tables);
	bind_text(s, ":now", now);
	rc = step_done(st, s, "seal the run");
out:
	sqlite3_finalize(s);
	free(tables);
	return rc;
}

int lr_store_seal_check(struct lr_store *st, int64_t id, lr_str_fn changed, void *arg, int *sealed)
{
	char digest[LR_SHA256_HEX], *now = NULL, *stored = NULL;
	json_t *a = NULL, *b = NULL, *v;
	const char *k;
	sqlite3_stmt *s = NULL;
	int rc;

	*sealed = 0;
	if ((rc = prepare(st, &s, "SELECT tables FROM run_seal WHERE run_id = :run")))
		return rc;
	bind_int(s, ":run", id);
	if (sqlite3_step(s) == SQLITE_ROW)
		stored = col_dup(s, 0);
	sqlite3_finalize(s);
	if (!stored)
		return 0;
	*sealed = 1;
	if ((rc = seal_compute(st, id, &now, digest)))
		goto out;
	a = json_loads(stored, 0, NULL);
	b = json_loads(now, 0, NULL);
	if (!a || !b) {
		rc = changed(arg, "run_seal");
		goto out;
	}
	json_object_foreach(b, k, v) {
		json_t *o = json_object_get(a, k);

		if (!o || !json_equal(o, v))
			if ((rc = changed(arg, k)))
				break;
	}
out:
	json_decref(a);
	json_decref(b);
	free(stored);
	free(now);
	return rc;
}

static int insert_measures(struct lr_store *st, const struct lr_run *r)
{
	static const char sql[] =
		"INSERT INTO measurement(run_id, name, value, unit, modelled) VALUES (:run, :name, :value, :unit, :modelled)";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if (!r->nmeasures)
		return 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	for (i = 0; i < r->nmeasures && !rc; i++) {
		bind_int(s, ":run", r->id);
		bind_text(s, ":name", r->measures[i].name);
		bind_real(s, ":value", r->measures[i].value);
		bind_text(s, ":unit", r->measures[i].unit);
		bind_int(s, ":modelled", r->measures[i].modelled);
		rc = step_done(st, s, "record a measurement");
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_run_finish(struct lr_store *st, const struct lr_run *r, size_t first_new_artifact)
{
	static const char sql[] =
		"UPDATE run SET status = :status, ended_at = :ended, exit_code = :exit, signal = :signal,"
		" timed_out = :timed_out, failure = :failure, wall_s = :wall, user_s = :user, sys_s = :sys,"
		" peak_rss_kib = :rss WHERE id = :id AND status = 'running'";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = begin(st)))
		return rc;
	if ((rc = prepare(st, &s, sql)))
		goto out;
	bind_text(s, ":status", lr_status_name(r->status));
	bind_text(s, ":ended", r->ended_at);
	if (r->has_exit)
		bind_int(s, ":exit", r->exit_code);
	if (r->signal)
		bind_int(s, ":signal", r->signal);
	bind_int(s, ":timed_out", r->timed_out);
	bind_text(s, ":failure", r->failure);
	bind_real(s, ":wall", r->wall_s);
	bind_real(s, ":user", r->user_s);
	bind_real(s, ":sys", r->sys_s);
	bind_int(s, ":rss", r->peak_rss_kib);
	bind_int(s, ":id", r->id);
	if ((rc = step_done(st, s, "finalise the run")))
		goto out;
	if (sqlite3_changes(st->db) != 1) {
		rc = lr_error_set(LR_ESTORE, "cannot finalise run %lld: it is no longer running",
				  (long long)r->id);
		lr_error_hint("another labrun marked it abandoned; run 'labrun fsck' and check the clock");
		goto out;
	}
	if (first_new_artifact < r->nartifacts)
		rc = insert_artifacts(st, r->id, r->artifacts + first_new_artifact,
				      r->nartifacts - first_new_artifact, r->ended_at);
	if (!rc)
		rc = insert_measures(st, r);
	if (!rc)
		rc = seal_run(st, r->id, r->ended_at);
out:
	sqlite3_finalize(s);
	return commit(st, rc);
}

int lr_store_running(struct lr_store *st, struct lr_running **out, size_t *n)
{
	static const char sql[] = "SELECT id, uuid FROM run WHERE status = 'running' ORDER BY id";
	struct lr_running *v = NULL, *p;
	size_t cnt = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc = 0, step;

	*out = NULL;
	*n = 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 8;
			p = realloc(v, cap * sizeof *v);
			if (!p) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				goto out;
			}
			v = p;
		}
		v[cnt].id = sqlite3_column_int64(s, 0);
		snprintf(v[cnt].uuid, sizeof v[cnt].uuid, "%s", (const char *)sqlite3_column_text(s, 1));
		cnt++;
	}
	if (step != SQLITE_DONE)
		rc = db_error(st, "list running runs");
out:
	sqlite3_finalize(s);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int lr_store_run_abandon(struct lr_store *st, int64_t id, const char *ended_at,
			 const struct lr_artifact *logs, size_t nlogs, int *changed)
{
	static const char sql[] =
		"UPDATE run SET status = 'abandoned', ended_at = :ended,"
		" failure = 'the recorder stopped before finalising the run (killed, crashed or lost power)'"
		" WHERE id = :id AND status = 'running'";
	sqlite3_stmt *s = NULL;
	int rc;

	*changed = 0;
	if ((rc = begin(st)))
		return rc;
	if ((rc = prepare(st, &s, sql)))
		goto out;
	bind_text(s, ":ended", ended_at);
	bind_int(s, ":id", id);
	if ((rc = step_done(st, s, "mark a run abandoned")))
		goto out;
	*changed = sqlite3_changes(st->db) == 1;
	if (*changed)
		rc = insert_artifacts(st, id, logs, nlogs, ended_at);
	if (*changed && !rc)
		rc = seal_run(st, id, ended_at);
out:
	sqlite3_finalize(s);
	rc = commit(st, rc);
	if (rc)
		*changed = 0;
	return rc;
}

/* ---- reading runs --------------------------------------------------------- */

int lr_store_run_resolve(struct lr_store *st, const char *ref, int64_t *id)
{
	sqlite3_stmt *s = NULL;
	const char *p;
	int rc = 0, n = 0, isnum = *ref != '\0';

	for (p = ref; *p; p++)
		if (*p < '0' || *p > '9')
			isnum = 0;
	if (!strcmp(ref, "last")) {
		rc = prepare(st, &s, "SELECT id FROM run ORDER BY id DESC LIMIT 1");
	} else if (isnum) {
		rc = prepare(st, &s, "SELECT id FROM run WHERE id = :ref");
		if (!rc)
			bind_int(s, ":ref", strtoll(ref, NULL, 10));
	} else {
		if (strlen(ref) < 4 || strspn(ref, "0123456789abcdef-") != strlen(ref)) {
			lr_error_set(LR_EINVAL, "cannot find run '%s': not a run id, uuid or 'last'", ref);
			lr_error_hint("use the short id from 'labrun list', or at least 4 characters of the uuid");
			return LR_EINVAL;
		}
		/* A prefix match with a range keeps the index usable and needs no LIKE escaping. */
		rc = prepare(st, &s, "SELECT id FROM run WHERE uuid >= :ref AND uuid < :ref || 'g' LIMIT 2");
		if (!rc)
			bind_text(s, ":ref", ref);
	}
	if (rc)
		return rc;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		n++;
	}
	sqlite3_finalize(s);
	if (n == 1)
		return 0;
	if (n > 1) {
		lr_error_set(LR_EINVAL, "cannot find run '%s': the uuid prefix matches several runs", ref);
		lr_error_hint("give more characters of the uuid, or the short id");
		return LR_EINVAL;
	}
	lr_error_set(LR_ENOTFOUND, "cannot find run '%s' in store '%s'", ref, st->dir);
	lr_error_hint("'labrun list' shows the recorded runs");
	return LR_ENOTFOUND;
}

#define RUN_COLUMNS \
	"r.id, r.uuid, r.kind, e.name, r.status, r.started_at, r.ended_at, r.exit_code, r.signal," \
	" r.timed_out, r.failure, r.wall_s, r.user_s, r.sys_s, r.peak_rss_kib, r.cwd, r.argv_json," \
	" r.labrun_version, r.replay_of, r.note, r.host_id"

/* Fill the summary fields of 'r' from a row of RUN_COLUMNS. */
static int read_run_row(sqlite3_stmt *s, struct lr_run *r)
{
	const char *uuid = (const char *)sqlite3_column_text(s, 1);

	r->id = sqlite3_column_int64(s, 0);
	snprintf(r->uuid, sizeof r->uuid, "%s", uuid ? uuid : "");
	r->kind = col_dup(s, 2);
	r->experiment = col_dup(s, 3);
	r->status = lr_status_parse((const char *)sqlite3_column_text(s, 4));
	r->started_at = col_dup(s, 5);
	r->ended_at = col_dup(s, 6);
	r->has_exit = sqlite3_column_type(s, 7) != SQLITE_NULL;
	r->exit_code = sqlite3_column_int(s, 7);
	r->signal = sqlite3_column_int(s, 8);
	r->timed_out = sqlite3_column_int(s, 9);
	r->failure = col_dup(s, 10);
	r->wall_s = sqlite3_column_double(s, 11);
	r->user_s = sqlite3_column_double(s, 12);
	r->sys_s = sqlite3_column_double(s, 13);
	r->peak_rss_kib = sqlite3_column_int64(s, 14);
	r->cwd = col_dup(s, 15);
	r->argv_json = col_dup(s, 16);
	r->labrun_version = col_dup(s, 17);
	r->replay_of = sqlite3_column_int64(s, 18);
	r->note = col_dup(s, 19);
	if (!r->kind || !r->started_at || !r->cwd || !r->argv_json || !r->labrun_version)
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

static int load_issues(struct lr_store *st, int64_t id, struct lr_strlist *l)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT issue_ref FROM run_issue WHERE run_id = :run ORDER BY issue_ref")))
		return rc;
	bind_int(s, ":run", id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = lr_strlist_add(l, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc;
}

static int load_kvs(struct lr_store *st, int64_t id, struct lr_kvlist *l, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_int(s, ":run", id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = lr_kvlist_add(l, (const char *)sqlite3_column_text(s, 0),
				   (const char *)sqlite3_column_text(s, 1),
				   (const char *)sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	return rc;
}

static int load_host(struct lr_store *st, int64_t host, struct lr_host *h)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT hostname, os, kernel, arch, cpu_model, cpu_flags, cores,"
				  " memory_bytes FROM host WHERE id = :id")))
		return rc;
	bind_int(s, ":id", host);
	if (sqlite3_step(s) == SQLITE_ROW) {
		h->hostname = col_dup(s, 0);
		h->os = col_dup(s, 1);
		h->kernel = col_dup(s, 2);
		h->arch = col_dup(s, 3);
		h->cpu_model = col_dup(s, 4);
		h->cpu_flags = col_dup(s, 5);
		h->cores = sqlite3_column_int64(s, 6);
		h->memory_bytes = sqlite3_column_int64(s, 7);
	} else {
		rc = db_error(st, "load the host");
	}
	sqlite3_finalize(s);
	return rc;
}

static int load_sources(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT repo_path, head, branch, dirty, diff_sha256 FROM source_state"
				  " WHERE run_id = :run")))
		return rc;
	bind_int(s, ":run", r->id);
	if (sqlite3_step(s) == SQLITE_ROW) {
		r->source.present = 1;
		r->source.repo_path = col_dup(s, 0);
		r->source.head = col_dup(s, 1);
		r->source.branch = col_dup(s, 2);
		r->source.dirty = sqlite3_column_int(s, 3);
		snprintf(r->source.diff_sha256, LR_SHA256_HEX, "%s", (const char *)sqlite3_column_text(s, 4));
	}
	sqlite3_finalize(s);
	if ((rc = prepare(st, &s, "SELECT path, git_status, sha256, size FROM source_file"
				  " WHERE run_id = :run ORDER BY path")))
		return rc;
	bind_int(s, ":run", r->id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = lr_run_add_file(r, (const char *)sqlite3_column_text(s, 0),
				     (const char *)sqlite3_column_text(s, 1),
				     (const char *)sqlite3_column_text(s, 2), sqlite3_column_int64(s, 3));
	sqlite3_finalize(s);
	return rc;
}

static int load_artifacts(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT role, name, sha256, size FROM artifact WHERE run_id = :run"
				  " ORDER BY CASE role WHEN 'stdout' THEN 0 WHEN 'stderr' THEN 1 ELSE 2 END,"
				  " role, name")))
		return rc;
	bind_int(s, ":run", r->id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = lr_run_add_artifact(r, (const char *)sqlite3_column_text(s, 0),
					 (const char *)sqlite3_column_text(s, 1),
					 (const char *)sqlite3_column_text(s, 2), sqlite3_column_int64(s, 3));
	sqlite3_finalize(s);
	return rc;
}

static int load_measures(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT name, value, unit, modelled FROM measurement WHERE run_id = :run"
				  " ORDER BY rowid")))
		return rc;
	bind_int(s, ":run", r->id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = lr_run_add_measure(r, (const char *)sqlite3_column_text(s, 0), sqlite3_column_double(s, 1),
					(const char *)sqlite3_column_text(s, 2), sqlite3_column_int(s, 3));
	sqlite3_finalize(s);
	return rc;
}

int lr_store_run_load(struct lr_store *st, int64_t id, struct lr_run *r)
{
	static const char sql[] = "SELECT " RUN_COLUMNS " FROM run r"
				  " LEFT JOIN experiment e ON e.id = r.experiment_id WHERE r.id = :id";
	sqlite3_stmt *s = NULL;
	int64_t host = 0;
	int rc;

	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_int(s, ":id", id);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return lr_error_set(LR_ENOTFOUND, "cannot find run %lld in store '%s'", (long long)id, st->dir);
	}
	rc = read_run_row(s, r);
	host = sqlite3_column_int64(s, 20);
	sqlite3_finalize(s);
	if (rc || (rc = load_host(st, host, &r->host)) || (rc = load_sources(st, r)) ||
	    (rc = load_issues(st, id, &r->issues)))
		return rc;
	if ((rc = load_kvs(st, id, &r->env, "SELECT name, value, CASE redacted WHEN 1 THEN 'redacted' END"
					    " FROM env_var WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->binding, "SELECT key, value, origin FROM binding"
						" WHERE run_id = :run ORDER BY key")) ||
	    (rc = load_kvs(st, id, &r->geometry, "SELECT key, value, NULL FROM geometry"
						 " WHERE run_id = :run ORDER BY key")) ||
	    (rc = load_kvs(st, id, &r->tools, "SELECT name, version, NULL FROM tool_version"
					      " WHERE run_id = :run ORDER BY name")))
		return rc;
	if ((rc = load_artifacts(st, r)))
		return rc;
	return load_measures(st, r);
}

int lr_store_run_list(struct lr_store *st, const struct lr_run_filter *f, lr_run_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT " RUN_COLUMNS " FROM run r LEFT JOIN experiment e ON e.id = r.experiment_id"
		" WHERE (:issue IS NULL OR EXISTS (SELECT 1 FROM run_issue i"
		"        WHERE i.run_id = r.id AND i.issue_ref = :issue))"
		"   AND (:exp IS NULL OR e.name = :exp)"
		"   AND (:status IS NULL OR r.status = :status)"
		" ORDER BY r.id DESC LIMIT :limit";
	sqlite3_stmt *s = NULL;
	struct lr_run r;
	int rc, step;

	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_text(s, ":issue", f->issue);
	bind_text(s, ":exp", f->experiment);
	bind_text(s, ":status", f->status >= 0 ? lr_status_name(f->status) : NULL);
	bind_int(s, ":limit", f->limit > 0 ? f->limit : -1);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		lr_run_init(&r);
		rc = read_run_row(s, &r);
		if (!rc)
			rc = load_issues(st, r.id, &r.issues);
		if (!rc)
			rc = fn(arg, &r);
		lr_run_release(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_error(st, "list runs");
	sqlite3_finalize(s);
	return rc;
}

int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256,
			     const char *text, const struct lr_store_arm *arms, int narms)
{
	static const char def[] =
		"INSERT INTO run_definition(run_id, path, sha256, text) VALUES (:run, :path, :sha, :text)";
	static const char arm[] =
		"INSERT INTO arm(run_id, idx, name, kernel, contract, layout, mode, threads)"
		" VALUES (:run, :idx, :name, :kernel, :contract, :layout, :mode, :threads)";
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = begin(st)))
		return rc;
	if ((rc = prepare(st, &s, def)))
		goto out;
	bind_int(s, ":run", run);
	bind_text(s, ":path", path);
	bind_text(s, ":sha", sha256);
	bind_text(s, ":text", text);
	rc = step_done(st, s, "record the experiment definition");
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = prepare(st, &s, arm)))
		goto out;
	for (i = 0; i < narms && !rc; i++) {
		bind_int(s, ":run", run);
		bind_int(s, ":idx", i);
		bind_text(s, ":name", arms[i].name);
		bind_text(s, ":kernel", arms[i].kernel);
		bind_text(s, ":contract", arms[i].contract);
		bind_text(s, ":layout", arms[i].layout);
		bind_text(s, ":mode", arms[i].mode);
		bind_int(s, ":threads", arms[i].threads);
		rc = step_done(st, s, "record an arm");
	}
out:
	sqlite3_finalize(s);
	return commit(st, rc);
}

int lr_store_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c,
		       const char *const *arm_sha, const int *matches, int narms,
		       const struct lr_store_rep *reps, int nreps)
{
	static const char cond[] =
		"INSERT INTO condition(run_id, idx, model, layers, kv_heads, head_dim, tokens, elements, inner, status, failure)"
		" VALUES (:run, :idx, :model, :layers, :kv_heads, :head_dim, :tokens, :elements, :inner, :status, :failure)";
	static const char par[] =
		"INSERT INTO parity(run_id, condition_idx, arm_idx, output_sha256, matches)"
		" VALUES (:run, :cond, :arm, :sha, :matches)";
	static const char rep[] =
		"INSERT INTO repetition(run_id, condition_idx, block, slot, arm_idx, warmup, wall_s, cpu_s,"
		" invol_switches, steal_ticks, interfered)"
		" VALUES (:run, :cond, :block, :slot, :arm, :warmup, :wall, :cpu, :invol, :steal, :interfered)";
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = begin(st)))
		return rc;
	if ((rc = prepare(st, &s, cond)))
		goto out;
	bind_int(s, ":run", run);
	bind_int(s, ":idx", c->idx);
	bind_text(s, ":model", c->model);
	bind_int(s, ":layers", c->layers);
	bind_int(s, ":kv_heads", c->kv_heads);
	bind_int(s, ":head_dim", c->head_dim);
	bind_int(s, ":tokens", c->tokens);
	bind_int(s, ":elements", c->elements);
	bind_int(s, ":inner", c->inner);
	bind_text(s, ":status", c->status);
	bind_text(s, ":failure", c->failure);
	rc = step_done(st, s, "record a condition");
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = prepare(st, &s, par)))
		goto out;
	for (i = 0; i < narms && !rc; i++) {
		if (!arm_sha[i])
			continue;
		bind_int(s, ":run", run);
		bind_int(s, ":cond", c->idx);
		bind_int(s, ":arm", i);
		bind_text(s, ":sha", arm_sha[i]);
		bind_int(s, ":matches", matches[i]);
		rc = step_done(st, s, "record a parity check");
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = prepare(st, &s, rep)))
		goto out;
	for (i = 0; i < nreps && !rc; i++) {
		bind_int(s, ":run", run);
		bind_int(s, ":cond", c->idx);
		bind_int(s, ":block", reps[i].block);
		bind_int(s, ":slot", reps[i].slot);
		bind_int(s, ":arm", reps[i].arm);
		bind_int(s, ":warmup", reps[i].warmup);
		bind_real(s, ":wall", reps[i].wall_s);
		bind_real(s, ":cpu", reps[i].cpu_s);
		bind_int(s, ":invol", reps[i].invol_switches);
		bind_int(s, ":steal", reps[i].steal_ticks);
		bind_int(s, ":interfered", reps[i].interfered);
		rc = step_done(st, s, "record a repetition");
	}
out:
	sqlite3_finalize(s);
	return commit(st, rc);
}

int lr_store_definition(struct lr_store *st, int64_t run, char **path, char **text)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*path = *text = NULL;
	if ((rc = prepare(st, &s, "SELECT path, text FROM run_definition WHERE run_id = :run")))
		return rc;
	bind_int(s, ":run", run);
	if (sqlite3_step(s) == SQLITE_ROW) {
		*path = col_dup(s, 0);
		*text = col_dup(s, 1);
		if (!*path || !*text)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
	} else {
		rc = lr_error_set(LR_ENOTFOUND, "run %lld has no stored experiment definition", (long long)run);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_parity_hashes(struct lr_store *st, int64_t run, int ncond, int narm, char *hex)
{
	sqlite3_stmt *s = NULL;
	int rc;

	memset(hex, 0, (size_t)ncond * (size_t)narm * 65);
	if ((rc = prepare(st, &s, "SELECT condition_idx, arm_idx, output_sha256 FROM parity WHERE run_id = :run")))
		return rc;
	bind_int(s, ":run", run);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int c = sqlite3_column_int(s, 0), a = sqlite3_column_int(s, 1);

		if (c >= 0 && c < ncond && a >= 0 && a < narm)
			snprintf(hex + ((size_t)c * (size_t)narm + (size_t)a) * 65, 65, "%s",
				 (const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	return 0;
}

int lr_store_arm_times(struct lr_store *st, int64_t run, int cond, int arm, double *out, int max, int *n)
{
	static const char sql[] =
		"SELECT r.wall_s / c.inner FROM repetition r JOIN condition c ON c.run_id = r.run_id AND c.idx = r.condition_idx"
		" WHERE r.run_id = :run AND r.condition_idx = :cond AND r.arm_idx = :arm AND r.warmup = 0"
		" ORDER BY r.block, r.slot";
	sqlite3_stmt *s = NULL;
	int rc;

	*n = 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_int(s, ":run", run);
	bind_int(s, ":cond", cond);
	bind_int(s, ":arm", arm);
	while (*n < max && sqlite3_step(s) == SQLITE_ROW)
		out[(*n)++] = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return 0;
}

int lr_store_arm_names(struct lr_store *st, int64_t run, char (*names)[32], char (*kernels)[32], int max, int *n)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*n = 0;
	if ((rc = prepare(st, &s, "SELECT name, kernel FROM arm WHERE run_id = :run ORDER BY idx")))
		return rc;
	bind_int(s, ":run", run);
	while (*n < max && sqlite3_step(s) == SQLITE_ROW) {
		snprintf(names[*n], 32, "%s", (const char *)sqlite3_column_text(s, 0));
		snprintf(kernels[*n], 32, "%s", (const char *)sqlite3_column_text(s, 1));
		(*n)++;
	}
	sqlite3_finalize(s);
	return 0;
}

int lr_store_conditions(struct lr_store *st, int64_t run, struct lr_store_condition_row **out, int *n)
{
	static const char sql[] =
		"SELECT c.idx, c.model, c.layers, c.tokens, c.inner, c.status, c.failure,"
		" (SELECT count(*) FROM repetition r WHERE r.run_id = c.run_id AND r.condition_idx = c.idx"
		"  AND r.warmup = 0 AND r.interfered = 1)"
		" FROM condition c WHERE c.run_id = :run ORDER BY c.idx";
	struct lr_store_condition_row *v = NULL, *p;
	sqlite3_stmt *s = NULL;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_int(s, ":run", run);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(v, (size_t)cap * sizeof *v);
			if (!p) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
			v = p;
		}
		p = &v[(*n)++];
		memset(p, 0, sizeof *p);
		p->idx = sqlite3_column_int(s, 0);
		snprintf(p->model, sizeof p->model, "%s", (const char *)sqlite3_column_text(s, 1));
		p->layers = sqlite3_column_int64(s, 2);
		p->tokens = sqlite3_column_int64(s, 3);
		p->inner = sqlite3_column_int64(s, 4);
		snprintf(p->status, sizeof p->status, "%s", (const char *)sqlite3_column_text(s, 5));
		p->failure = col_dup(s, 6);
		p->flagged = sqlite3_column_int(s, 7);
	}
	sqlite3_finalize(s);
	if (rc) {
		lr_store_conditions_free(v, *n);
		*n = 0;
		return rc;
	}
	*out = v;
	return 0;
}

void lr_store_conditions_free(struct lr_store_condition_row *rows, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(rows[i].failure);
	free(rows);
}

int lr_store_repetitions_csv(struct lr_store *st, int64_t run, char **out)
{
	static const char sql[] =
		"SELECT condition_idx, block, slot, arm_idx, warmup, wall_s, cpu_s, invol_switches, steal_ticks, interfered"
		" FROM repetition WHERE run_id = :run ORDER BY condition_idx, block, slot";
	sqlite3_stmt *s = NULL;
	size_t len = 0;
	FILE *f;
	int rc, c;

	*out = NULL;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_int(s, ":run", run);
	f = open_memstream(out, &len);
	if (!f) {
		sqlite3_finalize(s);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (c = 0; c < sqlite3_column_count(s); c++)
		fprintf(f, "%s%s", c ? "," : "", sqlite3_column_name(s, c));
	fputs("\r\n", f);
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (c = 0; c < sqlite3_column_count(s); c++)
			fprintf(f, "%s%s", c ? "," : "", (const char *)sqlite3_column_text(s, c));
		fputs("\r\n", f);
	}
	fclose(f);
	sqlite3_finalize(s);
	return *out ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

int lr_store_register(struct lr_store *st, const char *hub, const char *crate_path, const char *manifest_sha256,
		      const struct lr_strlist *run_uuids, int64_t *id)
{
	static const char reg[] =
		"INSERT INTO registration(hub, crate_path, manifest_sha256, registered_at) VALUES (:hub, :path, :sha, :now)";
	static const char run[] =
		"INSERT OR IGNORE INTO registration_run(registration_id, run_id) SELECT :reg, id FROM run WHERE uuid = :uuid";
	sqlite3_stmt *s = NULL;
	char *now = lr_now_iso();
	size_t i;
	int rc;

	if (!now)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = begin(st)))
		goto out;
	if ((rc = prepare(st, &s, reg)))
		goto done;
	bind_text(s, ":hub", hub);
	bind_text(s, ":path", crate_path);
	bind_text(s, ":sha", manifest_sha256);
	bind_text(s, ":now", now);
	rc = step_done(st, s, "record the registration");
	sqlite3_finalize(s);
	s = NULL;
	*id = sqlite3_last_insert_rowid(st->db);
	if (rc || (rc = prepare(st, &s, run)))
		goto done;
	for (i = 0; i < run_uuids->n && !rc; i++) {
		bind_int(s, ":reg", *id);
		bind_text(s, ":uuid", run_uuids->v[i]);
		rc = step_done(st, s, "record a registered run");
	}
done:
	sqlite3_finalize(s);
	rc = commit(st, rc);
out:
	free(now);
	return rc;
}

int lr_store_registrations(struct lr_store *st, lr_registration_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT g.id, g.hub, g.crate_path, g.manifest_sha256, g.registered_at,"
		" (SELECT group_concat(run_id, ' ') FROM (SELECT run_id FROM registration_run r"
		"  WHERE r.registration_id = g.id ORDER BY run_id))"
		" FROM registration g ORDER BY g.id";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, sql)))
		return rc;
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = fn(arg, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
			(const char *)sqlite3_column_text(s, 2), (const char *)sqlite3_column_text(s, 3),
			(const char *)sqlite3_column_text(s, 4),
			sqlite3_column_text(s, 5) ? (const char *)sqlite3_column_text(s, 5) : "");
	sqlite3_finalize(s);
	return rc;
}

int lr_store_archived(struct lr_store *st, const char *sha256, char **archive, char **member)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*archive = *member = NULL;
	if ((rc = prepare(st, &s, "SELECT archive_path, member FROM archived_object WHERE sha256 = :sha")))
		return rc;
	bind_text(s, ":sha", sha256);
	if (sqlite3_step(s) == SQLITE_ROW) {
		*archive = col_dup(s, 0);
		*member = col_dup(s, 1);
	} else {
		rc = LR_ENOTFOUND;
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_mark_archived(struct lr_store *st, const char *archive, const struct lr_kvlist *sha_to_member)
{
	static const char sql[] =
		"INSERT INTO archived_object(sha256, archive_path, member, archived_at) VALUES (:sha, :archive, :member, :now)"
		" ON CONFLICT(sha256) DO UPDATE SET archive_path = excluded.archive_path, member = excluded.member,"
		" archived_at = excluded.archived_at";
	sqlite3_stmt *s = NULL;
	char *now = lr_now_iso();
	size_t i;
	int rc;

	if (!now)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = begin(st)))
		goto out;
	if (!(rc = prepare(st, &s, sql)))
		for (i = 0; i < sha_to_member->n && !rc; i++) {
			bind_text(s, ":sha", sha_to_member->v[i].key);
			bind_text(s, ":archive", archive);
			bind_text(s, ":member", sha_to_member->v[i].value);
			bind_text(s, ":now", now);
			rc = step_done(st, s, "record an archived object");
		}
	sqlite3_finalize(s);
	rc = commit(st, rc);
out:
	free(now);
	return rc;
}

int lr_store_prunable_logs(struct lr_store *st, const int64_t *runs, int n, struct lr_kvlist *out)
{
	/* a log object of run :run that no artifact outside the archived runs, and no non-log artifact, uses */
	static const char sql[] =
		"SELECT a.sha256, a.role, a.name FROM artifact a WHERE a.run_id = :run AND a.sha256 IS NOT NULL"
		" AND a.role IN ('stdout', 'stderr', 'log')"
		" AND NOT EXISTS (SELECT 1 FROM artifact b WHERE b.sha256 = a.sha256"
		"  AND (b.role NOT IN ('stdout', 'stderr', 'log') OR b.run_id NOT IN (SELECT value FROM json_each(:runs))))"
		" ORDER BY a.role, a.name";
	sqlite3_stmt *s = NULL;
	char *ids = NULL, member[4200];
	size_t len = 0;
	FILE *f = open_memstream(&ids, &len);
	int rc = 0, i;

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)runs[i]);
	fputc(']', f);
	fclose(f);
	if ((rc = prepare(st, &s, sql)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		bind_int(s, ":run", runs[i]);
		bind_text(s, ":runs", ids);
		while (!rc && sqlite3_step(s) == SQLITE_ROW) {
			const char *sha = (const char *)sqlite3_column_text(s, 0);

			if (lr_kvlist_find(out, sha))
				continue;
			snprintf(member, sizeof member, "run-%lld/%s/%s", (long long)runs[i],
				 (const char *)sqlite3_column_text(s, 1), (const char *)sqlite3_column_text(s, 2));
			rc = lr_kvlist_add(out, sha, member, NULL);
		}
		sqlite3_reset(s);
	}
out:
	sqlite3_finalize(s);
	free(ids);
	return rc;
}

int lr_store_replay_check(struct lr_store *st, int64_t run, const char *item, const char *original,
			  const char *replay, int matches)
{
	static const char sql[] =
		"INSERT INTO replay_check(run_id, item, original_value, replay_value, matches)"
		" VALUES (:run, :item, :orig, :replay, :matches)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = begin(st)))
		return rc;
	if (!(rc = prepare(st, &s, sql))) {
		bind_int(s, ":run", run);
		bind_text(s, ":item", item);
		bind_text(s, ":orig", original);
		bind_text(s, ":replay", replay);
		bind_int(s, ":matches", matches);
		rc = step_done(st, s, "record a replay check");
	}
	sqlite3_finalize(s);
	if (!rc) {
		char *now = lr_now_iso();

		rc = now ? seal_run(st, run, now) : lr_error_set(LR_ENOMEM, "out of memory");
		free(now);
	}
	return commit(st, rc);
}

int lr_store_run_ids(struct lr_store *st, const struct lr_run_filter *f, int64_t **ids, int *n)
{
	static const char sql[] =
		"SELECT r.id FROM run r LEFT JOIN experiment e ON e.id = r.experiment_id"
		" WHERE (:issue IS NULL OR EXISTS (SELECT 1 FROM run_issue i WHERE i.run_id = r.id AND i.issue_ref = :issue))"
		"   AND (:exp IS NULL OR e.name = :exp)"
		"   AND (:status IS NULL OR r.status = :status)"
		" ORDER BY r.id";
	sqlite3_stmt *s = NULL;
	int64_t *v = NULL, *p;
	int rc, cap = 0;

	*ids = NULL;
	*n = 0;
	if ((rc = prepare(st, &s, sql)))
		return rc;
	bind_text(s, ":issue", f->issue);
	bind_text(s, ":exp", f->experiment);
	bind_text(s, ":status", f->status >= 0 ? lr_status_name(f->status) : NULL);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (*n == cap) {
			p = realloc(v, (size_t)(cap = cap ? cap * 2 : 64) * sizeof *p);
			if (!p) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
			v = p;
		}
		v[(*n)++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc) {
		free(v);
		*n = 0;
		return rc;
	}
	*ids = v;
	return 0;
}

int lr_store_experiment_exists(struct lr_store *st, const char *name)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT 1 FROM experiment WHERE name = :name")))
		return rc;
	bind_text(s, ":name", name);
	rc = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return rc;
}

/* ---- read-only SQL for users ---------------------------------------------- */

/* Deny anything that could reach outside the store or change it. */
static int authorizer(void *arg, int action, const char *a, const char *b, const char *c, const char *d)
{
	switch (action) {
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		return SQLITE_DENY;
	default:
		return SQLITE_OK;
	}
}

int lr_store_sql_readonly(struct lr_store *st, const char *sql, lr_sqlrow_fn fn, void *arg)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	const char *tail = NULL, **names = NULL, **values = NULL;
	int *types = NULL;
	int rc = 0, ncol, i, step;
	struct lr_sqlrow row;

	if (sqlite3_open_v2(st->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = lr_error_set(LR_ESTORE, "cannot open store '%s' read-only: %s", st->db_path,
				  db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	sqlite3_exec(db, "PRAGMA query_only=ON", NULL, NULL, NULL);
	sqlite3_set_authorizer(db, authorizer, NULL);
	if (sqlite3_prepare_v2(db, sql, -1, &s, &tail) != SQLITE_OK) {
		if (sqlite3_errcode(db) == SQLITE_AUTH) {
			rc = lr_error_set(LR_EREFUSED, "refusing to run query: %s", sqlite3_errmsg(db));
			lr_error_hint("labrun sql reads this store only; it cannot attach other databases");
		} else {
			rc = lr_error_set(LR_EINVAL, "cannot run query: %s", sqlite3_errmsg(db));
			lr_error_hint("'labrun sql' takes one SELECT statement; docs/schema.md lists the tables");
		}
		goto out;
	}
	if (!s) {
		rc = lr_error_set(LR_EINVAL, "cannot run query: the text holds no SQL statement");
		lr_error_hint("pass one SELECT statement, e.g. labrun sql \"SELECT * FROM run_overview\"");
		goto out;
	}
	while (tail && (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' || *tail == ';'))
		tail++;
	if (tail && *tail) {
		rc = lr_error_set(LR_EINVAL, "cannot run query: more than one statement (at '%.40s')", tail);
		lr_error_hint("run one statement per 'labrun sql' call");
		goto out;
	}
	if (!sqlite3_stmt_readonly(s)) {
		rc = lr_error_set(LR_EREFUSED, "refusing to run '%.60s': labrun sql is read-only", sql);
		lr_error_hint("the store changes only through labrun commands; query it with SELECT");
		goto out;
	}
	ncol = sqlite3_column_count(s);
	names = calloc((size_t)ncol + 1, sizeof *names);
	values = calloc((size_t)ncol + 1, sizeof *values);
	types = calloc((size_t)ncol + 1, sizeof *types);
	if (!names || !values || !types) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ncol; i++)
		names[i] = sqlite3_column_name(s, i);
	row.ncol = ncol;
	row.names = names;
	row.values = values;
	row.types = types;
	if ((rc = fn(arg, &row, 1)))
		goto out;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			types[i] = sqlite3_column_type(s, i);
			values[i] = (const char *)sqlite3_column_text(s, i);
		}
		if ((rc = fn(arg, &row, 0)))
			goto out;
	}
	if (step != SQLITE_DONE) {
		rc = lr_error_set(LR_EINVAL, "cannot run query: %s", sqlite3_errmsg(db));
	}
out:
	free(names);
	free(values);
	free(types);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc;
}

int lr_store_integrity(struct lr_store *st)
{
	sqlite3_stmt *s = NULL;
	const char *t;
	int rc;

	if ((rc = prepare(st, &s, "PRAGMA integrity_check")))
		return rc;
	if (sqlite3_step(s) != SQLITE_ROW) {
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

int lr_store_objects(struct lr_store *st, lr_str_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = prepare(st, &s, "SELECT sha256 FROM object UNION SELECT sha256 FROM artifact"
				  " WHERE sha256 IS NOT NULL EXCEPT SELECT sha256 FROM archived_object ORDER BY 1")))
		return rc;
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = fn(arg, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc;
}
