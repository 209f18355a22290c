/* Serving evidence: response sets, case-by-case comparisons and frozen quality gates. */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/clock.h"
#include "base/enumname.h"
#include "base/error.h"
#include "base/list.h"
#include "base/seal.h"
#include "store/ledger.h"
#include "store/sealfeed.h"
#include "store/serving.h"
#include "store/sideread.h"
#include "store/store-int.h"

/* The tables each kind of serving evidence adds rows to. */
static const char *const set_tables[] = {
	"response_set",     "response",      "collect_pass",     "collect_request",       "collect_gauge",
	"collect_identity", "collect_check", "collect_validity", "collect_gauge_failure", NULL
};
static const char *const comparison_tables[] = { "comparison", "comparison_case", NULL };
static const char *const gate_tables[] = { "gate", "gate_case", NULL };

/* The tables read whole rows at a time, by a column table each (table_row). */
enum table { SETS, COMPARISONS, GATES, GATE_CASES };

/* A reader's callback and its argument, for the row functions db_each calls (each knows which fn is set). */
struct reader {
	enum table table; /* table_row: the table read, which says the fn */
	union {
		lr_set_fn set;
		lr_response_fn response;
		lr_outcome_fn outcome;
		lr_comparison_fn comparison;
		lr_gate_fn gate;
		lr_gate_case_fn gate_case;
		lr_run_object_fn object;
	} fn;
	void *arg;
	int64_t id; /* what the rows belong to (a comparison), for a row's error */
};

/*
 * Begin a write (db_begin_at) and prepare 'sql', the row that heads a run's
 * serving evidence, with its :run and :now bound; on an error nothing is
 * left begun.
 */
static int begin_head(struct lr_store *st, const char *sql, int64_t run, sqlite3_stmt **s)
{
	int rc;

	if ((rc = db_begin_at(st)))
		return rc;
	if ((rc = db_prepare(st, s, sql)))
		return db_commit(st, rc);
	db_bind_int(*s, ":run", run);
	db_bind_text(*s, ":now", st->now);
	return 0;
}

/*
 * Inside a write transaction: reseal run 'run' when it is already final (rows
 * added after the fact to 'changed'); 'known' (may be NULL): a changed table's
 * digest computed as its rows were written (db_seal_start).
 */
static int reseal_if_final(struct lr_store *st, int64_t run, const char *const *changed, struct lr_seal_table *known,
			   const char *table)
{
	char hex[LR_SHA256_HEX];
	struct lr_kv kv = { .key = (char *)table, .value = hex };
	int64_t final;
	char *now = NULL;
	int rc;

	if ((rc = db_run_final(st, run, &final)) || !final)
		return rc;
	if (!(now = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (known)
		lr_seal_table_final(known, hex);
	rc = db_reseal_run(st, run, now, changed, known ? &kv : NULL);
	free(now);
	return rc;
}

struct lr_set_writer {
	struct lr_store *st;
	int64_t run, id, cases;
	sqlite3_stmt *ins;
	int tokens_at, text_at; /* the parameters bound in place */
	/*
	 * The response table's seal digest, rows fed as written (NULL: read
	 * back at commit): the seal reads them in case_id order, so only while
	 * they come in that order (a file sorted by case_id, as harnesses write).
	 */
	struct lr_seal_table *seal;
	char *last_case; /* the case_id fed last */
	size_t last_cap;
};

static void writer_free(struct lr_set_writer *w)
{
	db_seal_drop(w->seal);
	free(w->last_case);
	free(w);
}

int lr_store_set_begin(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *source,
		       struct lr_set_writer **out)
{
	static const char set[] =
		"INSERT INTO response_set(run_id, route, condition_idx, seq, source, raw_sha256, cases, ingested_at)"
		" VALUES (:run, :route, :cond, :seq, :source, '', 0, :now) RETURNING id"; /* raw_sha256 at commit */
	static const char row[] =
		"INSERT INTO response(set_id, case_id, line, tokens, ntokens, text, finish_reason, latency_ms, ttft_ms,"
		" input_tokens, output_tokens, lane, model) VALUES (:set, :case, :line, :tokens, :ntokens, :text,"
		" :finish, :latency, :ttft, :input, :output, :lane, :model)";
	struct lr_set_writer *w;
	sqlite3_stmt *s = NULL;
	int64_t nconds = 0;
	int rc;

	*out = NULL;
	/*
	 * 'labrun ingest' (seq < 0) into a condition the run does not have (numbered 0..n-1) would attach the
	 * responses to nothing a report shows; an execution's own (seq >= 0) come before its condition's row
	 */
	if (seq < 0 && cond >= 0 &&
	    (rc = db_one_int(st, "SELECT count(*) FROM condition WHERE run_id = :run", ":run", run, &nconds,
			     "read the run's conditions")))
		return rc;
	if (seq < 0 && cond >= nconds) {
		lr_error_set(LR_EINVAL, "run %lld has no condition %d (it has %lld)", (long long)run, cond,
			     (long long)nconds);
		lr_error_hint(
			"conditions are numbered from 0 ('labrun show ID' lists them); a run without any takes no --condition");
		return LR_EINVAL;
	}
	if (!(w = calloc(1, sizeof *w)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	w->st = st;
	w->run = run;
	if ((rc = begin_head(st, set, run, &s)))
		goto fail;
	db_bind_text(s, ":route", route);
	if (cond >= 0)
		db_bind_int(s, ":cond", cond);
	if (seq >= 0)
		db_bind_int(s, ":seq", seq);
	db_bind_text(s, ":source", source);
	if ((rc = db_returning_id(st, s, "record a response set", &w->id)) || (rc = db_prepare(st, &w->ins, row)) ||
	    (rc = db_seal_start(st, run, "response", &w->seal)))
		goto rollback;
	w->tokens_at = sqlite3_bind_parameter_index(w->ins, ":tokens");
	w->text_at = sqlite3_bind_parameter_index(w->ins, ":text");
	*out = w;
	return 0;
rollback:
	db_commit(st, rc);
fail:
	writer_free(w);
	return rc;
}

int lr_store_set_add(struct lr_set_writer *w, const struct lr_response *r)
{
	sqlite3_stmt *s = w->ins;

	/*
	 * The row's bulk, its text and tokens, bound where it lies (the caller's
	 * buffers outlive the step): copying a kilobyte or two a row into SQLite
	 * before it copies them again into the page was needless.
	 */
	db_bind_int(s, ":set", w->id);
	db_bind_text(s, ":case", r->case_id);
	db_bind_int(s, ":line", r->line);
	sqlite3_bind_text(s, w->tokens_at, r->tokens, -1, SQLITE_STATIC);
	db_bind_int(s, ":ntokens", r->ntokens);
	sqlite3_bind_text(s, w->text_at, r->text, (int)r->text_len, SQLITE_STATIC);
	db_bind_text(s, ":finish", r->finish_reason);
	if (!isnan(r->latency_ms))
		db_bind_real(s, ":latency", r->latency_ms);
	if (!isnan(r->ttft_ms))
		db_bind_real(s, ":ttft", r->ttft_ms);
	if (r->input_tokens >= 0)
		db_bind_int(s, ":input", r->input_tokens);
	if (r->output_tokens >= 0)
		db_bind_int(s, ":output", r->output_tokens);
	if (r->lane >= 0)
		db_bind_int(s, ":lane", r->lane);
	db_bind_text(s, ":model", r->model);
	w->cases++;
	if (w->seal && db_seal_response(w->seal, w->id, r, &w->last_case, &w->last_cap)) {
		db_seal_drop(w->seal);
		w->seal = NULL; /* out of case_id order: read back at commit instead */
	}
	return db_step_done(w->st, s, "record a response");
}

int lr_store_set_commit(struct lr_set_writer *w, const char *raw_sha256, int64_t *id)
{
	sqlite3_stmt *s = NULL;
	int rc;

	sqlite3_finalize(w->ins);
	w->ins = NULL;
	if (!(rc = db_prepare(w->st, &s, "UPDATE response_set SET raw_sha256 = :raw, cases = :n WHERE id = :id"))) {
		db_bind_text(s, ":raw", raw_sha256);
		db_bind_int(s, ":n", w->cases);
		db_bind_int(s, ":id", w->id);
		rc = db_step_done(w->st, s, "count the responses");
	}
	sqlite3_finalize(s);
	if (!rc)
		rc = reseal_if_final(w->st, w->run, set_tables, w->seal, "response");
	rc = db_commit(w->st, rc);
	if (!rc && id)
		*id = w->id;
	writer_free(w);
	return rc;
}

int64_t lr_store_set_id(const struct lr_set_writer *w)
{
	return w->id;
}

struct lr_store *lr_store_set_store(const struct lr_set_writer *w)
{
	return w->st;
}

void lr_store_set_abort(struct lr_set_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->ins);
	db_commit(w->st, LR_EINVAL); /* rolls back */
	writer_free(w);
}

static const struct db_col set_cols[] = {
	DB_COL(struct lr_response_set, id, DB_INT),     DB_COL(struct lr_response_set, run, DB_INT),
	DB_COL(struct lr_response_set, route, DB_TEXT), DB_COL(struct lr_response_set, cond, DB_INT),
	DB_COL(struct lr_response_set, seq, DB_INT),    DB_COL(struct lr_response_set, cases, DB_INT),
};
static const struct db_col comparison_cols[] = {
	DB_COL(struct lr_comparison_row, id, DB_INT),
	DB_COL(struct lr_comparison_row, run, DB_INT),
	DB_COL(struct lr_comparison_row, ref_set, DB_INT),
	DB_COL(struct lr_comparison_row, cand_set, DB_INT),
	DB_COL(struct lr_comparison_row, ref_run, DB_INT),
	DB_COL(struct lr_comparison_row, kind, DB_TEXT),
	DB_COL(struct lr_comparison_row, ref_route, DB_TEXT),
	DB_COL(struct lr_comparison_row, cand_route, DB_TEXT),
	DB_COL(struct lr_comparison_row, cond, DB_INT),
	DB_COL(struct lr_comparison_row, exact, DB_INT),
	DB_COL(struct lr_comparison_row, token_mismatch, DB_INT),
	DB_COL(struct lr_comparison_row, text_mismatch, DB_INT),
	DB_COL(struct lr_comparison_row, finish_mismatch, DB_INT),
	DB_COL(struct lr_comparison_row, missing, DB_INT),
	DB_COL(struct lr_comparison_row, total, DB_INT),
};
static const struct db_col gate_cols[] = {
	DB_COL(struct lr_gate_row, id, DB_INT),          DB_COL(struct lr_gate_row, run, DB_INT),
	DB_COL(struct lr_gate_row, set, DB_INT),         DB_COL(struct lr_gate_row, route, DB_TEXT),
	DB_COL(struct lr_gate_row, key_sha256, DB_TEXT), DB_COL(struct lr_gate_row, cond, DB_INT),
	DB_COL(struct lr_gate_row, strict, DB_INT),      DB_COL(struct lr_gate_row, formats, DB_INT),
	DB_COL(struct lr_gate_row, eos, DB_INT),         DB_COL(struct lr_gate_row, missing, DB_INT),
	DB_COL(struct lr_gate_row, total, DB_INT),
};
/* Read (lr_store_gate_failures) and written (lr_store_gate) in one order. */
static const struct db_col gate_case_cols[] = {
	DB_PARAM(":case", struct lr_gate_case, case_id, DB_PTR),
	DB_PARAM(":missing", struct lr_gate_case, missing, DB_INT),
	DB_PARAM(":format", struct lr_gate_case, format_ok, DB_INT),
	DB_PARAM(":answer", struct lr_gate_case, answer_ok, DB_INT),
	DB_PARAM(":eos", struct lr_gate_case, eos, DB_INT),
};
static const struct {
	const struct db_col *cols;
	size_t n;
} tables[] = {
	[SETS] = { DB_COLS(set_cols) },
	[COMPARISONS] = { DB_COLS(comparison_cols) },
	[GATES] = { DB_COLS(gate_cols) },
	[GATE_CASES] = { DB_COLS(gate_case_cols) },
};

/* A row of the reader's table, read whole into its struct for the reader's fn. */
static int table_row(void *arg, sqlite3_stmt *s)
{
	const struct reader *r = arg;
	union {
		struct lr_response_set set;
		struct lr_comparison_row comparison;
		struct lr_gate_row gate;
		struct lr_gate_case gate_case;
	} row;

	memset(&row, 0, sizeof row);
	db_row_read(s, tables[r->table].cols, tables[r->table].n, &row);
	switch (r->table) {
	case SETS: return r->fn.set(r->arg, &row.set);
	case COMPARISONS: return r->fn.comparison(r->arg, &row.comparison);
	case GATES: return r->fn.gate(r->arg, &row.gate);
	case GATE_CASES: break;
	}
	return r->fn.gate_case(r->arg, &row.gate_case);
}

int lr_store_sets(struct lr_store *st, int64_t run, const char *route, lr_set_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT id, run_id, route, coalesce(condition_idx, -1), coalesce(seq, -1), cases FROM response_set"
		" WHERE run_id = :run AND (:route IS NULL OR route = :route) ORDER BY id";
	struct reader r = { .table = SETS, .fn.set = fn, .arg = arg };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_text(s, ":route", route);
	return db_each(st, s, "read the response sets", table_row, &r);
}

#define RESPONSE_COLUMNS \
	"case_id, line, tokens, ntokens, text, finish_reason, latency_ms, ttft_ms, input_tokens, output_tokens, lane, model"

/* A response from columns first..first+11 of 's' (RESPONSE_COLUMNS); borrowed until the next step. */
static void read_response(sqlite3_stmt *s, int c, struct lr_response *r)
{
	r->case_id = (const char *)sqlite3_column_text(s, c);
	r->line = sqlite3_column_int64(s, c + 1);
	r->tokens = (const char *)sqlite3_column_text(s, c + 2);
	r->ntokens = sqlite3_column_int64(s, c + 3);
	r->text = (const char *)sqlite3_column_text(s, c + 4);
	r->text_len = (size_t)sqlite3_column_bytes(s, c + 4);
	r->finish_reason = (const char *)sqlite3_column_text(s, c + 5);
	r->latency_ms = sqlite3_column_type(s, c + 6) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c + 6);
	r->ttft_ms = sqlite3_column_type(s, c + 7) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c + 7);
	r->input_tokens = sqlite3_column_type(s, c + 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, c + 8);
	r->output_tokens = sqlite3_column_type(s, c + 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, c + 9);
	r->lane = sqlite3_column_type(s, c + 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, c + 10);
	r->model = (const char *)sqlite3_column_text(s, c + 11);
}

static int response_row(void *arg, sqlite3_stmt *s)
{
	const struct reader *r = arg;
	struct lr_response resp;

	read_response(s, 0, &resp);
	return r->fn.response(r->arg, &resp);
}

int lr_store_set_responses(struct lr_store *st, int64_t set, lr_response_fn fn, void *arg)
{
	struct reader r = { .fn.response = fn, .arg = arg };

	return db_each_int(st, "SELECT " RESPONSE_COLUMNS " FROM response WHERE set_id = :set ORDER BY case_id", ":set",
			   set, "read the responses", response_row, &r);
}

/* comparison_case.missing: the side without the case, lr_case_outcome.missing - 1 (0: both have it, stored as NULL). */
static const char *const side_names[] = { "reference", "candidate" };
static const struct lr_enum_names missing_sides = LR_ENUM_NAMES("missing side", side_names);

/* Insert a compared case, and feed the row as bound to 't' (may be NULL), the seal digest of comparison_case. */
static int insert_outcome(struct lr_store *st, sqlite3_stmt *s, int64_t id, const char *case_id,
			  const struct lr_case_outcome *o, struct lr_seal_table *t)
{
	if (t)
		db_seal_compared(t, id, case_id, o->missing ? lr_enum_name(&missing_sides, o->missing - 1) : NULL, o);
	db_bind_int(s, ":cmp", id);
	db_bind_text(s, ":case", case_id);
	if (o->missing) {
		db_bind_text(s, ":missing", lr_enum_name(&missing_sides, o->missing - 1));
	} else {
		db_bind_int(s, ":tokens", o->tokens_equal);
		db_bind_int(s, ":text", o->text_equal);
		db_bind_int(s, ":finish", o->finish_equal);
		if (o->first_token_diff >= 0)
			db_bind_int(s, ":diff", o->first_token_diff);
	}
	return db_step_done(st, s, "record a compared case");
}

/* The columns a comparison reads of a response, in case_id order (store/sideread.h). */
static const char compared[] = "SELECT case_id, tokens, text, finish_reason FROM response WHERE set_id = :set"
			       " ORDER BY case_id";

/* The next row of a side, read by a thread of its own (store/sideread.c), into 'r'. */
static int side_row(struct db_side *d, struct lr_response *r, int *rc)
{
	struct db_side_row row;

	if (!db_side_next(d, &row, rc))
		return 0;
	memset(r, 0, sizeof *r);
	r->case_id = row.case_id;
	r->tokens = row.tokens;
	r->text = row.text;
	r->text_len = row.text_len;
	r->finish_reason = row.finish_reason;
	return 1;
}

int lr_store_comparison(struct lr_store *st, int64_t run, const char *kind, int64_t ref, int64_t cand,
			lr_judge_fn judge, void *arg, int64_t *id)
{
	static const char cmp[] =
		"INSERT INTO comparison(run_id, kind, reference_set_id, candidate_set_id, compared_at)"
		" VALUES (:run, :kind, :ref, :cand, :now) RETURNING id";
	static const char ins[] =
		"INSERT INTO comparison_case(comparison_id, case_id, missing, tokens_equal, first_token_diff, text_equal,"
		" finish_equal) VALUES (:cmp, :case, :missing, :tokens, :diff, :text, :finish)";
	sqlite3_stmt *s = NULL, *w = NULL;
	struct db_side *pa = NULL, *pb = NULL;
	struct lr_seal_table *seal = NULL;
	struct lr_response a, b;
	struct lr_case_outcome o;
	int rc, has_a, has_b;

	if ((rc = begin_head(st, cmp, run, &s)))
		return rc;
	db_bind_text(s, ":kind", kind);
	db_bind_int(s, ":ref", ref);
	db_bind_int(s, ":cand", cand);
	if ((rc = db_returning_id(st, s, "record a comparison", id)) || (rc = db_side_open(&pa, st, compared, ref)) ||
	    (rc = db_side_open(&pb, st, compared, cand)) || (rc = db_prepare(st, &w, ins)) ||
	    (rc = db_seal_start(st, run, "comparison_case", &seal)))
		goto done;
	/*
	 * Every case of either set, once: both sets read in case_id order (their
	 * (set_id, case_id) key) and merged, each set read once, each by a
	 * thread of its own on a connection of its own, a chunk at a time: the
	 * two reads are most of a comparison's work, and take two CPUs.
	 */
	has_a = side_row(pa, &a, &rc);
	has_b = side_row(pb, &b, &rc);
	while (!rc && (has_a || has_b)) {
		int c = !has_a ? 1 : !has_b ? -1 : strcmp(a.case_id, b.case_id);

		memset(&o, 0, sizeof o);
		o.first_token_diff = -1;
		if ((rc = judge(arg, c <= 0 ? &a : NULL, c >= 0 ? &b : NULL, &o)) ||
		    (rc = insert_outcome(st, w, *id, c <= 0 ? a.case_id : b.case_id, &o, seal)))
			break;
		if (c <= 0)
			has_a = side_row(pa, &a, &rc);
		if (c >= 0)
			has_b = side_row(pb, &b, &rc);
	}
	if (!rc)
		rc = reseal_if_final(st, run, comparison_tables, seal, "comparison_case");
done:
	db_seal_drop(seal);
	db_side_close(pa);
	db_side_close(pb);
	sqlite3_finalize(w);
	return db_commit(st, rc);
}

static int outcome_row(void *arg, sqlite3_stmt *s)
{
	const struct reader *r = arg;
	const char *missing = (const char *)sqlite3_column_text(s, 1);
	struct lr_case_outcome o;
	int side = 0;

	memset(&o, 0, sizeof o);
	if (missing && lr_enum_parse(&missing_sides, missing, &side)) {
		lr_error_wrap("cannot read comparison %lld's case '%s'", (long long)r->id,
			      (const char *)sqlite3_column_text(s, 0));
		return LR_ESCHEMA;
	}
	o.missing = missing ? side + 1 : 0;
	o.tokens_equal = sqlite3_column_int(s, 2);
	o.text_equal = sqlite3_column_int(s, 3);
	o.finish_equal = sqlite3_column_int(s, 4);
	o.first_token_diff = sqlite3_column_int64(s, 5);
	return r->fn.outcome(r->arg, (const char *)sqlite3_column_text(s, 0), &o);
}

int lr_store_comparison_failures(struct lr_store *st, int64_t id, lr_outcome_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT case_id, missing, tokens_equal, text_equal, finish_equal, coalesce(first_token_diff, -1)"
		" FROM comparison_case WHERE comparison_id = :id"
		" AND NOT (missing IS NULL AND tokens_equal AND text_equal AND finish_equal) ORDER BY case_id";
	struct reader r = { .fn.outcome = fn, .arg = arg, .id = id };

	return db_each_int(st, sql, ":id", id, "read the compared cases", outcome_row, &r);
}

int lr_store_comparisons(struct lr_store *st, int64_t run, lr_comparison_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT s.comparison_id, s.run_id, c.reference_set_id, c.candidate_set_id, s.reference_run, s.kind,"
		" s.reference_route, s.candidate_route, coalesce(s.condition_idx, -1), s.exact, s.token_mismatch,"
		" s.text_mismatch, s.finish_mismatch, s.missing, s.total"
		" FROM comparison_summary s JOIN comparison c ON c.id = s.comparison_id WHERE s.run_id = :run"
		/* the same two sets compared again: the newest comparison stands for them */
		" AND c.id = (SELECT max(x.id) FROM comparison x WHERE x.reference_set_id = c.reference_set_id"
		"             AND x.candidate_set_id = c.candidate_set_id) ORDER BY 1";
	struct reader r = { .table = COMPARISONS, .fn.comparison = fn, .arg = arg };

	return db_each_int(st, sql, ":run", run, "read the comparisons", table_row, &r);
}

int lr_store_gates(struct lr_store *st, int64_t run, lr_gate_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT s.gate_id, s.run_id, g.set_id, s.route, s.key_sha256, coalesce(s.condition_idx, -1), s.strict_answers,"
		" s.formats, s.eos, s.missing, s.total FROM gate_summary s JOIN gate g ON g.id = s.gate_id"
		" WHERE s.run_id = :run ORDER BY 1";
	struct reader r = { .table = GATES, .fn.gate = fn, .arg = arg };

	return db_each_int(st, sql, ":run", run, "read the gates", table_row, &r);
}

int lr_store_gate_failures(struct lr_store *st, int64_t id, lr_gate_case_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT case_id, missing, format_ok, answer_ok, eos FROM gate_case WHERE gate_id = :id"
		" AND NOT (answer_ok AND eos) ORDER BY case_id";
	struct reader r = { .table = GATE_CASES, .fn.gate_case = fn, .arg = arg };

	return db_each_int(st, sql, ":id", id, "read the gate's cases", table_row, &r);
}

int lr_store_gate(struct lr_store *st, int64_t run, int64_t set, const char *key_path, const char *key_sha256,
		  const struct lr_gate_case *cases, int n, int64_t *id)
{
	static const char gate[] =
		"INSERT INTO gate(run_id, set_id, key_path, key_sha256, scored_at) VALUES (:run, :set, :path, :sha, :now)"
		" RETURNING id";
	static const char ins[] = "INSERT INTO gate_case(gate_id, case_id, missing, format_ok, answer_ok, eos)"
				  " VALUES (:gate, :case, :missing, :format, :answer, :eos)";
	struct db_items rows = { ":gate", 0, NULL, cases, sizeof *cases, DB_COLS(gate_case_cols) };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = begin_head(st, gate, run, &s)))
		return rc;
	db_bind_int(s, ":set", set);
	db_bind_text(s, ":path", key_path);
	db_bind_text(s, ":sha", key_sha256);
	if (!(rc = db_returning_id(st, s, "record a gate", id))) {
		rows.id = *id;
		rc = db_insert_each(st, ins, (size_t)(n > 0 ? n : 0), db_bind_items, &rows, "record a gate case");
	}
	if (!rc)
		rc = reseal_if_final(st, run, gate_tables, NULL, NULL);
	return db_commit(st, rc);
}

static int object_row(void *arg, sqlite3_stmt *s)
{
	const struct reader *r = arg;

	return r->fn.object(r->arg, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
			    sqlite3_column_int(s, 2));
}

int lr_store_run_evidence_objects(struct lr_store *st, int64_t id, lr_run_object_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT 'executions/c' || condition_idx || '-' || seq || '.stdout', stdout_sha256, 0, condition_idx, seq, 1"
		" FROM execution WHERE run_id = :run AND stdout_sha256 IS NOT NULL"
		" UNION ALL SELECT 'executions/c' || condition_idx || '-' || seq || '.stderr', stderr_sha256, 0,"
		" condition_idx, seq, 2 FROM execution WHERE run_id = :run AND stderr_sha256 IS NOT NULL"
		" UNION ALL SELECT 'executions/c' || condition_idx || '-' || seq || '/' || path, sha256, 0, condition_idx,"
		" seq, 3 FROM execution_output WHERE run_id = :run AND sha256 IS NOT NULL"
		" UNION ALL SELECT 'responses/' || id || '-' || route || '.jsonl', raw_sha256, 0, id, 0, 4"
		" FROM response_set WHERE run_id = :run"
		" UNION ALL SELECT 'answers/gate-' || id || '.jsonl', key_sha256, 1, id, 0, 5 FROM gate WHERE run_id = :run"
		" ORDER BY 6, 4, 5, 1";
	struct reader r = { .fn.object = fn, .arg = arg };

	return db_each_int(st, sql, ":run", id, "read the run's execution and serving objects", object_row, &r);
}

int lr_store_set_cases(struct lr_store *st, int64_t set, int64_t *n)
{
	return db_one_int(st, "SELECT count(*) FROM response WHERE set_id = :set", ":set", set, n,
			  "count the responses of a set");
}
