/* Seals: a digest per table of a run's rows, written when the run becomes final. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/seal.h"
#include "store/store-int.h"

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
};

/* Each table's digest of run 'id', in the order of seal_queries (see base/seal.h). */
static int seal_tables(struct lr_store *st, int64_t id, struct lr_kvlist *out)
{
	size_t q;
	int rc = 0;

	for (q = 0; q < sizeof seal_queries / sizeof seal_queries[0] && !rc; q++) {
		sqlite3_stmt *s = NULL;
		struct lr_seal_table t;
		char hex[LR_SHA256_HEX];
		int c, n;

		if ((rc = db_prepare(st, &s, seal_queries[q].sql)) || (rc = lr_seal_table_init(&t))) {
			sqlite3_finalize(s);
			break;
		}
		db_bind_int(s, ":run", id);
		while (sqlite3_step(s) == SQLITE_ROW) {
			n = sqlite3_column_count(s);
			for (c = 0; c < n; c++) {
				switch (sqlite3_column_type(s, c)) {
				case SQLITE_INTEGER: lr_seal_int(&t, sqlite3_column_int64(s, c)); break;
				case SQLITE_FLOAT: lr_seal_real(&t, sqlite3_column_double(s, c)); break;
				case SQLITE_BLOB:
					lr_seal_bytes(&t, LR_SEAL_BLOB, sqlite3_column_blob(s, c),
						      (size_t)sqlite3_column_bytes(s, c));
					break;
				case SQLITE_TEXT:
					lr_seal_bytes(&t, LR_SEAL_TEXT, sqlite3_column_text(s, c),
						      (size_t)sqlite3_column_bytes(s, c));
					break;
				default: lr_seal_null(&t); break;
				}
			}
			lr_seal_row_end(&t);
		}
		sqlite3_finalize(s);
		lr_seal_table_final(&t, hex);
		rc = lr_kvlist_add(out, seal_queries[q].table, hex, NULL);
	}
	return rc;
}

/* Write (or rewrite) the seal of run 'id'; call inside a write transaction. */
int db_seal_run(struct lr_store *st, int64_t id, const char *now)
{
	static const char sql[] =
		"INSERT INTO run_seal(run_id, digest, tables, sealed_at) VALUES (:run, :digest, :tables, :now)"
		" ON CONFLICT(run_id) DO UPDATE SET digest = excluded.digest, tables = excluded.tables,"
		" sealed_at = excluded.sealed_at";
	char digest[LR_SHA256_HEX], *tables = NULL;
	struct lr_kvlist digests = { 0 };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = seal_tables(st, id, &digests)) || (rc = lr_seal_digest(&digests, &tables, digest)) ||
	    (rc = db_prepare(st, &s, sql)))
		goto out;
	db_bind_int(s, ":run", id);
	db_bind_text(s, ":digest", digest);
	db_bind_text(s, ":tables", tables);
	db_bind_text(s, ":now", now);
	rc = db_step_done(st, s, "seal the run");
out:
	sqlite3_finalize(s);
	lr_kvlist_release(&digests);
	free(tables);
	return rc;
}

int lr_store_seal_check(struct lr_store *st, int64_t id, lr_str_fn changed, void *arg, int *sealed)
{
	struct lr_kvlist digests = { 0 };
	sqlite3_stmt *s = NULL;
	char *stored = NULL;
	int rc;

	*sealed = 0;
	if ((rc = db_prepare(st, &s, "SELECT tables FROM run_seal WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", id);
	if (sqlite3_step(s) == SQLITE_ROW)
		stored = db_col_dup(s, 0);
	sqlite3_finalize(s);
	if (!stored)
		return 0;
	*sealed = 1;
	if (!(rc = seal_tables(st, id, &digests)))
		rc = lr_seal_compare(stored, &digests, changed, arg);
	lr_kvlist_release(&digests);
	free(stored);
	return rc;
}
