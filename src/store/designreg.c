/* Pre-registered designs: the design digest, its ledger entry, the design head, the earlier registration. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/seal.h"
#include "store/designreg.h"
#include "store/store-int.h"

/*
 * The parts of a design, each the run's rows of one table without their run
 * ids (a pulled run has other ids, the same design): what docs/schema.md
 * lists under "Design entries". Columns a run writes once its blocks are
 * timed (a condition's outcome, its loop count) are left out.
 */
static const struct db_seal_query design_parts[] = {
	{ "run_definition", "SELECT text FROM run_definition WHERE run_id = :run" },
	{ "run_design", "SELECT name, title, target, backend, block_order, blocks, warmup, margin, seed, metric"
			" FROM run_design WHERE run_id = :run" },
	{ "arm",
	  "SELECT idx, name, kernel, contract, layout, mode, threads FROM arm WHERE run_id = :run ORDER BY idx" },
	{ "arm_command", "SELECT arm_idx, command, cwd, timeout_s, env_json, outputs, responses, route"
			 " FROM arm_command WHERE run_id = :run ORDER BY arm_idx" },
	{ "condition", "SELECT idx, model, layers, tokens FROM condition WHERE run_id = :run ORDER BY idx" },
	{ "condition_param", "SELECT condition_idx, key, value, position FROM condition_param WHERE run_id = :run"
			     " ORDER BY condition_idx, key" },
	{ "serving_cases", "SELECT sha256 FROM run_digest WHERE run_id = :run AND name = 'serving_cases'" },
};

int lr_store_design_digest(struct lr_store *st, int64_t id, char digest[LR_SHA256_HEX], struct lr_kvlist *parts)
{
	struct lr_kvlist all = { 0 };
	char hex[LR_SHA256_HEX], *json = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof design_parts / sizeof *design_parts && !rc; i++)
		if (!(rc = db_seal_query_digest(st, design_parts[i].sql, id, hex)))
			rc = lr_kvlist_add(&all, design_parts[i].table, hex, NULL);
	if (!rc)
		rc = lr_seal_digest(&all, &json, digest);
	for (i = 0; parts && !rc && i < all.n; i++)
		rc = lr_kvlist_add(parts, all.v[i].key, all.v[i].value, NULL);
	free(json);
	lr_kvlist_release(&all);
	return rc;
}

int lr_store_design_register(struct lr_store *st, int64_t id, const char *cases_sha256, int64_t *seq)
{
	static const char cases[] = "INSERT INTO run_digest(run_id, name, sha256) VALUES (:run, 'serving_cases', :sha)";
	char digest[LR_SHA256_HEX];
	sqlite3_stmt *s = NULL;
	int rc;

	*seq = 0;
	if ((rc = db_begin_at(st)))
		return rc;
	if (cases_sha256 && !(rc = db_prepare(st, &s, cases))) {
		db_bind_int(s, ":run", id);
		db_bind_text(s, ":sha", cases_sha256);
		rc = db_step_final(st, s, "store the case set's digest");
	}
	if (!rc && !(rc = lr_store_design_digest(st, id, digest, NULL)))
		rc = db_ledger_append(st, id, "design", digest, st->now, seq);
	return db_commit(st, rc);
}

static const struct db_col reg_cols[] = {
	DB_COL(struct lr_design_reg, seq, DB_INT),       DB_COL(struct lr_design_reg, digest, DB_TEXT),
	DB_COL(struct lr_design_reg, content, DB_TEXT),  DB_COL(struct lr_design_reg, appended_at, DB_TEXT),
	DB_COL(struct lr_design_reg, is_signed, DB_INT),
};
/* A design_head row: read in this order, written by these parameters. */
static const struct db_col head_cols[] = {
	DB_PARAM(":seq", struct lr_design_reg, head_seq, DB_INT),
	DB_PARAM(":path", struct lr_design_reg, head_path, DB_TEXT),
	DB_PARAM(":sha", struct lr_design_reg, head_sha256, DB_TEXT),
	DB_PARAM(":now", struct lr_design_reg, head_at, DB_TEXT),
};

int lr_store_design_head_add(struct lr_store *st, int64_t id, const char *path, const char *sha256, int64_t seq)
{
	static const char sql[] = "INSERT INTO design_head(run_id, ledger_seq, path, sha256, written_at)"
				  " VALUES (:run, :seq, :path, :sha, :now)";
	struct lr_design_reg h = { .head_seq = seq };
	struct db_items row = { ":run", id, NULL, &h, sizeof h, DB_COLS(head_cols) };
	int rc;

	if (strlen(path) >= sizeof h.head_path)
		return lr_error_set(LR_EINVAL, "cannot record the design head '%s': its path is too long", path);
	snprintf(h.head_path, sizeof h.head_path, "%s", path);
	snprintf(h.head_sha256, sizeof h.head_sha256, "%s", sha256);
	if ((rc = db_begin_at(st)))
		return rc;
	snprintf(h.head_at, sizeof h.head_at, "%s", st->now);
	rc = db_insert_each(st, sql, 1, db_bind_items, &row, "record the design head");
	return db_commit(st, rc);
}

int lr_store_design_reg(struct lr_store *st, int64_t id, struct lr_design_reg *out)
{
	static const char local[] =
		"SELECT seq, digest, content, appended_at, signature IS NOT NULL FROM ledger"
		" WHERE run_uuid = (SELECT uuid FROM run WHERE id = :run) AND kind = 'design' ORDER BY seq LIMIT 1";
	/* a pulled run's design entry is its origin's, in the bundle it came in */
	static const char pulled[] = "SELECT json_extract(e.value, '$.seq'), json_extract(e.value, '$.digest'),"
				     " json_extract(e.value, '$.content'), json_extract(e.value, '$.appended_at'),"
				     " json_extract(e.value, '$.signature') IS NOT NULL"
				     " FROM pulled_run p, json_each(p.bundle, '$.ledger') e"
				     " WHERE p.run_id = :run AND json_extract(e.value, '$.kind') = 'design'"
				     " ORDER BY json_extract(e.value, '$.seq') LIMIT 1";
	static const char head[] = "SELECT ledger_seq, path, sha256, written_at FROM design_head WHERE run_id = :run";
	int rc;

	memset(out, 0, sizeof *out);
	rc = db_one_row(st, local, ":run", id, DB_COLS(reg_cols), out, "read the run's design entry");
	if (rc == 0)
		rc = db_one_row(st, pulled, ":run", id, DB_COLS(reg_cols), out, "read the pulled run's design entry");
	if (rc >= 0)
		rc = db_one_row(st, head, ":run", id, DB_COLS(head_cols), out, "read the run's design head");
	return rc < 0 ? rc : 0;
}

/* A candidate of lr_store_design_earlier: registered here, or pulled with a design entry in its bundle. */
struct earlier {
	struct lr_store *st;
	int64_t *earlier;
};

static int earlier_row(void *arg, sqlite3_stmt *s)
{
	struct earlier *e = arg;
	struct lr_design_reg reg;
	int rc;

	if (!sqlite3_column_int(s, 1) &&
	    ((rc = lr_store_design_reg(e->st, sqlite3_column_int64(s, 0), &reg)) || !reg.seq))
		return rc;
	*e->earlier = sqlite3_column_int64(s, 0);
	return 1; /* found: no older one is read */
}

int lr_store_design_earlier(struct lr_store *st, int64_t id, int64_t *earlier)
{
	/* a pulled candidate's bundle is read only when no newer candidate had a registration */
	static const char sql[] =
		"SELECT r.id, EXISTS (SELECT 1 FROM ledger l WHERE l.run_uuid = r.uuid AND l.kind = 'design')"
		" FROM run r JOIN run_design d ON d.run_id = r.id, run me JOIN run_design md ON md.run_id = me.id"
		" WHERE me.id = :run AND d.name = md.name AND r.id <> me.id"
		"  AND (r.started_at < me.started_at OR (r.started_at = me.started_at AND r.id < me.id))"
		"  AND (EXISTS (SELECT 1 FROM ledger l WHERE l.run_uuid = r.uuid AND l.kind = 'design')"
		"   OR EXISTS (SELECT 1 FROM pulled_run p WHERE p.run_id = r.id))"
		" ORDER BY r.started_at DESC, r.id DESC";
	struct earlier e = { st, earlier };
	int rc;

	*earlier = 0;
	rc = db_each_int(st, sql, ":run", id, "find the experiment's earlier registered run", earlier_row, &e);
	return rc > 0 ? 0 : rc;
}
