/* Seals: a digest per table of a run's rows, written when the run becomes final. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/list.h"
#include "base/seal.h"
#include "base/sign.h"
#include "base/trust.h"
#include "store/ledger.h"
#include "store/sealfeed.h"
#include "store/store-int.h"

/* Each query returns one run's rows of a table in a fixed order; every column counts. */
const struct db_seal_query db_seal_queries[] = {
	{ "run", "SELECT * FROM run WHERE id = :run" },
	/* migration 10: the host and experiment rows the run points at are part of it */
	{ "host", "SELECT h.* FROM host h JOIN run r ON r.host_id = h.id WHERE r.id = :run" },
	{ "experiment", "SELECT e.* FROM experiment e JOIN run r ON r.experiment_id = e.id WHERE r.id = :run" },
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
	/* migration 8: command experiments and serving evidence */
	{ "arm_command", "SELECT * FROM arm_command WHERE run_id = :run ORDER BY arm_idx" },
	{ "condition_param", "SELECT * FROM condition_param WHERE run_id = :run ORDER BY condition_idx, key" },
	{ "execution", "SELECT * FROM execution WHERE run_id = :run ORDER BY condition_idx, seq" },
	{ "execution_output", "SELECT * FROM execution_output WHERE run_id = :run ORDER BY condition_idx, seq, path" },
	{ "metric", "SELECT * FROM metric WHERE run_id = :run ORDER BY condition_idx, seq, name" },
	{ "response_set", "SELECT * FROM response_set WHERE run_id = :run ORDER BY id" },
	{ "response", "SELECT r.* FROM response r JOIN response_set s ON s.id = r.set_id WHERE s.run_id = :run"
		      " ORDER BY r.set_id, r.case_id" },
	{ "comparison", "SELECT * FROM comparison WHERE run_id = :run ORDER BY id" },
	{ "comparison_case", "SELECT x.* FROM comparison_case x JOIN comparison c ON c.id = x.comparison_id"
			     " WHERE c.run_id = :run ORDER BY x.comparison_id, x.case_id" },
	{ "gate", "SELECT * FROM gate WHERE run_id = :run ORDER BY id" },
	{ "gate_case", "SELECT x.* FROM gate_case x JOIN gate g ON g.id = x.gate_id WHERE g.run_id = :run"
		       " ORDER BY x.gate_id, x.case_id" },
	/* migration 12 */
	{ "artifact_entry", "SELECT * FROM artifact_entry WHERE run_id = :run ORDER BY role, name" },
	/* migration 14 */
	{ "run_digest", "SELECT * FROM run_digest WHERE run_id = :run ORDER BY name" },
	/* migration 18 */
	{ "run_design", "SELECT * FROM run_design WHERE run_id = :run" },
	/* migration 19 */
	{ "bench_sample", "SELECT * FROM bench_sample WHERE run_id = :run ORDER BY seq" },
	{ "output_dropped", "SELECT * FROM output_dropped WHERE run_id = :run ORDER BY condition_idx, seq, stream" },
	/* migration 21 */
	{ "collect_pass", "SELECT p.* FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.run_id = :run"
			  " ORDER BY p.set_id" },
	{ "collect_request", "SELECT x.* FROM collect_request x JOIN response_set s ON s.id = x.set_id"
			     " WHERE s.run_id = :run ORDER BY x.set_id, x.seq" },
	{ "collect_gauge",
	  "SELECT g.* FROM collect_gauge g JOIN response_set s ON s.id = g.set_id WHERE s.run_id = :run"
	  " ORDER BY g.set_id, g.seq" },
	/* migration 23 */
	{ "check_result", "SELECT * FROM check_result WHERE run_id = :run ORDER BY seq" },
	/* migration 24 */
	{ "collect_check", "SELECT x.* FROM collect_check x JOIN response_set s ON s.id = x.set_id"
			   " WHERE s.run_id = :run ORDER BY x.set_id, x.seq" },
	{ "collect_validity", "SELECT v.* FROM collect_validity v JOIN response_set s ON s.id = v.set_id"
			      " WHERE s.run_id = :run ORDER BY v.set_id" },
	{ "collect_gauge_failure", "SELECT g.* FROM collect_gauge_failure g JOIN response_set s ON s.id = g.set_id"
				   " WHERE s.run_id = :run ORDER BY g.set_id, g.seq" },
	/* migration 25: what a command left running */
	{ "leftover", "SELECT * FROM leftover WHERE run_id = :run ORDER BY condition_idx, seq, n" },
	/* migration 26 */
	{ "design_head", "SELECT * FROM design_head WHERE run_id = :run" },
	/* migration 27 */
	{ "tool_probe", "SELECT * FROM tool_probe WHERE run_id = :run ORDER BY name" },
	{ "recorder", "SELECT * FROM recorder WHERE run_id = :run ORDER BY key" },
	{ "collect_identity", "SELECT x.* FROM collect_identity x JOIN response_set s ON s.id = x.set_id"
			      " WHERE s.run_id = :run ORDER BY x.set_id, x.path" },
};
const size_t db_nseal_queries = sizeof db_seal_queries / sizeof db_seal_queries[0];

/* Whether table is one of the NULL-terminated list (NULL: every table). */
static int listed(const char *const *tables, const char *table)
{
	if (!tables)
		return 1;
	for (; *tables; tables++)
		if (!strcmp(*tables, table))
			return 1;
	return 0;
}

/* The digest of sealed table 'q' of run 'id'. */
static int table_digest(struct lr_store *st, size_t q, int64_t id, char hex[LR_SHA256_HEX])
{
	struct lr_seal_table t;
	int rc;

	if ((rc = lr_seal_table_init(&t)))
		return rc;
	rc = db_seal_feed_table(st, &db_seal_queries[q], id, &t);
	lr_seal_table_final(&t, hex);
	return rc;
}

/* Start 't' on sealed table 'table' of run 'id' with the rows it has now. */
static int seal_table_start(struct lr_store *st, const char *table, int64_t id, struct lr_seal_table *t)
{
	size_t q;
	int rc;

	for (q = 0; q < db_nseal_queries && strcmp(db_seal_queries[q].table, table); q++)
		;
	if (q == db_nseal_queries)
		return lr_error_set(LR_EINVAL, "no sealed table '%s'", table);
	if ((rc = lr_seal_table_init(t)))
		return rc;
	return db_seal_feed_table(st, &db_seal_queries[q], id, t);
}

int db_run_final(struct lr_store *st, int64_t run, int64_t *final)
{
	return db_one_int(st, "SELECT status != 'running' FROM run WHERE id = :run", ":run", run, final,
			  "read the run's status");
}

int db_seal_start(struct lr_store *st, int64_t run, const char *table, struct lr_seal_table **t)
{
	int64_t final;
	int rc;

	*t = NULL;
	if ((rc = db_run_final(st, run, &final)) || !final)
		return rc;
	if (!(*t = malloc(sizeof **t)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = seal_table_start(st, table, run, *t))) {
		db_seal_drop(*t);
		*t = NULL;
	}
	return rc;
}

void db_seal_drop(struct lr_seal_table *t)
{
	if (t)
		lr_sha256_release(&t->h); /* a finished digest has released it already */
	free(t);
}

/*
 * Each table's digest of run 'id', in the order of seal_queries (see
 * base/seal.h): computed for the tables 'changed' lists (NULL: all), and for
 * the others taken from the run's stored seal 'sealed' (a JSON object) when
 * it has them; the table 'known' names (may be NULL) has the digest it
 * gives, computed as its rows were written.
 */
static int seal_tables(struct lr_store *st, int64_t id, const char *const *changed, const json_t *sealed,
		       const struct lr_kv *known, struct lr_kvlist *out)
{
	size_t q;
	int rc = 0;

	for (q = 0; q < db_nseal_queries && !rc; q++) {
		const char *kept = json_string_value(json_object_get(sealed, db_seal_queries[q].table));
		char hex[LR_SHA256_HEX];

		if (kept && !listed(changed, db_seal_queries[q].table)) {
			rc = lr_kvlist_add(out, db_seal_queries[q].table, kept, NULL);
			continue;
		}
		if (known && !strcmp(known->key, db_seal_queries[q].table)) {
			rc = lr_kvlist_add(out, known->key, known->value, NULL);
			continue;
		}
		if ((rc = table_digest(st, q, id, hex)))
			break;
		rc = lr_kvlist_add(out, db_seal_queries[q].table, hex, NULL);
	}
	return rc;
}

void lr_store_set_signer(struct lr_store *st, struct lr_signer *signer)
{
	lr_signer_free(st->signer);
	st->signer = signer;
}

const struct lr_signer *lr_store_signer(const struct lr_store *st)
{
	return st->signer;
}

void lr_store_set_sign_hook(struct lr_store *st, lr_sign_hook_fn fn, void *arg)
{
	st->sign_hook = fn;
	st->sign_arg = arg;
}

int lr_store_refuse_unsigned(struct lr_store *st, const char *why, const char *hint)
{
	free(st->unsigned_why);
	free(st->unsigned_hint);
	st->unsigned_why = strdup(why);
	st->unsigned_hint = hint ? strdup(hint) : NULL;
	if (!st->unsigned_why || (hint && !st->unsigned_hint))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

int lr_store_id(struct lr_store *st, char id[LR_STORE_ID_LEN])
{
	sqlite3_stmt *s = NULL;
	int rc;

	id[0] = 0;
	if ((rc = db_prepare(st, &s, "SELECT id FROM store_identity LIMIT 1")))
		return rc;
	if (db_step_row(st, s, "read the store's id", &rc))
		db_col_copy(s, 0, id, LR_STORE_ID_LEN);
	sqlite3_finalize(s);
	if (!rc && !id[0])
		rc = lr_error_set(LR_ESTORE, "store '%s' has no id: its store_identity row was removed", st->dir);
	return rc;
}

/* Store the signer's public key once, and sign an entry's digest (its 64 hex characters). */
static int sign_entry(struct lr_store *st, int64_t seq, const char *digest, char sig[LR_SIG_HEX])
{
	static const char key[] = "INSERT OR IGNORE INTO signing_key(fingerprint, public_key, added_at)"
				  " VALUES (:fpr, :pub, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
	sqlite3_stmt *s = NULL;
	int rc;

	if (st->sign_hook && (rc = st->sign_hook(st->sign_arg, st, seq)))
		return rc;
	if ((rc = db_prepare(st, &s, key)))
		return rc;
	db_bind_text(s, ":fpr", lr_signer_fingerprint(st->signer));
	db_bind_text(s, ":pub", lr_signer_public(st->signer));
	rc = db_step_done(st, s, "store the signing key");
	sqlite3_finalize(s);
	return rc ? rc : lr_sign(st->signer, digest, sig);
}

/*
 * Append run 'id' to the ledger with 'content': as 'kind', or with kind NULL
 * (a seal) 'final' the first time, else 'amend' (a design entry is no seal).
 * *seq_out, when not NULL, gets the entry's number.
 */
int db_ledger_append(struct lr_store *st, int64_t id, const char *kind, const char *content, const char *now,
		     int64_t *seq_out)
{
	static const char ins[] = "INSERT INTO ledger(seq, run_uuid, kind, content, prev, digest, appended_at,"
				  " key_fingerprint, signature)"
				  " VALUES (:seq, :uuid, :kind, :content, :prev, :digest, :now, :key, :sig)";
	char prev[LR_SHA256_HEX] = LR_LEDGER_GENESIS, digest[LR_SHA256_HEX], sig[LR_SIG_HEX], *uuid = NULL;
	sqlite3_stmt *s = NULL;
	int64_t seq = 1;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT uuid, EXISTS (SELECT 1 FROM ledger WHERE run_uuid = run.uuid AND kind <> 'design'),"
			     " (SELECT seq FROM ledger ORDER BY seq DESC LIMIT 1),"
			     " (SELECT digest FROM ledger ORDER BY seq DESC LIMIT 1) FROM run WHERE id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (!db_step_row(st, s, "read the run for the ledger", &rc) || !(uuid = db_col_dup(s, 0))) {
		sqlite3_finalize(s);
		return rc ? rc : db_error(st, "read the run for the ledger");
	}
	if (!kind)
		kind = sqlite3_column_int(s, 1) ? "amend" : "final";
	if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
		seq = sqlite3_column_int64(s, 2) + 1;
		db_col_copy(s, 3, prev, sizeof prev);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (!st->signer && st->unsigned_why) {
		rc = lr_error_set(LR_EREFUSED, "cannot append run %s to the ledger unsigned: %s", uuid,
				  st->unsigned_why);
		if (st->unsigned_hint)
			lr_error_hint("%s", st->unsigned_hint);
	}
	if (!rc && !(rc = lr_ledger_digest(seq, uuid, kind, content, prev, digest)) && st->signer)
		rc = sign_entry(st, seq, digest, sig);
	if (!rc && !(rc = db_prepare(st, &s, ins))) {
		db_bind_text(s, ":key", st->signer ? lr_signer_fingerprint(st->signer) : NULL);
		db_bind_text(s, ":sig", st->signer ? sig : NULL);
		db_bind_int(s, ":seq", seq);
		db_bind_text(s, ":uuid", uuid);
		db_bind_text(s, ":kind", kind);
		db_bind_text(s, ":content", content);
		db_bind_text(s, ":prev", prev);
		db_bind_text(s, ":digest", digest);
		db_bind_text(s, ":now", now);
		rc = db_step_done(st, s, "append to the ledger");
	}
	sqlite3_finalize(s);
	free(uuid);
	if (!rc && seq_out)
		*seq_out = seq;
	return rc;
}

static int seal_run(struct lr_store *st, int64_t id, const char *now, const char *const *changed, const json_t *sealed,
		    const struct lr_kv *known)
{
	static const char sql[] =
		"INSERT INTO run_seal(run_id, digest, tables, sealed_at) VALUES (:run, :digest, :tables, :now)"
		" ON CONFLICT(run_id) DO UPDATE SET digest = excluded.digest, tables = excluded.tables,"
		" sealed_at = excluded.sealed_at";
	char digest[LR_SHA256_HEX], *tables = NULL;
	struct lr_kvlist digests = { 0 };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = seal_tables(st, id, changed, sealed, known, &digests)) ||
	    (rc = lr_seal_digest(&digests, &tables, digest)) || (rc = db_prepare(st, &s, sql)))
		goto out;
	db_bind_int(s, ":run", id);
	db_bind_text(s, ":digest", digest);
	db_bind_text(s, ":tables", tables);
	db_bind_text(s, ":now", now);
	if (!(rc = db_step_done(st, s, "seal the run")))
		rc = db_ledger_append(st, id, NULL, digest, now, NULL);
out:
	sqlite3_finalize(s);
	lr_kvlist_release(&digests);
	free(tables);
	return rc;
}

/* Write (or rewrite) the seal of run 'id' and append it to the ledger; call inside a write transaction. */
int db_seal_run(struct lr_store *st, int64_t id, const char *now)
{
	return seal_run(st, id, now, NULL, NULL, NULL);
}

int db_reseal_run(struct lr_store *st, int64_t id, const char *now, const char *const *changed,
		  const struct lr_kv *known)
{
	sqlite3_stmt *s = NULL;
	json_t *sealed = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT tables FROM run_seal WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the run's seal", &rc) && sqlite3_column_type(s, 0) == SQLITE_TEXT)
		sealed = json_loads((const char *)sqlite3_column_text(s, 0), 0, NULL);
	sqlite3_finalize(s);
	if (!rc)
		rc = seal_run(st, id, now, changed, json_is_object(sealed) ? sealed : NULL, known);
	json_decref(sealed);
	return rc;
}

/*
 * The content digests of runs computed since the database last changed:
 * audit checks each run's seal and then walks the ledger, which needs the
 * same digest, and reading a run of a million repetitions twice was half
 * of it. Valid while neither this connection (total_changes) nor another
 * (data_version) has written.
 */
struct seal_memo {
	sqlite3_int64 changes, version;
	size_t n, cap;
	int unsorted; /* runs were not put in ascending order: search linearly */
	struct {
		int64_t run;
		char digest[LR_SHA256_HEX];
	} * v;
};

void db_seal_memo_free(struct lr_store *st)
{
	if (st->memo)
		free(st->memo->v);
	free(st->memo);
	st->memo = NULL;
}

static sqlite3_int64 data_version(struct lr_store *st)
{
	sqlite3_stmt *s = NULL;
	sqlite3_int64 v = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA data_version", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The memo, emptied first when the database changed since it was filled. */
static struct seal_memo *memo_current(struct lr_store *st)
{
	sqlite3_int64 changes = sqlite3_total_changes64(st->db), version = data_version(st);

	if (!st->memo && !(st->memo = calloc(1, sizeof *st->memo)))
		return NULL;
	if (st->memo->changes != changes || st->memo->version != version) {
		st->memo->n = 0;
		st->memo->unsorted = 0;
		st->memo->changes = changes;
		st->memo->version = version;
	}
	return st->memo;
}

static void memo_put(struct lr_store *st, int64_t run, const char digest[LR_SHA256_HEX])
{
	struct seal_memo *m = memo_current(st);

	if (!m)
		return;
	if (LR_ALLOC_GROW(m->v, m->n + 1, m->cap))
		return; /* a memo is only a shortcut */
	if (m->n && m->v[m->n - 1].run >= run)
		m->unsorted = 1;
	m->v[m->n].run = run;
	memcpy(m->v[m->n++].digest, digest, LR_SHA256_HEX);
}

int64_t lr_store_write_stamp(struct lr_store *st)
{
	return (int64_t)sqlite3_total_changes64(st->db) + (int64_t)data_version(st); /* both only grow */
}

void lr_store_seal_memo_adopt(struct lr_store *to, struct lr_store *from, int64_t stamp)
{
	struct seal_memo *m = from->memo;

	if (!m || lr_store_write_stamp(to) != stamp || m->changes != sqlite3_total_changes64(from->db) ||
	    m->version != data_version(from))
		return; /* a write since: 'to' computes what it needs itself */
	for (size_t i = 0; i < m->n; i++)
		memo_put(to, m->v[i].run, m->v[i].digest);
}

/* The memo's digest of 'run', or NULL. */
static const char *memo_get(struct lr_store *st, int64_t run)
{
	struct seal_memo *m = memo_current(st);
	size_t lo = 0, hi, i;

	if (!m)
		return NULL;
	if (m->unsorted) {
		for (i = 0; i < m->n; i++)
			if (m->v[i].run == run)
				return m->v[i].digest;
		return NULL;
	}
	for (hi = m->n; lo < hi;) {
		i = lo + (hi - lo) / 2;
		if (m->v[i].run == run)
			return m->v[i].digest;
		if (m->v[i].run < run)
			lo = i + 1;
		else
			hi = i;
	}
	return NULL;
}

/* The stored seal's tables (its JSON, malloc'd in *out), NULL when run 'id' has no seal. */
static int stored_seal(struct lr_store *st, int64_t id, char **out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*out = NULL;
	if ((rc = db_prepare(st, &s, "SELECT tables FROM run_seal WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (db_step_row(st, s, "read the run's seal", &rc) && !(*out = db_col_dup(s, 0)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	sqlite3_finalize(s);
	return rc;
}

int lr_store_seal_check(struct lr_store *st, int64_t id, lr_str_fn changed, void *arg, int *sealed)
{
	struct lr_kvlist digests = { 0 };
	char *stored = NULL;
	int rc;

	*sealed = 0;
	if ((rc = stored_seal(st, id, &stored)) || !stored)
		return rc;
	*sealed = 1;
	if (!(rc = seal_tables(st, id, NULL, NULL, NULL, &digests)))
		rc = lr_seal_compare(stored, &digests, changed, arg);
	if (!rc) { /* the ledger walk asks for the same digest: keep it */
		char digest[LR_SHA256_HEX];

		if (!lr_seal_digest_as_sealed(&digests, stored, digest))
			memo_put(st, id, digest);
	}
	lr_kvlist_release(&digests);
	free(stored);
	return rc;
}

/*
 * Migration 10: seal every sealed run again (its host and experiment rows
 * are now covered) and chain it into the new ledger, in run order, with its
 * old sealing time. Inside the migration's transaction.
 */
int db_ledger_backfill(struct lr_store *st)
{
	struct lr_kvlist runs = { 0 };
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT run_id, sealed_at FROM run_seal ORDER BY run_id")))
		return rc;
	while (db_step_row(st, s, "read the sealed runs", &rc))
		rc = lr_kvlist_add(&runs, (const char *)sqlite3_column_text(s, 0),
				   (const char *)sqlite3_column_text(s, 1), NULL);
	sqlite3_finalize(s);
	for (i = 0; i < runs.n && !rc; i++)
		rc = db_seal_run(st, strtoll(runs.v[i].key, NULL, 10), runs.v[i].value);
	lr_kvlist_release(&runs);
	return rc;
}

/* The seal digest of run 'id' computed from its rows now (or since nothing changed). */
int db_seal_content_now(struct lr_store *st, int64_t id, char digest[LR_SHA256_HEX])
{
	struct lr_kvlist digests = { 0 };
	const char *known = memo_get(st, id);
	char *stored = NULL;
	int rc;

	if (known) {
		memcpy(digest, known, LR_SHA256_HEX);
		return 0;
	}
	/* a run sealed before a table existed was sealed without it */
	if (!(rc = stored_seal(st, id, &stored)) && !(rc = seal_tables(st, id, NULL, NULL, NULL, &digests)))
		rc = lr_seal_digest_as_sealed(&digests, stored, digest);
	lr_kvlist_release(&digests);
	free(stored);
	return rc;
}
