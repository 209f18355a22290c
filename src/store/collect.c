/*
 * The rows of a collected pass written (collect.h): each table's parameters
 * bound from its struct by a column table, and what a value means when it
 * is none (0, -1, NAN, not sent) said once, in the statement.
 */
#include "config.h"
#include "base/system.h"

#include "store/collect.h"
#include "store/store-int.h"

#define GAUGE(field, kind) DB_PARAM(":" #field, struct lr_gauge_sample, field, kind)
static const struct db_col gauge_params[] = {
	GAUGE(t_s, DB_REAL),
	GAUGE(running, DB_NREAL),
	GAUGE(waiting, DB_NREAL),
};
static const struct db_col gap_params[] = { GAUGE(failed, DB_PTR) };

/* A gauge sample's failed scrape: a row when it failed, none when it answered. */
static int bind_gap(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct db_items *it = arg;
	const struct lr_gauge_sample *g = it->v;

	return g[i].failed ? db_bind_items(arg, s, i) : 1;
}

static int insert_gauges(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] = "INSERT INTO collect_gauge(set_id, seq, t_ms, running, waiting)"
				  " VALUES (:set, :seq, :t_s * 1e3, :running, :waiting)";
	static const char gap[] = "INSERT INTO collect_gauge_failure(set_id, seq, why) VALUES (:set, :seq, :failed)";
	struct db_items g = { ":set", set, ":seq", p->samples, sizeof *p->samples, DB_COLS(gauge_params) };
	struct db_items f = { ":set", set, ":seq", p->samples, sizeof *p->samples, DB_COLS(gap_params) };
	int rc = db_insert_each(st, sql, p->nsamples, db_bind_items, &g, "record a gauge sample");

	return rc ? rc : db_insert_each(st, gap, p->nsamples, bind_gap, &f, "record a failed scrape");
}

/* What the engine said of itself beside /v1/models: a collect_identity row each. */
static int insert_identity(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] = "INSERT INTO collect_identity(set_id, path, body) VALUES (:set, :path, :body)";
	const char *paths[] = { "/version", "/props" }, *bodies[] = { p->version, p->props };
	sqlite3_stmt *s = NULL;
	int rc = 0;

	for (int i = 0; i < 2 && !rc; i++) {
		if (!bodies[i])
			continue;
		if (!s && (rc = db_prepare(st, &s, sql)))
			break;
		db_bind_int(s, ":set", set);
		db_bind_text(s, ":path", paths[i]);
		db_bind_text(s, ":body", bodies[i]);
		rc = db_step_done(st, s, "record what the engine said of itself");
	}
	sqlite3_finalize(s);
	return rc;
}

/* A column table whose parameters are named after their fields (":endpoint"). */
#define PASS(field, kind) DB_PARAM(":" #field, struct lr_store_pass, field, kind)
static const struct db_col pass_params[] = {
	PASS(endpoint, DB_PTR),
	PASS(api, DB_PTR),
	PASS(model, DB_PTR),
	PASS(concurrency, DB_INT),
	PASS(rate, DB_NREAL),
	PASS(burstiness, DB_NREAL),
	PASS(has_seed, DB_INT),
	PASS(seed, DB_INT),
	PASS(server, DB_PTR),
	PASS(models, DB_PTR),
	PASS(duration_s, DB_REAL),
	PASS(metrics_url, DB_PTR),
	DB_PARAM(":slo0", struct lr_store_pass, slo_ms[0], DB_NREAL),
	DB_PARAM(":slo1", struct lr_store_pass, slo_ms[1], DB_NREAL),
	DB_PARAM(":slo2", struct lr_store_pass, slo_ms[2], DB_NREAL),
	PASS(cancelled, DB_INT),
};
/* Its rules (0: none) and verdict. */
static const struct db_col validity_params[] = {
	PASS(min_duration_s, DB_REAL), PASS(min_requests, DB_INT), PASS(ttft_limit_ms, DB_REAL),
	PASS(tpot_limit_ms, DB_REAL),  PASS(percentile, DB_REAL),  PASS(linear, DB_INT),
	PASS(early, DB_INT),           PASS(little_n, DB_NREAL),   PASS(little_xr, DB_NREAL),
	PASS(valid, DB_INT),           PASS(failed, DB_PTR),
};

static int insert_pass(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] =
		"INSERT INTO collect_pass(set_id, endpoint, api, model, concurrency, rate, burstiness, seed, server, models,"
		" duration_s, metrics_url, slo_ttft_ms, slo_tpot_ms, slo_e2el_ms, cancelled) VALUES (:set, :endpoint, :api,"
		" :model, :concurrency, nullif(:rate, 0), CASE WHEN :rate > 0 THEN :burstiness END,"
		" CASE WHEN :has_seed THEN :seed END, :server, :models, :duration_s, :metrics_url, nullif(:slo0, 0),"
		" nullif(:slo1, 0), nullif(:slo2, 0), :cancelled)";
	static const char validity[] =
		"INSERT INTO collect_validity(set_id, min_duration_s, min_requests, ttft_limit_ms, tpot_limit_ms, percentile,"
		" convention, early_stopping, little_n, little_xr, verdict, failed) VALUES (:set, nullif(:min_duration_s, 0),"
		" nullif(:min_requests, 0), nullif(:ttft_limit_ms, 0), nullif(:tpot_limit_ms, 0), :percentile,"
		" CASE WHEN :linear THEN 'linear' ELSE 'nearest-rank' END, :early, :little_n, :little_xr,"
		" CASE WHEN :valid THEN 'VALID' ELSE 'INVALID' END, CASE WHEN NOT :valid THEN :failed END)";
	struct db_items one = { ":set", set, NULL, p, sizeof *p, DB_COLS(pass_params) };
	int rc;

	if ((rc = db_insert_each(st, sql, 1, db_bind_items, &one, "record a collected pass")) ||
	    (rc = insert_gauges(st, set, p)) || (rc = insert_identity(st, set, p)))
		return rc;
	one.cols = validity_params;
	one.ncols = sizeof validity_params / sizeof *validity_params;
	return db_insert_each(st, validity, 1, db_bind_items, &one, "record a pass's verdict");
}

#define REQ(field, kind) DB_PARAM(":" #field, struct lr_store_request, field, kind)
static const struct db_col request_params[] = {
	REQ(case_id, DB_PTR),           REQ(body, DB_PTR),     REQ(sent, DB_INT),         REQ(sent_ms, DB_NREAL),
	REQ(end_ms, DB_NREAL),          REQ(status, DB_INT),   REQ(failure, DB_PTR),      REQ(ttft_ms, DB_NREAL),
	REQ(e2el_ms, DB_NREAL),         REQ(itl_json, DB_PTR), REQ(token_source, DB_PTR), REQ(prompt_tokens, DB_INT),
	REQ(completion_tokens, DB_INT), REQ(inflight, DB_INT),
};
/* What the client checked of it (collect_check); its cut text is bound apart (it may hold NULs). */
static const struct db_col check_params[] = {
	REQ(sent, DB_INT),      REQ(sent_ms, DB_NREAL), REQ(scheduled_ms, DB_REAL),
	REQ(ttft_ms, DB_NREAL), REQ(e2el_ms, DB_NREAL), REQ(received_tokens, DB_INT),
	REQ(finishes, DB_INT),  REQ(first_ok, DB_INT),  REQ(cut_tokens, DB_PTR),
};

static int bind_check(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct db_items *it = arg;
	const struct lr_store_request *r = (const struct lr_store_request *)it->v + i;

	db_bind_items(arg, s, i);
	if (r->cut_tokens)
		sqlite3_bind_text(s, sqlite3_bind_parameter_index(s, ":cut_text"), r->cut_text ? r->cut_text : "",
				  (int)r->cut_text_len, SQLITE_TRANSIENT);
	else
		db_bind_null(s, ":cut_text");
	return 0;
}

int lr_store_collect(struct lr_set_writer *w, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	static const char sql[] =
		"INSERT INTO collect_request(set_id, seq, case_id, body, sent_ms, end_ms, status, failure, ttft_ms, e2el_ms,"
		" itl_ms, token_source, prompt_tokens, completion_tokens, inflight) VALUES (:set, :seq, :case_id, :body,"
		" CASE WHEN :sent THEN :sent_ms END, CASE WHEN :sent THEN :end_ms END, nullif(:status, 0), :failure,"
		" :ttft_ms, :e2el_ms, :itl_json, :token_source, nullif(:prompt_tokens, -1), nullif(:completion_tokens, -1),"
		" CASE WHEN :sent THEN :inflight END)";
	/* the send lag, and latency from the scheduled time, of a request that was sent */
	static const char check[] =
		"INSERT INTO collect_check(set_id, seq, scheduled_ms, send_lag_ms, sched_ttft_ms, sched_e2el_ms,"
		" received_tokens, finishes, first_ok, cut_tokens, cut_text) VALUES (:set, :seq, :scheduled_ms,"
		" CASE WHEN :sent THEN :sent_ms - :scheduled_ms END, CASE WHEN :sent THEN :ttft_ms + (:sent_ms - :scheduled_ms) END,"
		" CASE WHEN :sent THEN :e2el_ms + (:sent_ms - :scheduled_ms) END, nullif(:received_tokens, -1), :finishes,"
		" nullif(:first_ok, -1), :cut_tokens, :cut_text)";
	struct lr_store *st = lr_store_set_store(w);
	struct db_items req = { ":set", lr_store_set_id(w), ":seq", r, sizeof *r, DB_COLS(request_params) };
	struct db_items chk = { ":set", lr_store_set_id(w), ":seq", r, sizeof *r, DB_COLS(check_params) };
	int rc;

	if ((rc = insert_pass(st, req.id, p)) ||
	    (rc = db_insert_each(st, sql, n, db_bind_items, &req, "record a collected request")))
		return rc;
	return db_insert_each(st, check, n, bind_check, &chk, "record a request's checks");
}
