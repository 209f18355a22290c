/*
 * The rows of collected passes read back (collect.h): each reader is a query
 * and the column table of the struct its rows fill, in one table below, so a
 * reader says what it reads and nothing of how.
 */
#include "config.h"
#include "base/system.h"

#include "store/collect.h"
#include "store/store-int.h"

/* The reference of a case in a pass of the run: its response in the run's earliest set before (ref) or after (repl) it. */
#define LR_NEAR_SET(cmp, agg) \
	"(SELECT " agg "(r2.set_id) FROM response r2 JOIN response_set t ON t.id = r2.set_id" \
	" WHERE t.run_id = s.run_id AND r2.case_id = x.case_id AND r2.set_id " cmp " x.set_id)"

enum table { FAILURES, PASSES, ROWS, GAUGES, CUTS, IDENTITIES };

struct reader {
	enum table table;
	union {
		lr_collect_failure_fn failure;
		lr_collect_pass_fn pass;
		lr_collect_row_fn row;
		lr_gauge_fn gauge;
		lr_collect_cut_fn cut;
		lr_identity_fn identity;
	} fn;
	void *arg;
};

#define FAILURE(field, kind) DB_COL(struct lr_collect_failure, field, kind)
static const struct db_col failure_cols[] = {
	FAILURE(set, DB_INT),     FAILURE(route, DB_PTR),   FAILURE(cond, DB_INT),
	FAILURE(case_id, DB_PTR), FAILURE(failure, DB_PTR),
};
#define PASS(field, kind) DB_COL(struct lr_collect_pass_row, field, kind)
static const struct db_col pass_cols[] = {
	PASS(set, DB_INT),          PASS(route, DB_PTR),          PASS(cond, DB_INT),
	PASS(concurrency, DB_INT),  PASS(cancelled, DB_INT),      PASS(rate, DB_REAL),
	PASS(duration_s, DB_REAL),  PASS(slo_ms[0], DB_REAL),     PASS(slo_ms[1], DB_REAL),
	PASS(slo_ms[2], DB_REAL),   PASS(has_rules, DB_INT),      PASS(min_duration_s, DB_REAL),
	PASS(min_requests, DB_INT), PASS(ttft_limit_ms, DB_REAL), PASS(tpot_limit_ms, DB_REAL),
	PASS(percentile, DB_REAL),  PASS(linear, DB_INT),         PASS(early, DB_INT),
};
#define ROW(field, kind) DB_COL(struct lr_collect_row, field, kind)
static const struct db_col row_cols[] = {
	ROW(set, DB_INT),
	ROW(failed, DB_INT),
	ROW(sent, DB_INT),
	ROW(sent_ms, DB_NREAL),
	ROW(end_ms, DB_NREAL),
	ROW(ttft_ms, DB_NREAL),
	ROW(e2el_ms, DB_NREAL),
	ROW(itl_json, DB_PTR),
	ROW(prompt_tokens, DB_INT),
	ROW(output_tokens, DB_INT),
	ROW(lag_ms, DB_NREAL),
	ROW(usage_tokens, DB_INT),
	ROW(received_tokens, DB_INT),
	ROW(first_ok, DB_INT),
};
#define GAUGE(field, kind) DB_COL(struct lr_gauge_sample, field, kind)
static const struct db_col gauge_cols[] = {
	GAUGE(t_s, DB_REAL),
	GAUGE(running, DB_NREAL),
	GAUGE(waiting, DB_NREAL),
	GAUGE(failed, DB_PTR),
};
#define CUT(field, kind) DB_COL(struct lr_collect_cut, field, kind)
static const struct db_col cut_cols[] = {
	CUT(set, DB_INT),      CUT(route, DB_PTR),       CUT(cond, DB_INT),    CUT(case_id, DB_PTR),
	CUT(failure, DB_PTR),  CUT(tokens, DB_PTR),      CUT(ref_set, DB_INT), CUT(ref_tokens, DB_PTR),
	CUT(repl_set, DB_INT), CUT(repl_tokens, DB_PTR),
};
#define IDENTITY(field, kind) DB_COL(struct lr_identity_row, field, kind)
static const struct db_col identity_cols[] = {
	IDENTITY(set, DB_INT),    IDENTITY(route, DB_PTR),   IDENTITY(server, DB_PTR),
	IDENTITY(models, DB_PTR), IDENTITY(version, DB_PTR), IDENTITY(props, DB_PTR),
};

/* Each reader: its query (one parameter, 'key'), what it does (for its error) and the columns it fills, in order. */
static const struct {
	const char *sql, *key, *what;
	const struct db_col *cols;
	size_t n;
} tables[] = {
	[FAILURES] = { "SELECT x.set_id, s.route, coalesce(s.condition_idx, -1), x.case_id, x.failure"
		       " FROM collect_request x JOIN response_set s ON s.id = x.set_id"
		       " WHERE s.run_id = :run AND x.failure IS NOT NULL ORDER BY x.set_id, x.seq",
		       ":run", "read the collected requests", DB_COLS(failure_cols) },
	/* a pass stored before migration 24 has no rules: NULL reads as 0 (no rule), its percentile as 99 */
	[PASSES] = { "SELECT p.set_id, s.route, coalesce(s.condition_idx, -1), p.concurrency, p.cancelled, p.rate,"
		     " p.duration_s, p.slo_ttft_ms, p.slo_tpot_ms, p.slo_e2el_ms, v.set_id IS NOT NULL, v.min_duration_s,"
		     " v.min_requests, v.ttft_limit_ms, v.tpot_limit_ms, coalesce(v.percentile, 99),"
		     " v.convention = 'linear', v.early_stopping FROM collect_pass p JOIN response_set s ON s.id = p.set_id"
		     " LEFT JOIN collect_validity v ON v.set_id = p.set_id WHERE s.run_id = :run ORDER BY p.set_id",
		     ":run", "read the collected passes", DB_COLS(pass_cols) },
	/* the output tokens are those received (the response's), unless only the text came */
	[ROWS] = { "SELECT x.set_id, x.failure IS NOT NULL, x.sent_ms IS NOT NULL, x.sent_ms, x.end_ms, x.ttft_ms,"
		   " x.e2el_ms, x.itl_ms, coalesce(x.prompt_tokens, -1), coalesce(CASE WHEN x.token_source <> 'text'"
		   " THEN r.ntokens ELSE x.completion_tokens END, -1), c.send_lag_ms, coalesce(x.completion_tokens, -1),"
		   " coalesce(c.received_tokens, -1), coalesce(c.first_ok, -1) FROM collect_request x"
		   " LEFT JOIN response r ON r.set_id = x.set_id AND r.case_id = x.case_id"
		   " LEFT JOIN collect_check c ON c.set_id = x.set_id AND c.seq = x.seq WHERE x.set_id = :set ORDER BY x.seq",
		   ":set", "read the collected requests", DB_COLS(row_cols) },
	[GAUGES] = { "SELECT g.t_ms / 1e3, g.running, g.waiting, f.why FROM collect_gauge g"
		     " LEFT JOIN collect_gauge_failure f ON f.set_id = g.set_id AND f.seq = g.seq"
		     " WHERE g.set_id = :set ORDER BY g.seq",
		     ":set", "read the gauge samples", DB_COLS(gauge_cols) },
	[CUTS] = { "SELECT q.set_id, q.route, coalesce(q.cond, -1), q.case_id, q.failure, q.cut_tokens, q.ref, rr.tokens,"
		   " q.repl, pr.tokens FROM (SELECT x.set_id, s.route, s.condition_idx AS cond, x.case_id, x.failure,"
		   " c.cut_tokens, " LR_NEAR_SET("<", "min") " AS ref, " LR_NEAR_SET(
			   ">",
			   "min") " AS repl"
				  " FROM collect_check c JOIN collect_request x ON x.set_id = c.set_id AND x.seq = c.seq"
				  " JOIN response_set s ON s.id = x.set_id WHERE s.run_id = :run AND c.cut_tokens IS NOT NULL) q"
				  " LEFT JOIN response rr ON rr.set_id = q.ref AND rr.case_id = q.case_id"
				  " LEFT JOIN response pr ON pr.set_id = q.repl AND pr.case_id = q.case_id ORDER BY q.set_id, q.case_id",
		   ":run", "read the cut streams", DB_COLS(cut_cols) },
	[IDENTITIES] = { "SELECT p.set_id, s.route, p.server, p.models,"
			 " (SELECT body FROM collect_identity x WHERE x.set_id = p.set_id AND x.path = '/version'),"
			 " (SELECT body FROM collect_identity x WHERE x.set_id = p.set_id AND x.path = '/props')"
			 " FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.run_id = :run"
			 " ORDER BY p.set_id",
			 ":run", "read what the engines said of themselves", DB_COLS(identity_cols) },
};

/* A row of the reader's table, read whole into its struct for the reader's fn. */
static int table_row(void *arg, sqlite3_stmt *s)
{
	const struct reader *r = arg;
	union {
		struct lr_collect_failure failure;
		struct lr_collect_pass_row pass;
		struct lr_collect_row row;
		struct lr_gauge_sample gauge;
		struct lr_collect_cut cut;
		struct lr_identity_row identity;
	} row;

	memset(&row, 0, sizeof row);
	db_row_read(s, tables[r->table].cols, tables[r->table].n, &row);
	switch (r->table) {
	case FAILURES: return r->fn.failure(r->arg, &row.failure);
	case PASSES: return r->fn.pass(r->arg, &row.pass);
	case ROWS: return r->fn.row(r->arg, &row.row);
	case GAUGES: return r->fn.gauge(r->arg, &row.gauge);
	case CUTS: return r->fn.cut(r->arg, &row.cut);
	case IDENTITIES: break;
	}
	return r->fn.identity(r->arg, &row.identity);
}

static int read_table(struct lr_store *st, int64_t id, const struct reader *r)
{
	return db_each_int(st, tables[r->table].sql, tables[r->table].key, id, tables[r->table].what, table_row,
			   (void *)r);
}

int lr_store_collect_failures(struct lr_store *st, int64_t run, lr_collect_failure_fn fn, void *arg)
{
	return read_table(st, run, &(struct reader){ .table = FAILURES, .fn.failure = fn, .arg = arg });
}

int lr_store_collect_passes(struct lr_store *st, int64_t run, lr_collect_pass_fn fn, void *arg)
{
	return read_table(st, run, &(struct reader){ .table = PASSES, .fn.pass = fn, .arg = arg });
}

int lr_store_collect_rows(struct lr_store *st, int64_t set, lr_collect_row_fn fn, void *arg)
{
	return read_table(st, set, &(struct reader){ .table = ROWS, .fn.row = fn, .arg = arg });
}

int lr_store_collect_gauges(struct lr_store *st, int64_t set, lr_gauge_fn fn, void *arg)
{
	return read_table(st, set, &(struct reader){ .table = GAUGES, .fn.gauge = fn, .arg = arg });
}

int lr_store_collect_cuts(struct lr_store *st, int64_t run, lr_collect_cut_fn fn, void *arg)
{
	return read_table(st, run, &(struct reader){ .table = CUTS, .fn.cut = fn, .arg = arg });
}

int lr_store_collect_identities(struct lr_store *st, int64_t run, lr_identity_fn fn, void *arg)
{
	return read_table(st, run, &(struct reader){ .table = IDENTITIES, .fn.identity = fn, .arg = arg });
}

int lr_store_collect_survivors(struct lr_store *st, int64_t run, lr_collect_survivors_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT x.set_id, count(*), sum(rr.tokens = r.tokens), sum(rr.tokens IS NULL)"
		" FROM response r JOIN response_set s ON s.id = r.set_id JOIN collect_request x"
		" ON x.set_id = r.set_id AND x.case_id = r.case_id"
		" LEFT JOIN response rr ON rr.set_id = " LR_NEAR_SET(
			"<",
			"min") " AND rr.case_id = r.case_id"
			       " WHERE s.run_id = :run AND r.set_id IN (SELECT set_id FROM collect_check WHERE cut_tokens IS NOT NULL)"
			       " GROUP BY x.set_id ORDER BY x.set_id";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the survivors of cut passes", &rc))
		rc = fn(arg, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
			sqlite3_column_int64(s, 3));
	sqlite3_finalize(s);
	return rc;
}
