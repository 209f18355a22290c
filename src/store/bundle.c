/*
 * Run bundles: a run's rows, seal and ledger entries as one JSON text, so a
 * run can leave this store and arrive in another unchanged (docs/schema.md,
 * "Run bundles"). Building one reads the rows the seal covers; checking one
 * recomputes that seal from the bundle's own rows.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/seal.h"
#include "base/sign.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/store-int.h"

#define BUNDLE_FORMAT 1

void lr_bundle_release(struct lr_bundle *b)
{
	free(b->text);
	free(b->kind);
	free(b->status);
	free(b->hostname);
	free(b->started_at);
	lr_strlist_release(&b->issues);
	lr_kvlist_release(&b->objects);
	lr_strlist_release(&b->needs);
	lr_kvlist_release(&b->signers);
	memset(b, 0, sizeof *b);
}

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
				rc = lr_error_set(LR_EINVAL, "cannot bundle table '%s' of run %lld: column '%s' holds a blob or "
						  "text that is not UTF-8", db_seal_queries[q].table, (long long)id,
						  sqlite3_column_name(s, c));
				break;
			}
		}
		if (rc)
			json_decref(row);
		else if (!row || !cols || json_array_append_new(rows, row))
			rc = oom();
	}
	if (!rc && json_array_size(rows) &&
	    json_object_set_new(tables, db_seal_queries[q].table, json_pack("{s:O,s:O}", "columns", cols, "rows", rows)))
		rc = oom();
out:
	sqlite3_finalize(s);
	json_decref(cols);
	json_decref(rows);
	return rc;
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
	sqlite3_stmt *s = NULL;
	char key[32];
	int rc;

	if (!r || !sref) {
		rc = oom();
		goto out;
	}
	if ((rc = db_prepare(st, &s, runs)))
		goto out;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's references", &rc)) {
		snprintf(key, sizeof key, "%lld", (long long)sqlite3_column_int64(s, 0));
		json_object_set_new(r, key, json_string((const char *)sqlite3_column_text(s, 1)));
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = db_prepare(st, &s, sets)))
		goto out;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's references", &rc)) {
		snprintf(key, sizeof key, "%lld", (long long)sqlite3_column_int64(s, 0));
		json_object_set_new(sref, key, json_pack("[s,I]", (const char *)sqlite3_column_text(s, 1),
							 (json_int_t)sqlite3_column_int64(s, 2)));
	}
	if (!rc && (json_object_size(r) || json_object_size(sref)) &&
	    json_object_set_new(doc, "refs", json_pack("{s:O,s:O}", "run", r, "response_set", sref)))
		rc = oom();
out:
	sqlite3_finalize(s);
	json_decref(r);
	json_decref(sref);
	return rc;
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
	json_t *o = json_object();
	sqlite3_stmt *s = NULL;
	int rc;

	if (!o)
		return oom();
	if (!(rc = db_prepare(st, &s, sql))) {
		db_bind_int(s, ":run", id);
		while (db_step_row(st, s, "read the run's objects", &rc)) {
			const char *sha = (const char *)sqlite3_column_text(s, 0);
			int64_t size = sqlite3_column_int64(s, 1);

			if (sqlite3_column_type(s, 1) == SQLITE_NULL) {
				char *path = lr_obj_path(st->dir, sha);
				struct stat sb;

				if (!path || stat(path, &sb)) {
					rc = path ? lr_error_set(LR_EIO, "cannot bundle run %lld: its object %s is not in objects/",
								 (long long)id, sha)
						  : oom();
					free(path);
					break;
				}
				free(path);
				size = sb.st_size;
			}
			json_object_set_new(o, sha, json_integer(size));
		}
	}
	sqlite3_finalize(s);
	if (!rc && json_object_set_new(doc, "objects", o))
		return oom();
	if (rc)
		json_decref(o);
	return rc;
}

/* The run's seal and its ledger entries, with the public key of each signed one. */
static int bundle_seal(struct lr_store *st, int64_t id, json_t *doc)
{
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
		json_object_set_new(doc, "seal", json_pack("{s:s,s:s}", "digest", (const char *)sqlite3_column_text(s, 0),
							   "tables", (const char *)sqlite3_column_text(s, 1)));
	}
	sqlite3_finalize(s);
	s = NULL;
	if (!rc && !found) {
		rc = lr_error_set(LR_EINVAL, "cannot bundle run %lld: it has no seal", (long long)id);
		lr_error_hint("only final runs travel; 'labrun audit' shows runs whose seal is missing");
	}
	if (rc || (rc = db_prepare(st, &s, ledger)))
		goto out;
	db_bind_int(s, ":run", id);
	while (db_step_row(st, s, "read the run's ledger entries", &rc)) {
		json_t *e = json_pack("{s:I,s:s,s:s,s:s,s:s,s:s}", "seq", (json_int_t)sqlite3_column_int64(s, 0),
				      "kind", (const char *)sqlite3_column_text(s, 1), "content",
				      (const char *)sqlite3_column_text(s, 2), "prev", (const char *)sqlite3_column_text(s, 3),
				      "digest", (const char *)sqlite3_column_text(s, 4), "appended_at",
				      (const char *)sqlite3_column_text(s, 5));

		if (e && sqlite3_column_type(s, 7) != SQLITE_NULL) {
			json_object_set_new(e, "public_key", json_string((const char *)sqlite3_column_text(s, 6)));
			json_object_set_new(e, "signature", json_string((const char *)sqlite3_column_text(s, 7)));
		}
		if (!e || json_array_append_new(entries, e))
			rc = oom();
	}
	if (!rc && json_object_set(doc, "ledger", entries))
		rc = oom();
out:
	sqlite3_finalize(s);
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
	if ((rc = db_prepare(st, &s, "SELECT p.bundle, EXISTS (SELECT 1 FROM ledger l JOIN run r ON r.uuid = l.run_uuid"
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

int lr_store_run_bundle(struct lr_store *st, int64_t id, struct lr_bundle *b)
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
	if ((rc = db_exec(st, "BEGIN", "start reading the run")))
		return rc;
	if ((rc = pulled_bundle(st, id, &text)) || text)
		goto parse;
	if (!(doc = json_pack("{s:i}", "labrun_bundle", BUNDLE_FORMAT)) || !(tables = json_object()) ||
	    json_object_set(doc, "tables", tables)) {
		rc = oom();
		goto out;
	}
	for (q = 0; q < db_nseal_queries && !rc; q++)
		rc = bundle_table(st, q, id, tables);
	if (rc || (rc = bundle_refs(st, id, doc)) || (rc = bundle_objects(st, id, doc)) || (rc = bundle_seal(st, id, doc)))
		goto out;
	if (!(text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS))) {
		rc = oom();
		goto out;
	}
parse:
	if (!rc && !(rc = lr_sha256_buf(text, strlen(text), sha)))
		rc = lr_bundle_parse(b, text, sha);
out:
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	free(text);
	json_decref(tables);
	json_decref(doc);
	return rc;
}

/* ---- checking a bundle ---- */

/* "run UUID: WHY" as an LR_EINVAL error, WHY printf-style. */
static int bad(const struct lr_bundle *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const struct lr_bundle *b, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	lr_error_set(LR_EINVAL, "run %s: %s", b->uuid[0] ? b->uuid : "(unknown)", why);
	lr_error_hint("the bundle was changed after its run was sealed, or was damaged on the way");
	return LR_EINVAL;
}

/* Column 'name' of the first row of table 't' (borrowed), or NULL. */
static json_t *first_row_value(json_t *tables, const char *t, const char *name)
{
	json_t *tab = json_object_get(tables, t), *cols = json_object_get(tab, "columns"), *v;
	size_t i;

	json_array_foreach(cols, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return json_array_get(json_array_get(json_object_get(tab, "rows"), 0), i);
	return NULL;
}

static const char *first_row_str(json_t *tables, const char *t, const char *name)
{
	return json_string_value(first_row_value(tables, t, name));
}

/*
 * The host row's fingerprint is recomputed from its facts: hosts meet in a
 * store by fingerprint, so a forged one would merge another host's runs
 * with this one's, or give one host two names.
 */
static int check_host(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *cores = first_row_value(tables, "host", "cores"),
	       *memory = first_row_value(tables, "host", "memory_bytes");
	const char *fp = first_row_str(tables, "host", "fingerprint");
	struct lr_host h = {
		.hostname = (char *)first_row_str(tables, "host", "hostname"),
		.os = (char *)first_row_str(tables, "host", "os"),
		.kernel = (char *)first_row_str(tables, "host", "kernel"),
		.arch = (char *)first_row_str(tables, "host", "arch"),
		.cpu_model = (char *)first_row_str(tables, "host", "cpu_model"),
		.cpu_flags = (char *)first_row_str(tables, "host", "cpu_flags"),
		.cores = json_integer_value(cores),
		.memory_bytes = json_integer_value(memory),
	};
	char now[LR_SHA256_HEX];
	int rc;

	if (json_array_size(json_object_get(json_object_get(tables, "host"), "rows")) != 1 || !fp ||
	    !h.hostname || !h.kernel || !h.arch || !json_is_integer(cores) || (memory && !json_is_null(memory) &&
	    !json_is_integer(memory)))
		return bad(b, "its bundle does not hold exactly one complete host row");
	if ((rc = lr_host_fingerprint(&h, now)))
		return rc;
	if (strcmp(now, fp))
		return bad(b, "its host row's fingerprint %.12s... is not the sha256 of its facts (%.12s...)", fp, now);
	return 0;
}

/* The digest of table 'name's rows in the bundle (of no rows when absent), as seals.c computes it. */
static int table_digest(json_t *tables, const char *name, char hex[LR_SHA256_HEX])
{
	json_t *rows = json_object_get(json_object_get(tables, name), "rows"), *row, *v;
	struct lr_seal_table t;
	size_t i, c;
	int rc;

	if ((rc = lr_seal_table_init(&t)))
		return rc;
	json_array_foreach(rows, i, row) {
		json_array_foreach(row, c, v) {
			if (json_is_integer(v))
				lr_seal_int(&t, json_integer_value(v));
			else if (json_is_real(v))
				lr_seal_real(&t, json_real_value(v));
			else if (json_is_string(v))
				lr_seal_bytes(&t, LR_SEAL_TEXT, json_string_value(v), json_string_length(v));
			else
				lr_seal_null(&t);
		}
		lr_seal_row_end(&t);
	}
	lr_seal_table_final(&t, hex);
	return 0;
}

static int seal_changed(void *arg, const char *table)
{
	return bad(arg, "its rows of table '%s' do not give the seal they carry", table);
}

/* The bundle's rows still give its seal; every table it has is covered by the seal. */
static int check_seal(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *seal = json_object_get(doc, "seal"), *stored, *v;
	const char *digest = json_string_value(json_object_get(seal, "digest")),
		   *text = json_string_value(json_object_get(seal, "tables")), *name;
	struct lr_kvlist now = { 0 };
	char hex[LR_SHA256_HEX], *json = NULL;
	int rc = 0;

	if (!digest || !text || strlen(digest) != 64 || !(stored = json_loads(text, 0, NULL)))
		return bad(b, "its bundle has no readable seal");
	json_object_foreach(tables, name, v)
		if (!json_object_get(stored, name))
			rc = bad(b, "its rows of table '%s' are not covered by its seal", name);
	json_object_foreach(stored, name, v)
		if (!rc && !(rc = table_digest(tables, name, hex)))
			rc = lr_kvlist_add(&now, name, hex, NULL);
	if (!rc)
		rc = lr_seal_compare(text, &now, seal_changed, b);
	if (!rc && !(rc = lr_seal_digest(&now, &json, hex)) && strcmp(hex, digest))
		rc = bad(b, "its seal digest is not the digest of its tables");
	if (!rc)
		memcpy(b->seal, digest, LR_SHA256_HEX);
	free(json);
	json_decref(stored);
	lr_kvlist_release(&now);
	return rc;
}

/* Each ledger entry's digest holds, each signature verifies, and the last one is the seal's. */
static int check_ledger(struct lr_bundle *b, json_t *doc)
{
	json_t *entries = json_object_get(doc, "ledger"), *e;
	char want[LR_SHA256_HEX], fpr[LR_SHA256_HEX];
	const char *content = NULL;
	size_t i;
	int rc = 0;

	json_array_foreach(entries, i, e) {
		const char *kind = json_string_value(json_object_get(e, "kind")),
			   *prev = json_string_value(json_object_get(e, "prev")),
			   *digest = json_string_value(json_object_get(e, "digest")),
			   *pub = json_string_value(json_object_get(e, "public_key")),
			   *sig = json_string_value(json_object_get(e, "signature"));

		content = json_string_value(json_object_get(e, "content"));
		if (!kind || !prev || !digest || !content)
			return bad(b, "ledger entry in its bundle is incomplete");
		if ((rc = lr_ledger_digest(json_integer_value(json_object_get(e, "seq")), b->uuid, kind, content, prev, want)))
			return rc;
		if (strcmp(want, digest))
			return bad(b, "a ledger entry of its bundle does not match its fields");
		if ((pub || sig) && (!pub || !sig || lr_key_fingerprint(pub, fpr) || lr_verify(pub, digest, sig)))
			return bad(b, "the signature of a ledger entry of its bundle does not verify");
		if (pub) {
			char seq[24];

			snprintf(seq, sizeof seq, "%lld", (long long)json_integer_value(json_object_get(e, "seq")));
			if ((rc = lr_kvlist_add(&b->signers, seq, pub, NULL)))
				return rc;
		}
	}
	if (!content || strcmp(content, b->seal))
		return bad(b, "its last ledger entry is not its seal");
	return 0;
}

/* The fields push and pull need: what the run is, its issues, objects and the runs it points at. */
static int bundle_fields(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *v, *row;
	const char *uuid = first_row_str(tables, "run", "uuid"), *key;
	json_t *issues = json_object_get(json_object_get(tables, "run_issue"), "rows");
	char size[32];
	size_t i;
	int rc = 0;

	if (json_integer_value(json_object_get(doc, "labrun_bundle")) != BUNDLE_FORMAT) {
		lr_error_set(LR_EINVAL, "cannot read a run bundle of format %lld: this labrun reads format %d",
			     (long long)json_integer_value(json_object_get(doc, "labrun_bundle")), BUNDLE_FORMAT);
		lr_error_hint("a newer labrun pushed it: upgrade labrun on this host");
		return LR_EINVAL;
	}
	if (!uuid || strlen(uuid) != 36 || json_array_size(json_object_get(json_object_get(tables, "run"), "rows")) != 1)
		return bad(b, "its bundle does not hold exactly one run row");
	snprintf(b->uuid, sizeof b->uuid, "%s", uuid);
	if (!(b->kind = lr_strdup0(first_row_str(tables, "run", "kind"))) ||
	    !(b->status = lr_strdup0(first_row_str(tables, "run", "status"))) ||
	    !(b->started_at = lr_strdup0(first_row_str(tables, "run", "started_at"))) ||
	    !(b->hostname = lr_strdup0(first_row_str(tables, "host", "hostname"))))
		return bad(b, "its bundle lacks its kind, status, start or host");
	if (!strcmp(b->status, "running"))
		return bad(b, "its bundle holds a run still running");
	json_array_foreach(issues, i, row)
		if (!rc && json_is_string(json_array_get(row, 1)))
			rc = lr_strlist_add(&b->issues, json_string_value(json_array_get(row, 1)));
	json_object_foreach(json_object_get(doc, "objects"), key, v) {
		if (rc || strlen(key) != 64 || strspn(key, "0123456789abcdef") != 64 || !json_is_integer(v))
			return rc ? rc : bad(b, "its bundle names an object that is not a sha256");
		snprintf(size, sizeof size, "%lld", (long long)json_integer_value(v));
		rc = lr_kvlist_add(&b->objects, key, size, NULL);
	}
	json_object_foreach(json_object_get(json_object_get(doc, "refs"), "run"), key, v)
		if (!rc && json_is_string(v) && !lr_strlist_contains(&b->needs, json_string_value(v)))
			rc = lr_strlist_add(&b->needs, json_string_value(v));
	json_object_foreach(json_object_get(json_object_get(doc, "refs"), "response_set"), key, v)
		if (!rc && json_is_string(json_array_get(v, 0)) &&
		    !lr_strlist_contains(&b->needs, json_string_value(json_array_get(v, 0))))
			rc = lr_strlist_add(&b->needs, json_string_value(json_array_get(v, 0)));
	return rc;
}

/* The columns whose values name objects in objects/ (docs/schema.md). */
static const struct {
	const char *table, *column;
} object_columns[] = {
	{ "artifact", "sha256" },	   { "execution", "stdout_sha256" },   { "execution", "stderr_sha256" },
	{ "execution_output", "sha256" }, { "response_set", "raw_sha256" }, { "gate", "key_sha256" },
};

/*
 * Every value of a column that names an object is the sha256 of an object
 * the bundle carries: from another host, a path there ('/etc/shadow',
 * '../../x') would make fsck, scan and cat read any file here.
 */
static int check_objects(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *row;
	size_t k, i, c, n;

	for (k = 0; k < sizeof object_columns / sizeof object_columns[0]; k++) {
		json_t *t = json_object_get(tables, object_columns[k].table), *cols = json_object_get(t, "columns");
		const char *name;

		for (c = 0, n = json_array_size(cols); c < n; c++)
			if ((name = json_string_value(json_array_get(cols, c))) && !strcmp(name, object_columns[k].column))
				break;
		if (c == n)
			continue;
		json_array_foreach(json_object_get(t, "rows"), i, row) {
			json_t *v = json_array_get(row, c);
			const char *sha = json_string_value(v);

			if (json_is_null(v))
				continue;
			if (!sha || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
				return bad(b, "its table '%s', column '%s', row %zu, names an object by something that is not "
					      "a sha256", object_columns[k].table, object_columns[k].column, i + 1);
			if (!lr_kvlist_find(&b->objects, sha))
				return bad(b, "its table '%s', column '%s', row %zu, names object %s, which the bundle does "
					      "not carry", object_columns[k].table, object_columns[k].column, i + 1, sha);
		}
	}
	return 0;
}

int lr_bundle_parse(struct lr_bundle *b, const char *text, const char *sha256)
{
	char hex[LR_SHA256_HEX];
	json_error_t err;
	json_t *doc;
	int rc;

	memset(b, 0, sizeof *b);
	if ((rc = lr_sha256_buf(text, strlen(text), hex)))
		return rc;
	if (strcmp(hex, sha256)) {
		lr_error_set(LR_EINVAL, "a run bundle does not match its sha256: %.12s... was expected, it has %.12s...",
			     sha256, hex);
		lr_error_hint("the bundle was changed or damaged on the way");
		return LR_EINVAL;
	}
	if (!(doc = json_loads(text, JSON_REJECT_DUPLICATES, &err))) {
		lr_error_set(LR_EINVAL, "cannot read a run bundle: %s (line %d)", err.text, err.line);
		return LR_EINVAL;
	}
	if (!(rc = bundle_fields(b, doc)) && !(rc = check_host(b, doc)) && !(rc = check_objects(b, doc)) && !(rc = check_seal(b, doc)) &&
	    !(rc = check_ledger(b, doc)) &&
	    !(b->text = strdup(text)))
		rc = oom();
	if (!rc)
		memcpy(b->sha256, sha256, LR_SHA256_HEX);
	json_decref(doc);
	if (rc)
		lr_bundle_release(b);
	return rc;
}
