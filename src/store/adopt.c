/*
 * Runs arriving from a remote: a checked bundle's rows inserted with this
 * store's ids. Ids are local (every store counts from 1); what links rows
 * across stores is a run's uuid, a host's fingerprint and an experiment's
 * name. Also the 'remote' table.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/list.h"
#include "store/designreg.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/store-int.h"

/* What an id column of a bundle's table points at. */
enum id_kind { ID_NONE, ID_OWN, ID_RUN, ID_HOST, ID_EXPERIMENT, ID_RUNREF, ID_SET, ID_COMPARISON, ID_GATE, ID_NKINDS };

static const struct {
	const char *column;
	enum id_kind kind;
} id_columns[] = {
	{ "id", ID_OWN },
	{ "run_id", ID_RUN },
	{ "host_id", ID_HOST },
	{ "experiment_id", ID_EXPERIMENT },
	{ "replay_of", ID_RUNREF },
	{ "set_id", ID_SET },
	{ "reference_set_id", ID_SET },
	{ "candidate_set_id", ID_SET },
	{ "comparison_id", ID_COMPARISON },
	{ "gate_id", ID_GATE },
};

/* The kind of the ids a table's own 'id' column holds. */
static enum id_kind own_kind(const char *table)
{
	return !strcmp(table, "run")            ? ID_RUN
	       : !strcmp(table, "host")         ? ID_HOST
	       : !strcmp(table, "experiment")   ? ID_EXPERIMENT
	       : !strcmp(table, "response_set") ? ID_SET
	       : !strcmp(table, "comparison")   ? ID_COMPARISON
	       : !strcmp(table, "gate")         ? ID_GATE
						: ID_NONE;
}

/* Origin id -> local id, per kind. */
struct id_map {
	struct {
		int64_t from, to;
	} * v;
	size_t n, cap;
};

struct adopt {
	struct lr_store *st;
	const struct lr_bundle *b;
	json_t *doc;
	struct id_map map[ID_NKINDS];
};

static int map_put(struct id_map *m, int64_t from, int64_t to)
{
	int rc;

	if ((rc = LR_ALLOC_GROW(m->v, m->n + 1, m->cap)))
		return rc;
	m->v[m->n].from = from;
	m->v[m->n++].to = to;
	return 0;
}

static int map_get(const struct id_map *m, int64_t from, int64_t *to)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].from == from) {
			*to = m->v[i].to;
			return 1;
		}
	return 0;
}

static int local_run(struct lr_store *st, const char *uuid, int64_t *id)
{
	return db_one_int_text(st, "SELECT id FROM run WHERE uuid = :uuid", ":uuid", uuid, id, "find a run by uuid");
}

/* An id pointing outside the run (refs in the bundle): the run by uuid, a set by its run and place. */
static int resolve_ref(struct adopt *a, enum id_kind kind, int64_t from, int64_t *to)
{
	json_t *refs = json_object_get(a->doc, "refs"), *r;
	const char *uuid;
	sqlite3_stmt *s = NULL;
	char key[32];
	int64_t run;
	int rc;

	snprintf(key, sizeof key, "%lld", (long long)from);
	r = json_object_get(json_object_get(refs, kind == ID_RUNREF ? "run" : "response_set"), key);
	uuid = json_string_value(kind == ID_RUNREF ? r : json_array_get(r, 0));
	if (!uuid)
		return lr_error_set(LR_EINVAL, "run %s: its bundle points at %s %lld, which it does not describe",
				    a->b->uuid, kind == ID_RUNREF ? "run" : "response set", (long long)from);
	if ((rc = local_run(a->st, uuid, &run)))
		return rc;
	if (!run) {
		lr_error_set(LR_EINVAL, "run %s needs run %s, which is not in this store", a->b->uuid, uuid);
		lr_error_hint("pull that run too (labrun pull --run %s)", uuid);
		return LR_EINVAL;
	}
	if (kind == ID_RUNREF) {
		*to = run;
		return 0;
	}
	if ((rc = db_prepare(a->st, &s,
			     "SELECT id FROM response_set WHERE run_id = :run ORDER BY id LIMIT 1 OFFSET :k")))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":k", json_integer_value(json_array_get(r, 1)));
	if (!db_step_row(a->st, s, "find a response set", &rc) && !rc)
		rc = lr_error_set(LR_EINVAL, "run %s needs a response set of run %s that this store lacks", a->b->uuid,
				  uuid);
	else if (!rc)
		*to = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

/* The local column named like bundle column 'name' (SQL text comes from the schema, never the bundle). */
static const char *local_column(sqlite3_stmt *info, const char *name)
{
	const char *c = NULL;

	sqlite3_reset(info);
	while (sqlite3_step(info) == SQLITE_ROW)
		if (!strcmp((const char *)sqlite3_column_text(info, 0), name)) {
			c = (const char *)sqlite3_column_text(info, 0);
			break;
		}
	return c;
}

/*
 * "INSERT INTO t(c...) VALUES (?...)" over the bundle's columns that exist
 * here, 'id' left out (*skip_id its column) unless 'keep' (*skip_id the
 * column all the same, to map the id to itself).
 */
static int insert_sql(struct adopt *a, const char *table, json_t *cols, int keep, char **sql, int *skip_id)
{
	sqlite3_stmt *info = NULL;
	size_t i, len = strlen(table) + 64, n = 0;
	char *q = NULL, *v = NULL;
	json_t *c;
	int rc;

	*skip_id = -1;
	if ((rc = db_prepare(a->st, &info, "SELECT name FROM pragma_table_info(:t)")))
		return rc;
	db_bind_text(info, ":t", table);
	json_array_foreach(cols, i, c)
		len += (json_is_string(c) ? json_string_length(c) : 0) + 8;
	if (!(q = malloc(len)) || !(v = malloc(2 * json_array_size(cols) + 2))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(q, len, "INSERT INTO \"%s\"(", table);
	json_array_foreach(cols, i, c) {
		const char *name = local_column(info, json_string_value(c) ? json_string_value(c) : "");

		if (!name) {
			rc = lr_error_set(LR_EINVAL,
					  "run %s: its table '%s' has a column '%s' this store does not know",
					  a->b->uuid, table, json_string_value(c) ? json_string_value(c) : "?");
			lr_error_hint("a newer labrun recorded it: upgrade labrun on this host");
			goto out;
		}
		if (!strcmp(name, "id") && own_kind(table) != ID_NONE) {
			*skip_id = (int)i;
			if (!keep)
				continue;
		}
		snprintf(q + strlen(q), len - strlen(q), "%s\"%s\"", n ? "," : "", name);
		memcpy(v + 2 * n, n ? ",?" : " ?", 2);
		n++;
	}
	if (!n) {
		rc = lr_error_set(LR_EINVAL, "run %s: its table '%s' has no columns to insert", a->b->uuid, table);
		goto out;
	}
	v[2 * n] = 0;
	snprintf(q + strlen(q), len - strlen(q), ") VALUES (%s)%s", v + 1,
		 !strcmp(table, "host")         ? " ON CONFLICT(fingerprint) DO NOTHING"
		 : !strcmp(table, "experiment") ? " ON CONFLICT(name) DO NOTHING"
						: "");
	*sql = q;
	q = NULL;
out:
	sqlite3_finalize(info);
	free(q);
	free(v);
	return rc;
}

static enum id_kind column_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof id_columns / sizeof id_columns[0]; i++)
		if (!strcmp(id_columns[i].column, name))
			return id_columns[i].kind;
	return ID_NONE;
}

/* Bind value 'v' of column 'name' as parameter 'p', an id translated to this store's. */
static int bind_value(struct adopt *a, sqlite3_stmt *s, int p, const char *name, json_t *v)
{
	enum id_kind k = column_kind(name);
	int64_t to = 0;
	int rc;

	if (json_is_integer(v) && k != ID_NONE && k != ID_OWN) {
		if (!map_get(&a->map[k == ID_RUNREF ? ID_RUN : k], json_integer_value(v), &to) &&
		    (rc = (k == ID_RUNREF || k == ID_SET)
				  ? resolve_ref(a, k, json_integer_value(v), &to)
				  : lr_error_set(LR_EINVAL, "run %s: its bundle points at a %s it does not hold",
						 a->b->uuid, name)))
			return rc;
		rc = sqlite3_bind_int64(s, p, to);
	} else if (json_is_integer(v)) {
		rc = sqlite3_bind_int64(s, p, json_integer_value(v));
	} else if (json_is_real(v)) {
		rc = sqlite3_bind_double(s, p, json_real_value(v));
	} else if (json_is_string(v)) {
		rc = sqlite3_bind_text(s, p, json_string_value(v), (int)json_string_length(v), SQLITE_TRANSIENT);
	} else {
		rc = sqlite3_bind_null(s, p);
	}
	return rc == SQLITE_OK ? 0 : db_error(a->st, "bind a pulled row");
}

/* After a host or experiment insert that may have met an existing row: its id here. */
static int shared_row_id(struct adopt *a, const char *table, json_t *cols, json_t *row, int64_t *id)
{
	const char *key = !strcmp(table, "host") ? "fingerprint" : "name";
	sqlite3_stmt *s = NULL;
	json_t *c;
	size_t i;
	int rc;

	if ((rc = db_prepare(a->st, &s,
			     !strcmp(table, "host") ? "SELECT id FROM host WHERE fingerprint = :k"
						    : "SELECT id FROM experiment WHERE name = :k")))
		return rc;
	json_array_foreach(cols, i, c)
		if (json_is_string(c) && !strcmp(json_string_value(c), key))
			db_bind_text(s, ":k", json_string_value(json_array_get(row, i)));
	if (!db_step_row(a->st, s, "find a shared row", &rc) && !rc)
		rc = lr_error_set(LR_ESTORE, "cannot find the %s row of run %s after inserting it", table, a->b->uuid);
	else if (!rc)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

static int insert_table(struct adopt *a, const char *table, int keep)
{
	json_t *t = json_object_get(json_object_get(a->doc, "tables"), table), *cols = json_object_get(t, "columns"),
	       *row;
	enum id_kind own = own_kind(table);
	sqlite3_stmt *s = NULL;
	char *sql = NULL;
	int skip, rc, p;
	size_t i, c;

	if (!t)
		return 0;
	if ((rc = insert_sql(a, table, cols, keep, &sql, &skip)) || (rc = db_prepare(a->st, &s, sql)))
		goto out;
	json_array_foreach(json_object_get(t, "rows"), i, row) {
		int64_t id = 0;

		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		for (c = 0, p = 1; c < json_array_size(cols) && !rc; c++)
			if ((int)c == skip && keep)
				rc = bind_value(a, s, p++, "", json_array_get(row, c)); /* the id as it is */
			else if ((int)c != skip)
				rc = bind_value(a, s, p++, json_string_value(json_array_get(cols, c)),
						json_array_get(row, c));
		if (!rc && (rc = db_step_done(a->st, s, "insert a pulled row")) &&
		    (sqlite3_extended_errcode(a->st->db) & 0xff) == SQLITE_CONSTRAINT) {
			char why[512];

			lr_fmt_cut(why, sizeof why, "%s", sqlite3_errmsg(a->st->db));
			lr_error_set(LR_EINVAL,
				     "run %s: its table '%s', row %zu, breaks a rule of this store's schema (%s)",
				     a->b->uuid, table, i + 1, why);
			lr_error_hint(
				"labrun never writes such a row: the bundle was made or changed by something else");
			rc = LR_EINVAL;
		}
		if (rc)
			break;
		if (own == ID_NONE || skip < 0)
			continue;
		if (own == ID_HOST || own == ID_EXPERIMENT)
			rc = shared_row_id(a, table, cols, row, &id);
		else
			id = sqlite3_last_insert_rowid(a->st->db);
		if (!rc)
			rc = map_put(&a->map[own], json_integer_value(json_array_get(row, (size_t)skip)), id);
	}
out:
	sqlite3_finalize(s);
	free(sql);
	return rc;
}

/* The object rows of the run; a file not here is fetched later from the remote ('lazy'). */
static int adopt_objects(struct adopt *a, const struct lr_pull_origin *o, const char *now)
{
	sqlite3_stmt *s = NULL, *r = NULL;
	size_t i;
	int rc;

	if ((rc = db_prepare(a->st, &s,
			     "INSERT OR IGNORE INTO object(sha256, size, created_at) VALUES (:sha, :size, :now)")) ||
	    (rc = db_prepare(a->st, &r, "INSERT OR IGNORE INTO remote_object(sha256, remote) VALUES (:sha, :remote)")))
		goto out;
	for (i = 0; i < a->b->objects.n && !rc; i++) {
		const char *sha = a->b->objects.v[i].key;
		char *path = lr_obj_path(a->st->dir, sha);
		struct stat sb;

		if (!path) {
			rc = lr_error_set(LR_ENOMEM, "out of memory");
			break;
		}
		db_bind_text(s, ":sha", sha);
		db_bind_int(s, ":size", strtoll(a->b->objects.v[i].value, NULL, 10));
		db_bind_text(s, ":now", now);
		rc = db_step_done(a->st, s, "record a pulled object");
		if (!rc && stat(path, &sb)) {
			if (!o->lazy)
				rc = lr_error_set(LR_EIO, "cannot pull run %s: its object %s is not in objects/",
						  a->b->uuid, sha);
			db_bind_text(r, ":sha", sha);
			db_bind_text(r, ":remote", o->remote);
			if (!rc)
				rc = db_step_done(a->st, r, "record where a pulled object is");
		}
		free(path);
	}
out:
	sqlite3_finalize(s);
	sqlite3_finalize(r);
	return rc;
}

static int adopt_pulled(struct adopt *a, const struct lr_pull_origin *o, int64_t id, const char *now)
{
	static const char sql[] =
		"INSERT INTO pulled_run(run_id, remote, bundle_sha256, bundle, pushed_by, pushed_from, pulled_at)"
		" VALUES (:run, :remote, :sha, :bundle, :by, :from, :now)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(a->st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", id);
	db_bind_text(s, ":remote", o->remote);
	db_bind_text(s, ":sha", a->b->sha256);
	db_bind_text(s, ":bundle", a->b->text);
	db_bind_text(s, ":by", o->pushed_by);
	db_bind_text(s, ":from", o->pushed_from);
	db_bind_text(s, ":now", now);
	rc = db_step_done(a->st, s, "record the pulled run");
	sqlite3_finalize(s);
	return rc;
}

/* Every table of the bundle is one this store keeps for a run: rows are never dropped on the way. */
static int known_tables(struct adopt *a)
{
	const char *name;
	json_t *t;
	size_t q;

	json_object_foreach(json_object_get(a->doc, "tables"), name, t) {
		for (q = 0; q < db_nseal_queries && strcmp(db_seal_queries[q].table, name); q++)
			;
		if (q == db_nseal_queries) {
			lr_error_set(LR_EINVAL,
				     "run %s: its bundle has rows of table '%s', which this store does not know",
				     a->b->uuid, name);
			lr_error_hint("a newer labrun recorded it: upgrade labrun on this host, then pull again");
			return LR_EINVAL;
		}
	}
	return 0;
}

int lr_store_run_adopt(struct lr_store *st, const struct lr_bundle *b, const struct lr_pull_origin *o, int64_t *id)
{
	static const char *const first[] = { "host", "experiment", "run" };
	struct adopt a = { .st = st, .b = b };
	char *now = lr_now_iso();
	int64_t here;
	size_t i;
	int rc, k;

	*id = 0;
	if (!now || !(a.doc = json_loads(b->text, 0, NULL))) {
		free(now);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if ((rc = known_tables(&a)) || (rc = db_begin(st)))
		goto out;
	if (!(rc = local_run(st, b->uuid, &here)) && here)
		rc = lr_error_set(LR_EINVAL, "run %s is already in this store (run %lld)", b->uuid, (long long)here);
	if (!rc)
		rc = adopt_objects(&a, o, now);
	for (i = 0; i < 3 && !rc; i++)
		rc = insert_table(&a, first[i], o->keep_ids);
	for (i = 0; i < db_nseal_queries && !rc; i++)
		if (strcmp(db_seal_queries[i].table, "host") && strcmp(db_seal_queries[i].table, "experiment") &&
		    strcmp(db_seal_queries[i].table, "run"))
			rc = insert_table(&a, db_seal_queries[i].table, o->keep_ids);
	if (!rc && (!a.map[ID_RUN].n || (*id = a.map[ID_RUN].v[0].to) <= 0))
		rc = lr_error_set(LR_EINVAL, "run %s: its bundle has no run row", b->uuid);
	if (!rc && !(rc = adopt_pulled(&a, o, *id, now)))
		rc = db_seal_run(st, *id, now);
	rc = db_commit(st, rc);
	if (rc)
		*id = 0;
out:
	for (k = 0; k < ID_NKINDS; k++)
		free(a.map[k].v);
	json_decref(a.doc);
	free(now);
	return rc;
}

int lr_store_uuid_find(struct lr_store *st, const char *uuid, int64_t *id, char **sha256)
{
	struct lr_bundle b;
	int rc;

	if (sha256)
		*sha256 = NULL;
	if ((rc = local_run(st, uuid, id)) || !*id || !sha256)
		return rc;
	if ((rc = lr_store_run_bundle(st, *id, &b)))
		return rc;
	if (!(*sha256 = strdup(b.sha256)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	lr_bundle_release(&b);
	return rc;
}

/* A pulled run's rows here still give the design its origin registered (the design entry of its bundle). */
static int pulled_design(struct lr_store *st, int64_t id, lr_str_fn problem, void *arg)
{
	struct lr_design_reg reg;
	char now[LR_SHA256_HEX], msg[512];
	int rc;

	if ((rc = lr_store_design_reg(st, id, &reg)) || !reg.seq || (rc = lr_store_design_digest(st, id, now, NULL)) ||
	    !strcmp(now, reg.content))
		return rc;
	snprintf(msg, sizeof msg,
		 "its design differs from the design its origin registered in ledger entry %lld (digest %.12s..., "
		 "the rows give %.12s...)",
		 (long long)reg.seq, reg.content, now);
	return problem(arg, msg);
}

int lr_store_pulled_check(struct lr_store *st, int64_t id, lr_str_fn problem, void *arg, int *pulled)
{
	sqlite3_stmt *s = NULL;
	struct lr_bundle b;
	char msg[1024];
	int rc;

	*pulled = 0;
	if ((rc = db_prepare(st, &s,
			     "SELECT p.bundle, p.bundle_sha256, r.uuid FROM pulled_run p JOIN run r ON r.id = p.run_id"
			     " WHERE p.run_id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the pulled run", &rc)) {
		*pulled = 1;
		if (lr_bundle_parse(&b, (const char *)sqlite3_column_text(s, 0),
				    (const char *)sqlite3_column_text(s, 1))) {
			snprintf(msg, sizeof msg, "the bundle it was pulled in: %s", lr_error_msg());
			rc = problem(arg, msg);
		} else {
			if (strcmp(b.uuid, (const char *)sqlite3_column_text(s, 2)))
				rc = problem(arg, "the bundle it was pulled in is another run's");
			else
				rc = pulled_design(st, id, problem, arg);
			lr_bundle_release(&b);
		}
	}
	sqlite3_finalize(s);
	return rc;
}

/* Where lr_store_pulled_unsigned's rows go. */
struct unsigned_rows {
	lr_unsigned_fn fn;
	void *arg;
};

static int unsigned_row(void *arg, sqlite3_stmt *s)
{
	const struct unsigned_rows *u = arg;

	return u->fn(u->arg, sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1),
		     (const char *)sqlite3_column_text(s, 2), (const char *)sqlite3_column_text(s, 3));
}

int lr_store_pulled_unsigned(struct lr_store *st, lr_unsigned_fn fn, void *arg)
{
	/*
	 * A bundle's keys are sorted, so its ledger comes before its objects and rows: whether any
	 * entry carries a signature is read from that prefix, once per pulled run, without parsing
	 * its rows (lr_bundle_parse has verified every signature a pulled bundle carries).
	 */
	static const char sql[] =
		"WITH s AS MATERIALIZED (SELECT r.id, r.uuid, r.host_id, r.started_at,"
		"  instr(substr(p.bundle, 1, instr(p.bundle, '\"objects\":')), '\"signature\":') > 0 AS signed"
		"  FROM pulled_run p JOIN run r ON r.id = p.run_id),"
		" first AS (SELECT host_id, min(started_at) AS since FROM s WHERE signed GROUP BY host_id)"
		" SELECT s.id, s.uuid, h.hostname, (SELECT t.uuid FROM s t WHERE t.host_id = s.host_id AND t.signed"
		"  AND t.started_at = first.since ORDER BY t.id LIMIT 1)"
		" FROM s JOIN first ON first.host_id = s.host_id JOIN host h ON h.id = s.host_id"
		" WHERE NOT s.signed AND s.started_at > first.since ORDER BY s.id";
	struct unsigned_rows u = { fn, arg };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	return db_each(st, s, "find the pulled runs that came unsigned", unsigned_row, &u);
}
