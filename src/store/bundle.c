/*
 * Run bundles: a run's rows, seal and ledger entries as one JSON text, so a
 * run can leave this store and arrive in another unchanged (docs/schema.md,
 * "Run bundles"). Building one reads the rows the seal covers; checking one
 * (bundle-check.c) recomputes that seal from the bundle's own rows.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/seal.h"
#include "base/sign.h"
#include "store/objects.h"
#include "store/remote-int.h"
#include "store/store-int.h"

static int oom(void)
{
	return lr_error_set(LR_ENOMEM, "out of memory");
}

static json_t *column_value(sqlite3_stmt *s, int c)
{
	switch (sqlite3_column_type(s, c)) {
	case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(s, c));
	case SQLITE_FLOAT: return json_real(sqlite3_column_double(s, c));
	case SQLITE_TEXT:
		return json_stringn((const char *)sqlite3_column_text(s, c), (size_t)sqlite3_column_bytes(s, c));
	case SQLITE_NULL: return json_null();
	default: return NULL; /* no table of a run holds blobs */
	}
}

/* Table q's rows of run 'id' as {"columns": [...], "rows": [[...], ...]}, or nothing when it has none. */
static int bundle_table(struct lr_store *st, size_t q, int64_t id, json_t *tables)
{
	json_t *cols = NULL, *rows = json_array();
	sqlite3_stmt *s = NULL;
	int rc, c, n;

	if (!rows)
		return oom();
	if ((rc = db_prepare(st, &s, db_seal_queries[q].sql)))
		goto out;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's rows for its bundle", &rc)) {
		json_t *row = json_array();

		n = sqlite3_column_count(s);
		if (!cols && (cols = json_array()))
			for (c = 0; c < n; c++)
				json_array_append_new(cols, json_string(sqlite3_column_name(s, c)));
		for (c = 0; row && c < n; c++) {
			json_t *v = column_value(s, c);

			if (!v || json_array_append_new(row, v)) {
				rc = lr_error_set(LR_EINVAL,
						  "cannot bundle table '%s' of run %lld: column '%s' holds a blob or "
						  "text that is not UTF-8",
						  db_seal_queries[q].table, (long long)id, sqlite3_column_name(s, c));
				break;
			}
		}
		if (rc)
			json_decref(row);
		else if (!row || !cols || json_array_append_new(rows, row))
			rc = oom();
	}
	if (!rc && json_array_size(rows) &&
	    json_object_set_new(tables, db_seal_queries[q].table,
				json_pack("{s:O,s:O}", "columns", cols, "rows", rows)))
		rc = oom();
out:
	sqlite3_finalize(s);
	json_decref(cols);
	json_decref(rows);
	return rc;
}

/* A row (id, uuid) of bundle_refs' first query: the run replayed, under its id. */
static int ref_run(void *arg, sqlite3_stmt *s)
{
	char key[32];

	snprintf(key, sizeof key, "%lld", (long long)sqlite3_column_int64(s, 0));
	json_object_set_new(arg, key, json_string((const char *)sqlite3_column_text(s, 1)));
	return 0;
}

/* A row (id, its run's uuid, its place among that run's sets) of the second: a set, under its id. */
static int ref_set(void *arg, sqlite3_stmt *s)
{
	char key[32];

	snprintf(key, sizeof key, "%lld", (long long)sqlite3_column_int64(s, 0));
	json_object_set_new(
		arg, key,
		json_pack("[s,I]", (const char *)sqlite3_column_text(s, 1), (json_int_t)sqlite3_column_int64(s, 2)));
	return 0;
}

/*
 * Rows that point outside the run: the run it replays, and response sets of
 * other runs its comparisons use, each by its run's uuid and its place among
 * that run's sets (ids differ between stores; uuids and order do not).
 */
static int bundle_refs(struct lr_store *st, int64_t id, json_t *doc)
{
	static const char runs[] = "SELECT o.id, o.uuid FROM run r JOIN run o ON o.id = r.replay_of WHERE r.id = :run";
	static const char sets[] =
		"SELECT DISTINCT s.id, o.uuid, (SELECT count(*) FROM response_set t WHERE t.run_id = s.run_id AND t.id < s.id)"
		" FROM (SELECT reference_set_id AS set_id FROM comparison WHERE run_id = :run"
		"       UNION SELECT candidate_set_id FROM comparison WHERE run_id = :run"
		"       UNION SELECT set_id FROM gate WHERE run_id = :run) x"
		" JOIN response_set s ON s.id = x.set_id JOIN run o ON o.id = s.run_id WHERE s.run_id <> :run";
	json_t *r = json_object(), *sref = json_object();
	int rc;

	if (!r || !sref)
		rc = oom();
	else if (!(rc = db_each_int(st, runs, ":run", id, "read the run's references", ref_run, r)) &&
		 !(rc = db_each_int(st, sets, ":run", id, "read the run's references", ref_set, sref)) &&
		 (json_object_size(r) || json_object_size(sref)) &&
		 json_object_set_new(doc, "refs", json_pack("{s:O,s:O}", "run", r, "response_set", sref)))
		rc = oom();
	json_decref(r);
	json_decref(sref);
	return rc;
}

/* Where bundle_objects puts each object's size. */
struct object_sizes {
	struct lr_store *st;
	int64_t id;
	json_t *o;
};

/* A row (sha256, size or NULL) of bundle_objects' query: the size of an object without a row from its file. */
static int object_size(void *arg, sqlite3_stmt *s)
{
	const struct object_sizes *c = arg;
	const char *sha = (const char *)sqlite3_column_text(s, 0);
	int64_t size = sqlite3_column_int64(s, 1);

	if (sqlite3_column_type(s, 1) == SQLITE_NULL) {
		char *path = lr_obj_path(c->st->dir, sha);
		struct stat sb;
		int rc = 0;

		if (!path || stat(path, &sb))
			rc = path ? lr_error_set(LR_EIO, "cannot bundle run %lld: its object %s is not in objects/",
						 (long long)c->id, sha)
				  : oom();
		free(path);
		if (rc)
			return rc;
		size = sb.st_size;
	}
	json_object_set_new(c->o, sha, json_integer(size));
	return 0;
}

/* The objects the run's rows name, with their sizes. */
static int bundle_objects(struct lr_store *st, int64_t id, json_t *doc)
{
	/* every hash the rows name, with its size: from its object row, else (response files and
	 * answer keys have none) from its file */
	static const char sql[] =
		"SELECT x.sha256, o.size FROM ("
		" SELECT sha256 FROM artifact WHERE run_id = :run UNION SELECT stdout_sha256 FROM execution WHERE run_id = :run"
		" UNION SELECT stderr_sha256 FROM execution WHERE run_id = :run"
		" UNION SELECT sha256 FROM execution_output WHERE run_id = :run"
		" UNION SELECT raw_sha256 FROM response_set WHERE run_id = :run UNION SELECT key_sha256 FROM gate WHERE run_id = :run)"
		" x LEFT JOIN object o ON o.sha256 = x.sha256 WHERE x.sha256 IS NOT NULL ORDER BY x.sha256";
	struct object_sizes c = { st, id, json_object() };
	int rc;

	if (!c.o)
		return oom();
	rc = db_each_int(st, sql, ":run", id, "read the run's objects", object_size, &c);
	if (!rc && json_object_set_new(doc, "objects", c.o))
		return oom();
	if (rc)
		json_decref(c.o);
	return rc;
}

/* A row of bundle_seal's ledger query: the entry, with the public key of a signed one. */
static int ledger_entry(void *arg, sqlite3_stmt *s)
{
	json_t *e = json_pack("{s:I,s:s,s:s,s:s,s:s,s:s}", "seq", (json_int_t)sqlite3_column_int64(s, 0), "kind",
			      (const char *)sqlite3_column_text(s, 1), "content",
			      (const char *)sqlite3_column_text(s, 2), "prev", (const char *)sqlite3_column_text(s, 3),
			      "digest", (const char *)sqlite3_column_text(s, 4), "appended_at",
			      (const char *)sqlite3_column_text(s, 5));

	if (e && sqlite3_column_type(s, 7) != SQLITE_NULL) {
		json_object_set_new(e, "public_key", json_string((const char *)sqlite3_column_text(s, 6)));
		json_object_set_new(e, "signature", json_string((const char *)sqlite3_column_text(s, 7)));
	}
	return !e || json_array_append_new(arg, e) ? oom() : 0;
}

/* A row of bundle_seal's origin query: a design entry of the bundle a run was pulled in, as it came. */
static int origin_entry(void *arg, sqlite3_stmt *s)
{
	json_t *e = json_loads((const char *)sqlite3_column_text(s, 0), 0, NULL);

	return !e || json_array_append_new(arg, e) ? oom() : 0;
}

/*
 * The run's seal and its ledger entries, with the public key of each signed
 * one; with 'origin', a pulled run's are preceded by the design entries its
 * origin registered (this store's ledger holds none for it).
 */
static int bundle_seal(struct lr_store *st, int64_t id, int origin, json_t *doc)
{
	static const char designs[] =
		"SELECT e.value FROM pulled_run p, json_each(p.bundle, '$.ledger') e WHERE p.run_id = :run"
		" AND json_extract(e.value, '$.kind') = 'design' ORDER BY json_extract(e.value, '$.seq')";
	static const char seal[] = "SELECT digest, tables FROM run_seal WHERE run_id = :run";
	static const char ledger[] =
		"SELECT l.seq, l.kind, l.content, l.prev, l.digest, l.appended_at, k.public_key, l.signature"
		" FROM ledger l JOIN run r ON r.uuid = l.run_uuid LEFT JOIN signing_key k ON k.fingerprint = l.key_fingerprint"
		" WHERE r.id = :run ORDER BY l.seq";
	json_t *entries = json_array();
	sqlite3_stmt *s = NULL;
	int rc, found = 0;

	if (!entries)
		return oom();
	if ((rc = db_prepare(st, &s, seal)))
		goto out;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the run's seal", &rc)) {
		found = 1;
		json_object_set_new(doc, "seal",
				    json_pack("{s:s,s:s}", "digest", (const char *)sqlite3_column_text(s, 0), "tables",
					      (const char *)sqlite3_column_text(s, 1)));
	}
	sqlite3_finalize(s);
	if (!rc && !found) {
		rc = lr_error_set(LR_EINVAL, "cannot bundle run %lld: it has no seal", (long long)id);
		lr_error_hint("only final runs travel; 'labrun audit' shows runs whose seal is missing");
	}
	if (!rc && origin)
		rc = db_each_int(st, designs, ":run", id, "read the pulled run's design entries", origin_entry,
				 entries);
	if (!rc &&
	    !(rc = db_each_int(st, ledger, ":run", id, "read the run's ledger entries", ledger_entry, entries)) &&
	    json_object_set(doc, "ledger", entries))
		rc = oom();
out:
	json_decref(entries);
	return rc;
}

/*
 * A pulled run travels as it came. One amended here since (a comparison, a
 * gate, responses added) is not sent: the remote holds its origin's bundle,
 * and another one under its uuid would be a conflict there.
 */
static int pulled_bundle(struct lr_store *st, int64_t id, char **text)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*text = NULL;
	if ((rc = db_prepare(st, &s,
			     "SELECT p.bundle, EXISTS (SELECT 1 FROM ledger l JOIN run r ON r.uuid = l.run_uuid"
			     " WHERE r.id = p.run_id AND l.kind = 'amend') FROM pulled_run p WHERE p.run_id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the pulled run", &rc)) {
		if (sqlite3_column_int(s, 1)) {
			rc = lr_error_set(LR_EINVAL, "run %lld was pulled and then amended here: it is not sent on",
					  (long long)id);
			lr_error_hint("the remote holds its origin's bundle; what was added here stays in this store");
		} else if (!(*text = db_col_dup(s, 0))) {
			rc = oom();
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static int run_status(struct lr_store *st, int64_t id, char status[16])
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT status FROM run WHERE id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the run", &rc))
		db_col_copy(s, 0, status, 16);
	else if (!rc)
		rc = lr_error_set(LR_ENOTFOUND, "run %lld does not exist", (long long)id);
	sqlite3_finalize(s);
	return rc;
}

/* The bundle of run 'id': the one a pulled run came in unless 'here' (then its rows as this store holds them). */
static int run_bundle(struct lr_store *st, int64_t id, int here, struct lr_bundle *b)
{
	json_t *doc = NULL, *tables = NULL;
	char status[16], *text = NULL, sha[LR_SHA256_HEX];
	size_t q;
	int rc;

	memset(b, 0, sizeof *b);
	if ((rc = run_status(st, id, status)))
		return rc;
	if (!strcmp(status, "running")) {
		lr_error_set(LR_EINVAL, "cannot send run %lld: it is still running", (long long)id);
		lr_error_hint("only final runs travel; a recorder that died is marked abandoned by 'labrun fsck'");
		return LR_EINVAL;
	}
	/* a savepoint: inside a snapshot (lr_store_snapshot_begin) it nests, outside it begins one of its own */
	if ((rc = db_exec(st, "SAVEPOINT bundle", "start reading the run")))
		return rc;
	if (!here && ((rc = pulled_bundle(st, id, &text)) || text))
		goto parse;
	if (!(doc = json_pack("{s:i}", "labrun_bundle", LR_BUNDLE_FORMAT)) || !(tables = json_object()) ||
	    json_object_set(doc, "tables", tables)) {
		rc = oom();
		goto out;
	}
	for (q = 0; q < db_nseal_queries && !rc; q++)
		rc = bundle_table(st, q, id, tables);
	if (rc || (rc = bundle_refs(st, id, doc)) || (rc = bundle_objects(st, id, doc)) ||
	    (rc = bundle_seal(st, id, here, doc)))
		goto out;
	if (!(text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS))) {
		rc = oom();
		goto out;
	}
	if (!(rc = lr_sha256_buf(text, strlen(text), sha)) && (rc = lr_bundle_parse(b, text, sha)) == LR_EINVAL) {
		/* made here from this store's rows: they no longer agree with the run's seal and ledger */
		char why[512];

		snprintf(why, sizeof why, "%s", lr_error_msg());
		lr_error_set(LR_EREFUSED, "run %lld cannot be bundled: %s", (long long)id, why);
		lr_error_hint("its rows were changed after it was sealed: 'labrun audit --run %lld' names what changed",
			      (long long)id);
		rc = LR_EREFUSED;
	}
	goto out;
parse:
	if (!rc && !(rc = lr_sha256_buf(text, strlen(text), sha)))
		rc = lr_bundle_parse(b, text, sha);
out:
	sqlite3_exec(st->db, "RELEASE bundle", NULL, NULL, NULL);
	free(text);
	json_decref(tables);
	json_decref(doc);
	return rc;
}

int lr_store_run_bundle(struct lr_store *st, int64_t id, struct lr_bundle *b)
{
	return run_bundle(st, id, 0, b);
}

int lr_store_run_bundle_here(struct lr_store *st, int64_t id, struct lr_bundle *b)
{
	return run_bundle(st, id, 1, b);
}

int64_t lr_bundle_max(void)
{
	const char *env = getenv("LABRUN_MAX_BUNDLE");
	char *end;
	long long v;

	if (!env || !*env)
		return LR_BUNDLE_MAX;
	errno = 0;
	v = strtoll(env, &end, 10);
	return errno || *end || v <= 0 ? LR_BUNDLE_MAX : (int64_t)v;
}

int lr_remote_size_differs(const char *remote, const char *sha256, int64_t holds, int64_t size)
{
	if (size < 0 || holds == size)
		return 0;
	lr_error_set(LR_EIO, "remote '%s' holds object %s with %lld bytes; the run that names it says %lld", remote,
		     sha256, (long long)holds, (long long)size);
	lr_error_hint("the remote's copy is not the one pushed: nothing of it was written here");
	return LR_EIO;
}
