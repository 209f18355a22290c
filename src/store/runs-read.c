/* Runs read back: a reference resolved to an id, a run with everything recorded about it, lists. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "store/runs.h"
#include "store/store-int.h"

/* The run 'ref' names itself: an id, "last", a uuid or a unique uuid prefix. */
static int resolve_base(struct lr_store *st, const char *ref, const char *shown, int64_t *id)
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
			lr_error_set(LR_EINVAL, "cannot find run '%s': not a run id, uuid or 'last'", shown);
			lr_error_hint("use the short id from 'labrun list', 'last', 'last~1' (the run before it), "
				      "or at least 4 characters of the uuid");
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
		lr_error_set(LR_EINVAL, "cannot find run '%s': the uuid prefix matches several runs", shown);
		lr_error_hint("give more characters of the uuid, or the short id");
		return LR_EINVAL;
	}
	lr_error_set(LR_ENOTFOUND, "cannot find run '%s' in store '%s'", shown, st->dir);
	lr_error_hint("'labrun list' shows the recorded runs");
	return LR_ENOTFOUND;
}

/* The run 'back' runs before run 'base' in the order they were recorded. */
static int step_back(struct lr_store *st, const char *ref, int64_t base, int64_t back, int64_t *id)
{
	sqlite3_stmt *s = NULL;
	int rc, found = 0;

	if ((rc = db_prepare(st, &s, "SELECT id FROM run WHERE id < :base ORDER BY id DESC LIMIT 1 OFFSET :skip")))
		return rc;
	db_bind_int(s, ":base", base);
	db_bind_int(s, ":skip", back - 1);
	if (db_step_row(st, s, "find the run", &rc)) {
		*id = sqlite3_column_int64(s, 0);
		found = 1;
	}
	sqlite3_finalize(s);
	if (rc || found)
		return rc;
	lr_error_set(LR_ENOTFOUND, "cannot find run '%s' in store '%s': there are not %lld runs before run %lld", ref,
		     st->dir, (long long)back, (long long)base);
	lr_error_hint("'labrun list' shows the recorded runs");
	return LR_ENOTFOUND;
}

int lr_store_run_resolve(struct lr_store *st, const char *ref, int64_t *id)
{
	const char *tilde = strchr(ref, '~');
	char base[128];
	int64_t back;
	char *end;
	int rc;

	if (!tilde)
		return resolve_base(st, ref, ref, id);
	errno = 0;
	back = strtoll(tilde + 1, &end, 10);
	if (tilde == ref || (size_t)(tilde - ref) >= sizeof base || tilde[1] < '0' || tilde[1] > '9' || *end || errno ||
	    back < 0) {
		lr_error_set(LR_EINVAL, "cannot find run '%s': '~' takes a run before it and a count after it", ref);
		lr_error_hint("'last~1' is the run before the newest, '7~2' the second run before run 7");
		return LR_EINVAL;
	}
	memcpy(base, ref, (size_t)(tilde - ref));
	base[tilde - ref] = '\0';
	if ((rc = resolve_base(st, base, ref, id)) || !back)
		return rc;
	return step_back(st, ref, *id, back, id);
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
	r->experiment = db_col_dup(s, 3);
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
	if (lr_run_kind_parse((const char *)sqlite3_column_text(s, 2), &r->kind) ||
	    lr_status_parse((const char *)sqlite3_column_text(s, 4), &r->status)) {
		lr_error_wrap("cannot read run %lld", (long long)r->id);
		lr_error_hint("a newer labrun recorded it; upgrade labrun to read it");
		return LR_ESCHEMA;
	}
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
		rc = lr_kvlist_add(l, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
				   (const char *)sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	return rc;
}

static int load_host(struct lr_store *st, int64_t host, struct lr_host *h)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT hostname, os, kernel, arch, cpu_model, cpu_flags, cores,"
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

	if ((rc = db_prepare(st, &s,
			     "SELECT repo_path, head, branch, dirty, diff_sha256 FROM source_state"
			     " WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", r->id);
	if (db_step_row(st, s, "load the source state", &rc)) {
		r->source.present = 1;
		r->source.repo_path = db_col_dup(s, 0);
		r->source.head = db_col_dup(s, 1);
		r->source.branch = db_col_dup(s, 2);
		r->source.dirty = sqlite3_column_int(s, 3);
		db_col_copy(s, 4, r->source.diff_sha256, LR_SHA256_HEX);
	}
	sqlite3_finalize(s);
	if (rc || (rc = db_prepare(st, &s,
				   "SELECT path, git_status, sha256, size FROM source_file"
				   " WHERE run_id = :run ORDER BY path")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the source files", &rc))
		rc = lr_run_add_file(r, (const char *)sqlite3_column_text(s, 0),
				     (const char *)sqlite3_column_text(s, 1), (const char *)sqlite3_column_text(s, 2),
				     sqlite3_column_int64(s, 3));
	sqlite3_finalize(s);
	return rc;
}

static int load_artifacts(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT a.role, a.name, a.sha256, a.size, e.kind, e.target FROM artifact a"
			     " LEFT JOIN artifact_entry e USING (run_id, role, name) WHERE a.run_id = :run"
			     " ORDER BY CASE a.role WHEN 'stdout' THEN 0 WHEN 'stderr' THEN 1 ELSE 2 END,"
			     " a.role, a.name")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the artifacts", &rc)) {
		const char *kind = (const char *)sqlite3_column_text(s, 4);
		enum lr_entry_kind k;

		rc = lr_run_add_artifact(r, (const char *)sqlite3_column_text(s, 0),
					 (const char *)sqlite3_column_text(s, 1),
					 (const char *)sqlite3_column_text(s, 2), sqlite3_column_int64(s, 3));
		if (!rc && kind && (rc = lr_entry_kind_parse(kind, &k))) {
			lr_error_wrap("cannot read run %lld's artifact '%s'", (long long)r->id,
				      (const char *)sqlite3_column_text(s, 1));
			lr_error_hint("a newer labrun recorded it; upgrade labrun to read it");
			rc = LR_ESCHEMA;
		} else if (!rc && kind) {
			rc = lr_run_artifact_kind(r, k, (const char *)sqlite3_column_text(s, 5));
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static int load_measures(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT name, value, unit, modelled FROM measurement WHERE run_id = :run"
			     " ORDER BY rowid")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the measurements", &rc))
		rc = lr_run_add_measure(r, (const char *)sqlite3_column_text(s, 0), sqlite3_column_double(s, 1),
					(const char *)sqlite3_column_text(s, 2), sqlite3_column_int(s, 3));
	sqlite3_finalize(s);
	return rc;
}

static int load_samples(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT subject, variant, rep, value, unit FROM bench_sample WHERE run_id = :run"
			     " ORDER BY seq")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the benchmark samples", &rc))
		rc = lr_run_add_sample(r, (const char *)sqlite3_column_text(s, 0),
				       (const char *)sqlite3_column_text(s, 1), sqlite3_column_int(s, 2),
				       sqlite3_column_double(s, 3), (const char *)sqlite3_column_text(s, 4));
	sqlite3_finalize(s);
	return rc;
}

/* A row (name, passed, total, detail) of check_result: a check of the run. */
static int add_check(void *arg, sqlite3_stmt *s)
{
	return lr_run_add_check(arg, (const char *)sqlite3_column_text(s, 0), sqlite3_column_int64(s, 1),
				sqlite3_column_int64(s, 2), (const char *)sqlite3_column_text(s, 3));
}

/* A row (condition_idx, seq, pid, argv) of leftover: a process the run's command or an execution left running. */
static int add_leftover(void *arg, sqlite3_stmt *s)
{
	return lr_leftovers_add(arg, sqlite3_column_int(s, 0), sqlite3_column_int(s, 1), sqlite3_column_int64(s, 2),
				(const char *)sqlite3_column_text(s, 3));
}

/* What the run's own command wrote past the cap on its logs. */
static int load_dropped(struct lr_store *st, struct lr_run *r)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT stream = 'stderr', cap_bytes, dropped_bytes FROM output_dropped"
			     " WHERE run_id = :run AND seq = -1")))
		return rc;
	db_bind_int(s, ":run", r->id);
	while (db_step_row(st, s, "load the output past the cap", &rc)) {
		r->output_cap = sqlite3_column_int64(s, 1);
		r->dropped[sqlite3_column_int(s, 0) ? 1 : 0] = sqlite3_column_int64(s, 2);
	}
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
		return rc ? rc
			  : lr_error_set(LR_ENOTFOUND, "cannot find run %lld in store '%s'", (long long)id, st->dir);
	}
	rc = read_run_row(s, r);
	host = sqlite3_column_int64(s, 20);
	sqlite3_finalize(s);
	if (rc || (rc = load_host(st, host, &r->host)) || (rc = load_sources(st, r)) ||
	    (rc = load_issues(st, id, &r->issues)))
		return rc;
	if ((rc = load_kvs(st, id, &r->env,
			   "SELECT name, value, CASE redacted WHEN 1 THEN 'redacted' END"
			   " FROM env_var WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->binding,
			   "SELECT key, value, origin FROM binding"
			   " WHERE run_id = :run ORDER BY key")) ||
	    (rc = load_kvs(st, id, &r->geometry,
			   "SELECT key, value, NULL FROM geometry"
			   " WHERE run_id = :run ORDER BY key")) ||
	    (rc = load_kvs(st, id, &r->tools,
			   "SELECT name, version, NULL FROM tool_version"
			   " WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->digests,
			   "SELECT name, sha256, NULL FROM run_digest"
			   " WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->probes,
			   "SELECT name, output, command FROM tool_probe WHERE run_id = :run ORDER BY name")) ||
	    (rc = load_kvs(st, id, &r->recorder,
			   "SELECT key, value, NULL FROM recorder WHERE run_id = :run ORDER BY key")))
		return rc;
	if ((rc = load_artifacts(st, r)) || (rc = load_measures(st, r)) || (rc = load_dropped(st, r)) ||
	    (rc = db_each_int(st,
			      "SELECT name, passed, total, detail FROM check_result WHERE run_id = :run ORDER BY seq",
			      ":run", id, "load the checks", add_check, r)) ||
	    (rc = db_each_int(st,
			      "SELECT condition_idx, seq, pid, argv FROM leftover WHERE run_id = :run"
			      " ORDER BY condition_idx, seq, n",
			      ":run", id, "load what its commands left running", add_leftover, &r->left)))
		return rc;
	return r->kind == LR_KIND_BENCH ? load_samples(st, r) : 0;
}

/* The runs a struct lr_run_filter selects: bound by bind_filter. */
#define RUN_FILTER \
	"run r LEFT JOIN experiment e ON e.id = r.experiment_id" \
	" WHERE (:issue IS NULL OR EXISTS (SELECT 1 FROM run_issue i WHERE i.run_id = r.id AND i.issue_ref = :issue))" \
	"   AND (:exp IS NULL OR e.name = :exp)" \
	"   AND (:status IS NULL OR r.status = :status)"

/* The parameters of RUN_FILTER from f. */
static void bind_filter(sqlite3_stmt *s, const struct lr_run_filter *f)
{
	db_bind_text(s, ":issue", f->issue);
	db_bind_text(s, ":exp", f->experiment);
	db_bind_text(s, ":status", f->status >= 0 ? lr_status_name(f->status) : NULL);
}

int lr_store_run_list(struct lr_store *st, const struct lr_run_filter *f, lr_run_fn fn, void *arg)
{
	static const char sql[] = "SELECT " RUN_COLUMNS " FROM " RUN_FILTER " ORDER BY r.id DESC LIMIT :limit";
	sqlite3_stmt *s = NULL;
	struct lr_run r;
	int rc = 0;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	bind_filter(s, f);
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
	static const char sql[] = "SELECT r.id FROM " RUN_FILTER " ORDER BY r.id";
	sqlite3_stmt *s = NULL;
	int64_t *v = NULL;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	bind_filter(s, f);
	while (db_step_row(st, s, "list runs", &rc)) {
		if ((rc = LR_ALLOC_GROW(v, (size_t)*n + 1, cap)))
			break;
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

int lr_store_run_origin(struct lr_store *st, int64_t id, struct lr_run_origin *o)
{
	/* the run itself, then the run it replays, and so on: a replay of a pulled run is as foreign */
	static const char sql[] =
		"WITH RECURSIVE chain(id, depth) AS (SELECT :run, 0 UNION ALL"
		" SELECT r.replay_of, c.depth + 1 FROM run r JOIN chain c ON r.id = c.id"
		" WHERE r.replay_of IS NOT NULL AND c.depth < 10000)"
		" SELECT p.run_id, p.remote, coalesce(p.pushed_from, 'an unknown host') FROM chain c JOIN pulled_run p ON p.run_id = c.id"
		" ORDER BY c.depth LIMIT 1";
	sqlite3_stmt *s = NULL;
	int rc = 0;

	memset(o, 0, sizeof *o);
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "find where a run came from", &rc)) {
		o->pulled_run = sqlite3_column_int64(s, 0);
		snprintf(o->remote, sizeof o->remote, "%s", (const char *)sqlite3_column_text(s, 1));
		snprintf(o->host, sizeof o->host, "%s", (const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	return rc;
}
