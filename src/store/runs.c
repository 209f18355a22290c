/* Runs: the row written before a command starts, its final state, and reading runs back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/store-int.h"

/* ---- writing runs --------------------------------------------------------- */

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
	if (rc || (rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_text(s, ":fp", fp);
	db_bind_text(s, ":hostname", h->hostname);
	db_bind_text(s, ":os", h->os);
	db_bind_text(s, ":kernel", h->kernel);
	db_bind_text(s, ":arch", h->arch);
	db_bind_text(s, ":cpu_model", h->cpu_model);
	db_bind_text(s, ":cpu_flags", h->cpu_flags);
	db_bind_int(s, ":cores", h->cores);
	if (h->memory_bytes)
		db_bind_int(s, ":memory", h->memory_bytes);
	return db_returning_id(st, s, "record the host", id);
}

static int experiment_id(struct lr_store *st, const char *name, const char *now, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO experiment(name, created_at) VALUES (:name, :now)"
		" ON CONFLICT(name) DO UPDATE SET name = excluded.name RETURNING id";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_text(s, ":name", name);
	db_bind_text(s, ":now", now);
	return db_returning_id(st, s, "record the experiment", id);
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
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	for (i = 0; i < l->n && !rc; i++) {
		db_bind_int(s, ":run", run_id);
		db_bind_text(s, ":key", l->v[i].key);
		db_bind_text(s, ":value", l->v[i].value);
		if (sqlite3_bind_parameter_index(s, ":tag"))
			db_bind_text(s, ":tag", l->v[i].tag ? l->v[i].tag : "user");
		if (sqlite3_bind_parameter_index(s, ":redacted"))
			db_bind_int(s, ":redacted", l->v[i].tag && !strcmp(l->v[i].tag, "redacted"));
		rc = db_step_done(st, s, what);
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
	static const char ent[] = "INSERT INTO artifact_entry(run_id, role, name, kind, target)"
				  " VALUES (:run, :role, :name, :kind, :target)";
	static const char *const kinds[] = { "file", "symlink", "followed-symlink", "directory" };
	sqlite3_stmt *so = NULL, *sa = NULL, *se = NULL;
	size_t i;
	int rc;

	if (!n)
		return 0;
	if ((rc = db_prepare(st, &so, obj)) || (rc = db_prepare(st, &sa, art)) || (rc = db_prepare(st, &se, ent)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		if (a[i].kind != LR_ENTRY_FILE) {
			db_bind_int(se, ":run", run_id);
			db_bind_text(se, ":role", a[i].role);
			db_bind_text(se, ":name", a[i].name);
			db_bind_text(se, ":kind", kinds[a[i].kind]);
			db_bind_text(se, ":target", a[i].target);
			if ((rc = db_step_done(st, se, "record an artifact entry")))
				break;
			if (a[i].kind == LR_ENTRY_DIRECTORY)
				continue; /* no bytes: no artifact row */
		}
		if (a[i].present) {
			db_bind_text(so, ":sha", a[i].sha256);
			db_bind_int(so, ":size", a[i].size);
			db_bind_text(so, ":now", now);
			if ((rc = db_step_done(st, so, "record an object")))
				break;
			db_bind_text(sa, ":sha", a[i].sha256);
			db_bind_int(sa, ":size", a[i].size);
		} else {
			db_bind_null(sa, ":sha");
			db_bind_null(sa, ":size");
		}
		db_bind_int(sa, ":run", run_id);
		db_bind_text(sa, ":role", a[i].role);
		db_bind_text(sa, ":name", a[i].name);
		rc = db_step_done(st, sa, "record an artifact");
		if (rc)
			lr_error_wrap("artifact '%s'", a[i].name);
	}
out:
	sqlite3_finalize(so);
	sqlite3_finalize(sa);
	sqlite3_finalize(se);
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
		if ((rc = db_prepare(st, &s, state)))
			return rc;
		db_bind_int(s, ":run", r->id);
		db_bind_text(s, ":repo", r->source.repo_path);
		db_bind_text(s, ":head", r->source.head);
		db_bind_text(s, ":branch", r->source.branch);
		db_bind_int(s, ":dirty", r->source.dirty);
		db_bind_text(s, ":diff", r->source.diff_sha256);
		rc = db_step_done(st, s, "record the source state");
		sqlite3_finalize(s);
		s = NULL;
		if (rc)
			return rc;
	}
	if (!r->nfiles)
		return 0;
	if ((rc = db_prepare(st, &s, file)))
		return rc;
	for (i = 0; i < r->nfiles && !rc; i++) {
		const struct lr_srcfile *f = &r->files[i];

		db_bind_int(s, ":run", r->id);
		db_bind_text(s, ":path", f->path);
		db_bind_text(s, ":status", f->status);
		if (f->has_content) {
			db_bind_text(s, ":sha", f->sha256);
			db_bind_int(s, ":size", f->size);
		}
		rc = db_step_done(st, s, "record a source file");
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
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_text(s, ":uuid", r->uuid);
	db_bind_text(s, ":kind", lr_run_kind_name(r->kind));
	if (eid)
		db_bind_int(s, ":exp", eid);
	db_bind_int(s, ":host", hid);
	db_bind_text(s, ":started", r->started_at);
	db_bind_text(s, ":cwd", r->cwd);
	db_bind_text(s, ":argv", r->argv_json);
	db_bind_text(s, ":version", r->labrun_version);
	if (r->replay_of)
		db_bind_int(s, ":replay", r->replay_of);
	db_bind_text(s, ":note", r->note);
	rc = db_step_done(st, s, "record the run");
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

	if ((rc = db_begin(st)))
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
		if ((rc = db_prepare(st, &s, issue)))
			goto out;
		for (i = 0; i < r->issues.n && !rc; i++) {
			db_bind_int(s, ":run", r->id);
			db_bind_text(s, ":ref", r->issues.v[i]);
			rc = db_step_done(st, s, "record the issue references");
		}
		sqlite3_finalize(s);
		if (rc)
			goto out;
	}
	rc = insert_artifacts(st, r->id, r->artifacts, r->nartifacts, r->started_at);
out:
	rc = db_commit(st, rc);
	if (rc)
		r->id = 0;
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
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	for (i = 0; i < r->nmeasures && !rc; i++) {
		db_bind_int(s, ":run", r->id);
		db_bind_text(s, ":name", r->measures[i].name);
		db_bind_real(s, ":value", r->measures[i].value);
		db_bind_text(s, ":unit", r->measures[i].unit);
		db_bind_int(s, ":modelled", r->measures[i].modelled);
		rc = db_step_done(st, s, "record a measurement");
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

	if ((rc = db_begin(st)))
		return rc;
	if ((rc = db_prepare(st, &s, sql)))
		goto out;
	db_bind_text(s, ":status", lr_status_name(r->status));
	db_bind_text(s, ":ended", r->ended_at);
	if (r->has_exit)
		db_bind_int(s, ":exit", r->exit_code);
	if (r->signal)
		db_bind_int(s, ":signal", r->signal);
	db_bind_int(s, ":timed_out", r->timed_out);
	db_bind_text(s, ":failure", r->failure);
	db_bind_real(s, ":wall", r->wall_s);
	db_bind_real(s, ":user", r->user_s);
	db_bind_real(s, ":sys", r->sys_s);
	db_bind_int(s, ":rss", r->peak_rss_kib);
	db_bind_int(s, ":id", r->id);
	if ((rc = db_step_done(st, s, "finalise the run")))
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
		rc = insert_kvs(st, r->id, &r->digests, "INSERT INTO run_digest(run_id, name, sha256) VALUES (:run, :key, :value)",
				"record the run's digests");
	if (!rc)
		rc = db_seal_run(st, r->id, r->ended_at);
out:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_running(struct lr_store *st, struct lr_running **out, size_t *n)
{
	static const char sql[] = "SELECT id, uuid FROM run WHERE status = 'running' ORDER BY id";
	struct lr_running *v = NULL, *p;
	size_t cnt = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	while (db_step_row(st, s, "list running runs", &rc)) {
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
	if ((rc = db_begin(st)))
		return rc;
	if ((rc = db_prepare(st, &s, sql)))
		goto out;
	db_bind_text(s, ":ended", ended_at);
	db_bind_int(s, ":id", id);
	if ((rc = db_step_done(st, s, "mark a run abandoned")))
		goto out;
	*changed = sqlite3_changes(st->db) == 1;
	if (*changed)
		rc = insert_artifacts(st, id, logs, nlogs, ended_at);
	if (*changed && !rc)
		rc = db_seal_run(st, id, ended_at);
out:
	sqlite3_finalize(s);
	rc = db_commit(st, rc);
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
		rc = db_prepare(st, &s, "SELECT id FROM run ORDER BY id DESC LIMIT 1");
	} else if (isnum) {
		rc = db_prepare(st, &s, "SELECT id FROM run WHERE id = :ref");
		if (!rc)
			db_bind_int(s, ":ref", strtoll(ref, NULL, 10));
	} else {
		if (strlen(ref) < 4 || strspn(ref, "0123456789abcdef-") != strlen(ref)) {
			lr_error_set(LR_EINVAL, "cannot find run '%s': not a run id, uuid or 'last'", ref);
			lr_error_hint("use the short id from 'labrun list', or at least 4 characters of the uuid");
			return LR_EINVAL;
		}
		/* A prefix match with a range keeps the index usable and needs no LIKE escaping. */
		rc = db_prepare(st, &s, "SELECT id FROM run WHERE uuid >= :ref AND uuid < :ref || 'g' LIMIT 2");
		if (!rc)
			db_bind_text(s, ":ref", ref);
	}
	if (rc)
		return rc;
	while (db_step_row(st, s, "find the run", &rc)) {
		*id = sqlite3_column_int64(s, 0);
		n++;
	}
	sqlite3_finalize(s);
	if (rc)
		return rc;
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
	int kind;

	r->id = sqlite3_column_int64(s, 0);
	snprintf(r->uuid, sizeof r->uuid, "%s", uuid ? uuid : "");
	r->experiment = db_col_dup(s, 3);
	r->status = lr_status_parse((const char *)sqlite3_column_text(s, 4));
	r->started_at = db_col_dup(s, 5);
	r->ended_at = db_col_dup(s, 6);
	r->has_exit = sqlite3_column_type(s, 7) != SQLITE_NULL;
	r->exit_code = sqlite3_column_int(s, 7);
	r->signal = sqlite3_column_int(s, 8);
	r->timed_out = sqlite3_column_int(s, 9);
	r->failure = db_col_dup(s, 10);
	r->wall_s = sqlite3_column_double(s, 11);
	r->user_s = sqlite3_column_double(s, 12);
	r->sys_s = sqlite3_column_double(s, 13);
	r->peak_rss_kib = sqlite3_column_int64(s, 14);
	r->cwd = db_col_dup(s, 15);
	r->argv_json = db_col_dup(s, 16);
	r->labrun_version = db_col_dup(s, 17);
	r->replay_of = sqlite3_column_int64(s, 18);
	r->note = db_col_dup(s, 19);
	if (!r->started_at || !r->cwd || !r->argv_json || !r->labrun_version)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((kind = lr_run_kind_parse((const char *)sqlite3_column_text(s, 2))) < 0) {
		lr_error_set(LR_ESCHEMA, "cannot read run %lld: its kind '%s' is unknown to labrun %s", (long long)r->id,
			     (const char *)sqlite3_column_text(s, 2), PACKAGE_VERSION);
		lr_error_hint("a newer labrun recorded it; upgrade labrun to read it");
		return LR_ESCHEMA;
	}
	r->kind = (enum lr_run_kind)kind;
	return 0;
}

static int load_issues(struct lr_store *st, int64_t id, struct lr_strlist *l)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT issue_ref FROM run_issue WHERE run_id = :run ORDER BY issue_ref")))
		return rc;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's issues", &rc))
		rc = lr_strlist_add(l, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc;
}

static int load_kvs(struct lr_store *st, int64_t id, struct lr_kvlist *l, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's key-value rows", &rc))
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

	if ((rc = db_prepare(st, &s, "SELECT hostname, os, kernel, arch, cpu_model, cpu_flags, cores,"
				  " memory_bytes FROM host WHERE id = :id")))
		return rc;
	db_bind_int(s, ":id", host);
	if (db_step_row(st, s, "load the host", &rc)) {
		h->hostname = db_col_dup(s, 0);
		h->os = db_col_dup(s, 1);
		h->kernel = db_col_dup(s, 2);
		h->arch = db_col_dup(s, 3);
		h->cpu_model = db_col_dup(s, 4);
		h->cpu_flags = db_col_dup(s, 5);
		h->cores = sqlite3_column_int64(s, 6);
		h->memory_bytes = sqlite3_column_int64(s, 7);
	} else if (!rc) {
		rc = db_error(st, "load the host");
	}
	sqlite3_finalize(s);
	return rc;
}

static int load_sources(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT repo_path, head, branch, dirty, diff_sha256 FROM source_state"
				  " WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", r->id);
	if (db_step_row(st, s, "load the source state", &rc)) {
		r->source.present = 1;
		r->source.repo_path = db_col_dup(s, 0);
		r->source.head = db_col_dup(s, 1);
		r->source.branch = db_col_dup(s, 2);
		r->source.dirty = sqlite3_column_int(s, 3);
		snprintf(r->source.diff_sha256, LR_SHA256_HEX, "%s", (const char *)sqlite3_column_text(s, 4));
	}
	sqlite3_finalize(s);
	if (rc || (rc = db_prepare(st, &s, "SELECT path, git_status, sha256, size FROM source_file"
				  " WHERE run_id = :run ORDER BY path")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the source files", &rc))
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

	if ((rc = db_prepare(st, &s, "SELECT a.role, a.name, a.sha256, a.size, e.kind, e.target FROM artifact a"
				  " LEFT JOIN artifact_entry e USING (run_id, role, name) WHERE a.run_id = :run"
				  " ORDER BY CASE a.role WHEN 'stdout' THEN 0 WHEN 'stderr' THEN 1 ELSE 2 END,"
				  " a.role, a.name")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the artifacts", &rc)) {
		const char *kind = (const char *)sqlite3_column_text(s, 4);

		rc = lr_run_add_artifact(r, (const char *)sqlite3_column_text(s, 0),
					 (const char *)sqlite3_column_text(s, 1),
					 (const char *)sqlite3_column_text(s, 2), sqlite3_column_int64(s, 3));
		if (!rc && kind)
			rc = lr_run_artifact_kind(r, !strcmp(kind, "symlink") ? LR_ENTRY_SYMLINK : LR_ENTRY_FOLLOWED,
						  (const char *)sqlite3_column_text(s, 5));
	}
	sqlite3_finalize(s);
	return rc;
}

static int load_measures(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT name, value, unit, modelled FROM measurement WHERE run_id = :run"
				  " ORDER BY rowid")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the measurements", &rc))
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

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":id", id);
	if (!db_step_row(st, s, "load the run", &rc)) {
		sqlite3_finalize(s);
		return rc ? rc : lr_error_set(LR_ENOTFOUND, "cannot find run %lld in store '%s'", (long long)id, st->dir);
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
					      " WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->digests, "SELECT name, sha256, NULL FROM run_digest"
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
	int rc = 0;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_text(s, ":issue", f->issue);
	db_bind_text(s, ":exp", f->experiment);
	db_bind_text(s, ":status", f->status >= 0 ? lr_status_name(f->status) : NULL);
	db_bind_int(s, ":limit", f->limit > 0 ? f->limit : -1);
	while (db_step_row(st, s, "list runs", &rc)) {
		lr_run_init(&r);
		rc = read_run_row(s, &r);
		if (!rc)
			rc = load_issues(st, r.id, &r.issues);
		if (!rc)
			rc = fn(arg, &r);
		lr_run_release(&r);
	}
	sqlite3_finalize(s);
	return rc;
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
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_text(s, ":issue", f->issue);
	db_bind_text(s, ":exp", f->experiment);
	db_bind_text(s, ":status", f->status >= 0 ? lr_status_name(f->status) : NULL);
	while (db_step_row(st, s, "list runs", &rc)) {
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

