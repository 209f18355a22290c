/* Runs written: the row written before a command starts, its final state, abandoned runs (reading them: runs-read.c). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "store/runs.h"
#include "store/store-int.h"

/* ---- writing runs --------------------------------------------------------- */

static int host_id(struct lr_store *st, const struct lr_host *h, int64_t *id)
{
	/* The no-op update makes RETURNING give the id of an existing row too. */
	static const char sql[] =
		"INSERT INTO host(fingerprint, hostname, os, kernel, arch, cpu_model, cpu_flags, cores, memory_bytes)"
		" VALUES (:fp, :hostname, :os, :kernel, :arch, :cpu_model, :cpu_flags, :cores, :memory)"
		" ON CONFLICT(fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint RETURNING id";
	static const struct db_col params[] = {
		DB_PARAM(":hostname", struct lr_host, hostname, DB_PTR),
		DB_PARAM(":os", struct lr_host, os, DB_PTR),
		DB_PARAM(":kernel", struct lr_host, kernel, DB_PTR),
		DB_PARAM(":arch", struct lr_host, arch, DB_PTR),
		DB_PARAM(":cpu_model", struct lr_host, cpu_model, DB_PTR),
		DB_PARAM(":cpu_flags", struct lr_host, cpu_flags, DB_PTR),
		DB_PARAM(":cores", struct lr_host, cores, DB_INT),
	};
	sqlite3_stmt *s = NULL;
	char fp[LR_SHA256_HEX];
	int rc;

	if ((rc = lr_host_fingerprint(h, fp)) || (rc = db_prepare_kept(st, &s, sql)))
		return rc;
	db_bind_text(s, ":fp", fp);
	db_row_bind(s, DB_COLS(params), h);
	if (h->memory_bytes)
		db_bind_int(s, ":memory", h->memory_bytes);
	return db_returning_kept(st, s, "record the host", id);
}

static int experiment_id(struct lr_store *st, const char *name, const char *now, int64_t *id)
{
	static const char sql[] = "INSERT INTO experiment(name, created_at) VALUES (:name, :now)"
				  " ON CONFLICT(name) DO UPDATE SET name = excluded.name RETURNING id";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare_kept(st, &s, sql)))
		return rc;
	db_bind_text(s, ":name", name);
	db_bind_text(s, ":now", now);
	return db_returning_kept(st, s, "record the experiment", id);
}

/* A key/value list of a run (a struct lr_kvlist in struct lr_run, by offsetof) and the table of its rows. */
struct kv_table {
	size_t list;
	const char *sql, *what;
};

/* The lists stored when a run starts, and the digests stored when it ends. */
static const struct kv_table start_kvs[] = {
	{ offsetof(struct lr_run, env),
	  "INSERT INTO env_var(run_id, name, value, redacted) VALUES (:run, :key, :value, :redacted)",
	  "record the environment" },
	{ offsetof(struct lr_run, binding),
	  "INSERT INTO binding(run_id, key, value, origin) VALUES (:run, :key, :value, :tag)",
	  "record the device binding" },
	{ offsetof(struct lr_run, geometry), "INSERT INTO geometry(run_id, key, value) VALUES (:run, :key, :value)",
	  "record the geometry" },
	{ offsetof(struct lr_run, tools), "INSERT INTO tool_version(run_id, name, version) VALUES (:run, :key, :value)",
	  "record the tool versions" },
	{ offsetof(struct lr_run, probes),
	  "INSERT INTO tool_probe(run_id, name, command, output) VALUES (:run, :key, :tag, :value)",
	  "record the tool probes" },
	{ offsetof(struct lr_run, recorder), "INSERT INTO recorder(run_id, key, value) VALUES (:run, :key, :value)",
	  "record labrun's own identity" },
};
static const struct kv_table digest_kvs = { offsetof(struct lr_run, digests),
					    "INSERT INTO run_digest(run_id, name, sha256) VALUES (:run, :key, :value)",
					    "record the run's digests" };

struct kv_rows {
	int64_t run;
	const struct lr_kvlist *l;
};

static int bind_kv(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct kv_rows *k = arg;
	const struct lr_kv *kv = &k->l->v[i];

	db_bind_int(s, ":run", k->run);
	db_bind_text(s, ":key", kv->key);
	db_bind_text(s, ":value", kv->value);
	if (sqlite3_bind_parameter_index(s, ":tag"))
		db_bind_text(s, ":tag", kv->tag ? kv->tag : "user");
	if (sqlite3_bind_parameter_index(s, ":redacted"))
		db_bind_int(s, ":redacted", kv->tag && !strcmp(kv->tag, "redacted"));
	return 0;
}

/* The rows of run r's key/value list that 't' names. */
static int insert_kvs(struct lr_store *st, const struct lr_run *r, const struct kv_table *t)
{
	struct kv_rows k = { r->id, (const struct lr_kvlist *)(const void *)((const char *)r + t->list) };

	return db_insert_each(st, t->sql, k.l->n, bind_kv, &k, t->what);
}

static int insert_artifacts(struct lr_store *st, int64_t run_id, const struct lr_artifact *a, size_t n, const char *now)
{
	static const char obj[] = "INSERT INTO object(sha256, size, created_at) VALUES (:sha, :size, :now)"
				  " ON CONFLICT(sha256) DO NOTHING";
	static const char art[] =
		"INSERT INTO artifact(run_id, role, name, sha256, size) VALUES (:run, :role, :name, :sha, :size)";
	static const char ent[] = "INSERT INTO artifact_entry(run_id, role, name, kind, target)"
				  " VALUES (:run, :role, :name, :kind, :target)";
	sqlite3_stmt *so = NULL, *sa = NULL, *se = NULL;
	size_t i;
	int rc;

	if (!n)
		return 0;
	if ((rc = db_prepare_kept(st, &so, obj)) || (rc = db_prepare_kept(st, &sa, art)) ||
	    (rc = db_prepare_kept(st, &se, ent)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		if (a[i].kind != LR_ENTRY_FILE) {
			db_bind_int(se, ":run", run_id);
			db_bind_text(se, ":role", a[i].role);
			db_bind_text(se, ":name", a[i].name);
			db_bind_text(se, ":kind", lr_entry_kind_name(a[i].kind));
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
	db_kept_done(so);
	db_kept_done(sa);
	db_kept_done(se);
	return rc;
}

static int bind_source_file(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct lr_run *r = arg;
	const struct lr_srcfile *f = &r->files[i];

	db_bind_int(s, ":run", r->id);
	db_bind_text(s, ":path", f->path);
	db_bind_text(s, ":status", f->status);
	if (f->has_content) {
		db_bind_text(s, ":sha", f->sha256);
		db_bind_int(s, ":size", f->size);
	}
	return 0;
}

static int insert_sources(struct lr_store *st, const struct lr_run *r)
{
	static const char state[] = "INSERT INTO source_state(run_id, repo_path, head, branch, dirty, diff_sha256)"
				    " VALUES (:run, :repo, :head, :branch, :dirty, :diff)";
	static const char file[] = "INSERT INTO source_file(run_id, path, sha256, size, git_status)"
				   " VALUES (:run, :path, :sha, :size, :status)";
	sqlite3_stmt *s = NULL;
	int rc = 0;

	if (r->source.present) {
		if ((rc = db_prepare_kept(st, &s, state)))
			return rc;
		db_bind_int(s, ":run", r->id);
		db_bind_text(s, ":repo", r->source.repo_path);
		db_bind_text(s, ":head", r->source.head);
		db_bind_text(s, ":branch", r->source.branch);
		db_bind_int(s, ":dirty", r->source.dirty);
		db_bind_text(s, ":diff", r->source.diff_sha256);
		if ((rc = db_step_done(st, s, "record the source state")))
			return rc;
	}
	return db_insert_each(st, file, r->nfiles, bind_source_file, r, "record a source file");
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
	if ((rc = db_prepare_kept(st, &s, sql)))
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
	if (!(rc = db_step_done(st, s, "record the run")))
		r->id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

static int bind_issue(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct lr_run *r = arg;

	db_bind_int(s, ":run", r->id);
	db_bind_text(s, ":ref", r->issues.v[i]);
	return 0;
}

int lr_store_run_begin(struct lr_store *st, struct lr_run *r)
{
	static const char issue[] = "INSERT INTO run_issue(run_id, issue_ref) VALUES (:run, :ref)";
	size_t i;
	int rc;

	if ((rc = db_begin(st)))
		return rc;
	if ((rc = insert_run_row(st, r)) || (rc = insert_sources(st, r)))
		goto out;
	for (i = 0; i < sizeof start_kvs / sizeof *start_kvs && !rc; i++)
		rc = insert_kvs(st, r, &start_kvs[i]);
	if (!rc)
		rc = db_insert_each(st, issue, r->issues.n, bind_issue, r, "record the issue references");
	if (!rc)
		rc = insert_artifacts(st, r->id, r->artifacts, r->nartifacts, r->started_at);
out:
	rc = db_commit(st, rc);
	if (rc)
		r->id = 0;
	return rc;
}

static const struct db_col measure_params[] = {
	DB_PARAM(":name", struct lr_measure, name, DB_PTR),
	DB_PARAM(":value", struct lr_measure, value, DB_REAL),
	DB_PARAM(":unit", struct lr_measure, unit, DB_PTR),
	DB_PARAM(":modelled", struct lr_measure, modelled, DB_INT),
};
static const struct db_col sample_params[] = {
	DB_PARAM(":subject", struct lr_sample, subject, DB_PTR),
	DB_PARAM(":variant", struct lr_sample, variant, DB_PTR),
	DB_PARAM(":rep", struct lr_sample, rep, DB_INT),
	DB_PARAM(":value", struct lr_sample, value, DB_REAL),
	DB_PARAM(":unit", struct lr_sample, unit, DB_PTR),
};
static const struct db_col check_params[] = {
	DB_PARAM(":name", struct lr_check, name, DB_PTR),
	DB_PARAM(":passed", struct lr_check, passed, DB_INT),
	DB_PARAM(":total", struct lr_check, total, DB_INT),
	DB_PARAM(":detail", struct lr_check, detail, DB_PTR),
};

/* The output past the cap of one pair of logs (db_output_dropped). */
struct dropped_rows {
	int64_t run;
	int cond, seq;
	int64_t cap;
	const int64_t *dropped;
};

static int bind_dropped(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct dropped_rows *d = arg;

	if (!d->dropped[i])
		return 1;
	db_bind_int(s, ":run", d->run);
	db_bind_int(s, ":cond", d->cond);
	db_bind_int(s, ":seq", d->seq);
	db_bind_text(s, ":stream", i ? "stderr" : "stdout");
	db_bind_int(s, ":cap", d->cap);
	db_bind_int(s, ":dropped", d->dropped[i]);
	return 0;
}

int db_output_dropped(struct lr_store *st, int64_t run, int cond, int seq, int64_t cap, const int64_t dropped[2])
{
	static const char sql[] =
		"INSERT INTO output_dropped(run_id, condition_idx, seq, stream, cap_bytes, dropped_bytes)"
		" VALUES (:run, :cond, :seq, :stream, :cap, :dropped)";
	struct dropped_rows d = { run, cond, seq, cap, dropped };

	if (!dropped[0] && !dropped[1])
		return 0;
	return db_insert_each(st, sql, 2, bind_dropped, &d, "record output past the cap");
}

/* What one command left running (db_leftovers). */
struct left_rows {
	int64_t run;
	int cond, seq;
	const struct lr_leftovers *l;
};

static int bind_left(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct left_rows *d = arg;

	db_bind_int(s, ":run", d->run);
	db_bind_int(s, ":cond", d->cond);
	db_bind_int(s, ":seq", d->seq);
	db_bind_int(s, ":n", (int64_t)i);
	db_bind_int(s, ":pid", d->l->v[i].pid);
	db_bind_text(s, ":argv", d->l->v[i].argv);
	return 0;
}

int db_leftovers(struct lr_store *st, int64_t run, int cond, int seq, const struct lr_leftovers *l)
{
	static const char sql[] = "INSERT INTO leftover(run_id, condition_idx, seq, n, pid, argv)"
				  " VALUES (:run, :cond, :seq, :n, :pid, :argv)";
	struct left_rows d = { run, cond, seq, l };

	return l->n ? db_insert_each(st, sql, l->n, bind_left, &d, "record what a command left running") : 0;
}

/* The final state of run r (lr_store_run_finish). */
static int bind_finish(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct lr_run *r = arg;

	db_bind_text(s, ":status", lr_status_name(r->status));
	db_bind_text(s, ":ended", r->ended_at);
	db_bind_outcome(s, DB_OUTCOME(r));
	db_bind_text(s, ":failure", r->failure);
	db_bind_int(s, ":id", r->id);
	return 0;
}

int lr_store_run_finish(struct lr_store *st, const struct lr_run *r, size_t first_new_artifact)
{
	static const char sql[] =
		"UPDATE run SET status = :status, ended_at = :ended, exit_code = :exit, signal = :signal,"
		" timed_out = :timed_out, failure = :failure, wall_s = :wall, user_s = :user, sys_s = :sys,"
		" peak_rss_kib = :rss WHERE id = :id AND status = 'running'";
	static const char measure[] =
		"INSERT INTO measurement(run_id, name, value, unit, modelled) VALUES (:run, :name, :value, :unit, :modelled)";
	static const char sample[] = "INSERT INTO bench_sample(run_id, seq, subject, variant, rep, value, unit)"
				     " VALUES (:run, :seq, :subject, :variant, :rep, :value, :unit)";
	struct db_items measures = { ":run", r->id, NULL, r->measures, sizeof *r->measures, DB_COLS(measure_params) };
	static const char check[] = "INSERT INTO check_result(run_id, seq, name, passed, total, detail)"
				    " VALUES (:run, :seq, :name, :passed, :total, :detail)";
	struct db_items samples = { ":run", r->id, ":seq", r->samples, sizeof *r->samples, DB_COLS(sample_params) };
	struct db_items checks = { ":run", r->id, ":seq", r->checks, sizeof *r->checks, DB_COLS(check_params) };
	int rc;

	if ((rc = db_begin(st)))
		return rc;
	if ((rc = db_insert_each(st, sql, 1, bind_finish, r, "finalise the run")))
		goto out;
	if (sqlite3_changes(st->db) != 1) {
		rc = lr_error_set(LR_ESTORE, "cannot finalise run %lld: it is no longer running", (long long)r->id);
		lr_error_hint("another labrun marked it abandoned; run 'labrun fsck' and check the clock");
		goto out;
	}
	if (first_new_artifact < r->nartifacts)
		rc = insert_artifacts(st, r->id, r->artifacts + first_new_artifact, r->nartifacts - first_new_artifact,
				      r->ended_at);
	if (!rc)
		rc = db_insert_each(st, measure, r->nmeasures, db_bind_items, &measures, "record a measurement");
	if (!rc)
		rc = db_insert_each(st, sample, r->nsamples, db_bind_items, &samples, "record a benchmark sample");
	if (!rc)
		rc = db_insert_each(st, check, r->nchecks, db_bind_items, &checks, "record a check");
	if (!rc)
		rc = db_output_dropped(st, r->id, -1, -1, r->output_cap, r->dropped);
	if (!rc && r->kind == LR_KIND_RECORD)
		rc = db_leftovers(st, r->id, -1, -1, &r->left);
	if (!rc)
		rc = insert_kvs(st, r, &digest_kvs);
	if (!rc)
		rc = db_seal_run(st, r->id, r->ended_at);
out:
	return db_commit(st, rc);
}

int lr_store_running(struct lr_store *st, struct lr_running **out, size_t *n)
{
	static const char sql[] = "SELECT id, uuid FROM run WHERE status = 'running' ORDER BY id";
	struct lr_running *v = NULL;
	size_t cnt = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	while (db_step_row(st, s, "list running runs", &rc)) {
		if ((rc = LR_ALLOC_GROW(v, cnt + 1, cap)))
			goto out;
		v[cnt].id = sqlite3_column_int64(s, 0);
		db_col_copy(s, 1, v[cnt].uuid, sizeof v[cnt].uuid);
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

int lr_store_run_abandon(struct lr_store *st, int64_t id, const char *ended_at, const struct lr_artifact *logs,
			 size_t nlogs, int *changed)
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

int lr_store_binding_set(struct lr_store *st, int64_t id, const char *key, const char *value, const char *origin)
{
	static const char sql[] =
		"INSERT INTO binding(run_id, key, value, origin) VALUES (:run, :key, :value, :tag)"
		" ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value, origin = excluded.origin";
	struct lr_kvlist l = { 0 };
	struct kv_rows k = { id, &l };
	int rc;

	if (!(rc = lr_kvlist_add(&l, key, value, origin)))
		rc = db_insert_each(st, sql, 1, bind_kv, &k, "record the backend a serving engine named");
	lr_kvlist_release(&l);
	return rc;
}
