/* The rows of a collected pass (collect.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "store/collect.h"
#include "store/store-int.h"

static void bind_real_or_null(sqlite3_stmt *s, const char *name, double v, int has)
{
	if (has && !isnan(v))
		db_bind_real(s, name, v);
	else
		db_bind_null(s, name);
}

static int insert_gauges(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] =
		"INSERT INTO collect_gauge(set_id, seq, t_ms, running, waiting) VALUES (:set, :seq, :t, :running, :waiting)";
	static const char gap[] = "INSERT INTO collect_gauge_failure(set_id, seq, why) VALUES (:set, :seq, :why)";
	sqlite3_stmt *s = NULL, *g = NULL;
	int rc = 0;

	if (!p->nsamples || (rc = db_prepare(st, &s, sql)) || (rc = db_prepare(st, &g, gap))) {
		sqlite3_finalize(s);
		return rc;
	}
	for (size_t i = 0; i < p->nsamples && !rc; i++) {
		db_bind_int(s, ":set", set);
		db_bind_int(s, ":seq", (int64_t)i);
		db_bind_real(s, ":t", p->samples[i].t_s * 1e3);
		bind_real_or_null(s, ":running", p->samples[i].running, 1);
		bind_real_or_null(s, ":waiting", p->samples[i].waiting, 1);
		rc = db_step_done(st, s, "record a gauge sample");
		if (!rc && p->samples[i].failed) {
			db_bind_int(g, ":set", set);
			db_bind_int(g, ":seq", (int64_t)i);
			db_bind_text(g, ":why", p->samples[i].failed);
			rc = db_step_done(st, g, "record a failed scrape");
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(g);
	return rc;
}

static int insert_validity(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] =
		"INSERT INTO collect_validity(set_id, min_duration_s, min_requests, ttft_limit_ms, tpot_limit_ms, percentile,"
		" convention, early_stopping, little_n, little_xr, verdict, failed) VALUES (:set, :dur, :req, :ttft, :tpot,"
		" :pct, :conv, :early, :n, :xr, :verdict, :failed)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":set", set);
	bind_real_or_null(s, ":dur", p->min_duration_s, p->min_duration_s > 0);
	if (p->min_requests > 0)
		db_bind_int(s, ":req", p->min_requests);
	else
		db_bind_null(s, ":req");
	bind_real_or_null(s, ":ttft", p->ttft_limit_ms, p->ttft_limit_ms > 0);
	bind_real_or_null(s, ":tpot", p->tpot_limit_ms, p->tpot_limit_ms > 0);
	db_bind_real(s, ":pct", p->percentile);
	db_bind_text(s, ":conv", p->linear ? "linear" : "nearest-rank");
	db_bind_int(s, ":early", p->early);
	bind_real_or_null(s, ":n", p->little_n, 1);
	bind_real_or_null(s, ":xr", p->little_xr, 1);
	db_bind_text(s, ":verdict", p->valid ? "VALID" : "INVALID");
	db_bind_text(s, ":failed", p->valid ? NULL : p->failed);
	rc = db_step_done(st, s, "record a pass's verdict");
	sqlite3_finalize(s);
	return rc;
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

static int insert_pass(struct lr_store *st, int64_t set, const struct lr_store_pass *p)
{
	static const char sql[] =
		"INSERT INTO collect_pass(set_id, endpoint, api, model, concurrency, rate, burstiness, seed, server, models,"
		" duration_s, metrics_url, slo_ttft_ms, slo_tpot_ms, slo_e2el_ms, cancelled) VALUES (:set, :endpoint, :api,"
		" :model, :conc, :rate, :burst, :seed, :server, :models, :dur, :metrics, :slo0, :slo1, :slo2, :cancelled)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":set", set);
	db_bind_text(s, ":endpoint", p->endpoint);
	db_bind_text(s, ":api", p->api);
	db_bind_text(s, ":model", p->model);
	db_bind_int(s, ":conc", p->concurrency);
	bind_real_or_null(s, ":rate", p->rate, p->rate > 0);
	bind_real_or_null(s, ":burst", p->burstiness, p->rate > 0);
	if (p->has_seed)
		db_bind_int(s, ":seed", p->seed);
	else
		db_bind_null(s, ":seed");
	db_bind_text(s, ":server", p->server);
	db_bind_text(s, ":models", p->models);
	db_bind_real(s, ":dur", p->duration_s);
	db_bind_text(s, ":metrics", p->metrics_url);
	bind_real_or_null(s, ":slo0", p->slo_ms[0], p->slo_ms[0] > 0);
	bind_real_or_null(s, ":slo1", p->slo_ms[1], p->slo_ms[1] > 0);
	bind_real_or_null(s, ":slo2", p->slo_ms[2], p->slo_ms[2] > 0);
	db_bind_int(s, ":cancelled", p->cancelled);
	rc = db_step_done(st, s, "record a collected pass");
	sqlite3_finalize(s);
	if (!rc)
		rc = insert_gauges(st, set, p);
	if (!rc)
		rc = insert_identity(st, set, p);
	return rc ? rc : insert_validity(st, set, p);
}

/* What the client checked of request i (collect_check). */
static int insert_check(struct lr_store *st, sqlite3_stmt *s, int64_t set, size_t i, const struct lr_store_request *r)
{
	double lag = r->sent_ms - r->scheduled_ms;

	db_bind_int(s, ":set", set);
	db_bind_int(s, ":seq", (int64_t)i);
	db_bind_real(s, ":sched", r->scheduled_ms);
	bind_real_or_null(s, ":lag", lag, r->sent);
	bind_real_or_null(s, ":sttft", r->ttft_ms + lag, r->sent);
	bind_real_or_null(s, ":se2el", r->e2el_ms + lag, r->sent);
	if (r->received_tokens >= 0)
		db_bind_int(s, ":recv", r->received_tokens);
	else
		db_bind_null(s, ":recv");
	db_bind_int(s, ":fin", r->finishes);
	if (r->first_ok >= 0)
		db_bind_int(s, ":first", r->first_ok);
	else
		db_bind_null(s, ":first");
	db_bind_text(s, ":cut", r->cut_tokens);
	if (r->cut_tokens)
		sqlite3_bind_text(s, sqlite3_bind_parameter_index(s, ":cuttext"), r->cut_text ? r->cut_text : "",
				  (int)r->cut_text_len, SQLITE_TRANSIENT);
	else
		db_bind_null(s, ":cuttext");
	return db_step_done(st, s, "record a request's checks");
}

int lr_store_collect(struct lr_set_writer *w, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	static const char sql[] =
		"INSERT INTO collect_request(set_id, seq, case_id, body, sent_ms, end_ms, status, failure, ttft_ms, e2el_ms,"
		" itl_ms, token_source, prompt_tokens, completion_tokens, inflight) VALUES (:set, :seq, :case, :body, :sent,"
		" :end, :status, :failure, :ttft, :e2el, :itl, :source, :prompt, :completion, :inflight)";
	static const char check[] =
		"INSERT INTO collect_check(set_id, seq, scheduled_ms, send_lag_ms, sched_ttft_ms, sched_e2el_ms,"
		" received_tokens, finishes, first_ok, cut_tokens, cut_text) VALUES (:set, :seq, :sched, :lag, :sttft,"
		" :se2el, :recv, :fin, :first, :cut, :cuttext)";
	struct lr_store *st = lr_store_set_store(w);
	int64_t set = lr_store_set_id(w);
	sqlite3_stmt *s = NULL, *c = NULL;
	int rc;

	if ((rc = insert_pass(st, set, p)) || (rc = db_prepare(st, &s, sql)) || (rc = db_prepare(st, &c, check))) {
		sqlite3_finalize(s);
		return rc;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		db_bind_int(s, ":set", set);
		db_bind_int(s, ":seq", (int64_t)i);
		db_bind_text(s, ":case", r[i].case_id);
		db_bind_text(s, ":body", r[i].body);
		bind_real_or_null(s, ":sent", r[i].sent_ms, r[i].sent);
		bind_real_or_null(s, ":end", r[i].end_ms, r[i].sent);
		if (r[i].status)
			db_bind_int(s, ":status", r[i].status);
		else
			db_bind_null(s, ":status");
		db_bind_text(s, ":failure", r[i].failure);
		bind_real_or_null(s, ":ttft", r[i].ttft_ms, 1);
		bind_real_or_null(s, ":e2el", r[i].e2el_ms, 1);
		db_bind_text(s, ":itl", r[i].itl_json);
		db_bind_text(s, ":source", r[i].token_source);
		if (r[i].prompt_tokens >= 0)
			db_bind_int(s, ":prompt", r[i].prompt_tokens);
		else
			db_bind_null(s, ":prompt");
		if (r[i].completion_tokens >= 0)
			db_bind_int(s, ":completion", r[i].completion_tokens);
		else
			db_bind_null(s, ":completion");
		if (r[i].sent)
			db_bind_int(s, ":inflight", r[i].inflight);
		else
			db_bind_null(s, ":inflight");
		rc = db_step_done(st, s, "record a collected request");
		if (!rc)
			rc = insert_check(st, c, set, i, &r[i]);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(c);
	return rc;
}

int lr_store_collect_failures(struct lr_store *st, int64_t run, lr_collect_failure_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT x.set_id, s.route, s.condition_idx, x.case_id, x.failure FROM collect_request x"
		" JOIN response_set s ON s.id = x.set_id WHERE s.run_id = :run AND x.failure IS NOT NULL"
		" ORDER BY x.set_id, x.seq";
	struct lr_collect_failure f;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the collected requests", &rc)) {
		f.set = sqlite3_column_int64(s, 0);
		f.route = (const char *)sqlite3_column_text(s, 1);
		f.cond = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2);
		f.case_id = (const char *)sqlite3_column_text(s, 3);
		f.failure = (const char *)sqlite3_column_text(s, 4);
		rc = fn(arg, &f);
	}
	sqlite3_finalize(s);
	return rc;
}

static double col_real(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

int lr_store_collect_passes(struct lr_store *st, int64_t run, lr_collect_pass_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT p.set_id, s.route, s.condition_idx, p.concurrency, p.cancelled, p.rate, p.duration_s,"
		" p.slo_ttft_ms, p.slo_tpot_ms, p.slo_e2el_ms, v.set_id IS NOT NULL, v.min_duration_s, v.min_requests,"
		" v.ttft_limit_ms, v.tpot_limit_ms, v.percentile, v.convention = 'linear', v.early_stopping"
		" FROM collect_pass p JOIN response_set s ON s.id = p.set_id LEFT JOIN collect_validity v ON v.set_id = p.set_id"
		" WHERE s.run_id = :run ORDER BY p.set_id";
	struct lr_collect_pass_row p;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the collected passes", &rc)) {
		p.set = sqlite3_column_int64(s, 0);
		p.route = (const char *)sqlite3_column_text(s, 1);
		p.cond = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2);
		p.concurrency = sqlite3_column_int(s, 3);
		p.cancelled = sqlite3_column_int(s, 4);
		p.rate = sqlite3_column_type(s, 5) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 5);
		p.duration_s = sqlite3_column_double(s, 6);
		for (int k = 0; k < 3; k++)
			p.slo_ms[k] =
				sqlite3_column_type(s, 7 + k) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 7 + k);
		p.has_rules = sqlite3_column_int(s, 10);
		p.min_duration_s = sqlite3_column_double(s, 11); /* NULL reads as 0: no rule */
		p.min_requests = sqlite3_column_int64(s, 12);
		p.ttft_limit_ms = sqlite3_column_double(s, 13);
		p.tpot_limit_ms = sqlite3_column_double(s, 14);
		p.percentile = p.has_rules ? sqlite3_column_double(s, 15) : 99;
		p.linear = sqlite3_column_int(s, 16);
		p.early = sqlite3_column_int(s, 17);
		rc = fn(arg, &p);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_collect_rows(struct lr_store *st, int64_t set, lr_collect_row_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT x.failure IS NOT NULL, x.sent_ms, x.end_ms, x.ttft_ms, x.e2el_ms, x.itl_ms, x.prompt_tokens,"
		" CASE WHEN x.token_source <> 'text' THEN r.ntokens ELSE x.completion_tokens END, c.send_lag_ms,"
		" x.completion_tokens, c.received_tokens, c.first_ok"
		" FROM collect_request x LEFT JOIN response r ON r.set_id = x.set_id AND r.case_id = x.case_id"
		" LEFT JOIN collect_check c ON c.set_id = x.set_id AND c.seq = x.seq"
		" WHERE x.set_id = :set ORDER BY x.seq";
	struct lr_collect_row r;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":set", set);
	while (db_step_row(st, s, "read the collected requests", &rc)) {
		r.set = set;
		r.failed = sqlite3_column_int(s, 0);
		r.sent = sqlite3_column_type(s, 1) != SQLITE_NULL;
		r.sent_ms = col_real(s, 1);
		r.end_ms = col_real(s, 2);
		r.ttft_ms = col_real(s, 3);
		r.e2el_ms = col_real(s, 4);
		r.itl_json = (const char *)sqlite3_column_text(s, 5);
		r.prompt_tokens = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 6);
		r.output_tokens = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 7);
		r.lag_ms = col_real(s, 8);
		r.usage_tokens = sqlite3_column_type(s, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 9);
		r.received_tokens = sqlite3_column_type(s, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 10);
		r.first_ok = sqlite3_column_type(s, 11) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 11);
		rc = fn(arg, &r);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_collect_gauges(struct lr_store *st, int64_t set, lr_gauge_fn fn, void *arg)
{
	static const char sql[] = "SELECT g.t_ms, g.running, g.waiting, f.why FROM collect_gauge g"
				  " LEFT JOIN collect_gauge_failure f ON f.set_id = g.set_id AND f.seq = g.seq"
				  " WHERE g.set_id = :set ORDER BY g.seq";
	struct lr_gauge_sample g;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":set", set);
	while (db_step_row(st, s, "read the gauge samples", &rc)) {
		g.t_s = sqlite3_column_double(s, 0) / 1e3;
		g.running = col_real(s, 1);
		g.waiting = col_real(s, 2);
		g.failed = (const char *)sqlite3_column_text(s, 3);
		rc = fn(arg, &g);
	}
	sqlite3_finalize(s);
	return rc;
}

/* The reference of a case in a pass of the run: its response in the run's earliest set before (ref) or after (repl) it. */
#define LR_NEAR_SET(cmp, agg) \
	"(SELECT " agg \
	"(r2.set_id) FROM response r2 JOIN response_set t ON t.id = r2.set_id WHERE t.run_id = s.run_id" \
	" AND r2.case_id = x.case_id AND r2.set_id " cmp " x.set_id)"

int lr_store_collect_cuts(struct lr_store *st, int64_t run, lr_collect_cut_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT q.set_id, q.route, q.cond, q.case_id, q.failure, q.cut_tokens, q.ref, rr.tokens, q.repl, pr.tokens"
		" FROM (SELECT x.set_id, s.route, s.condition_idx AS cond, x.case_id, x.failure, c.cut_tokens,"
		" " LR_NEAR_SET("<", "min") " AS ref, " LR_NEAR_SET(
			">",
			"min") " AS repl"
			       " FROM collect_check c JOIN collect_request x ON x.set_id = c.set_id AND x.seq = c.seq"
			       " JOIN response_set s ON s.id = x.set_id WHERE s.run_id = :run AND c.cut_tokens IS NOT NULL) q"
			       " LEFT JOIN response rr ON rr.set_id = q.ref AND rr.case_id = q.case_id"
			       " LEFT JOIN response pr ON pr.set_id = q.repl AND pr.case_id = q.case_id ORDER BY q.set_id, q.case_id";
	struct lr_collect_cut c;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the cut streams", &rc)) {
		c.set = sqlite3_column_int64(s, 0);
		c.route = (const char *)sqlite3_column_text(s, 1);
		c.cond = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 2);
		c.case_id = (const char *)sqlite3_column_text(s, 3);
		c.failure = (const char *)sqlite3_column_text(s, 4);
		c.tokens = (const char *)sqlite3_column_text(s, 5);
		c.ref_set = sqlite3_column_int64(s, 6);
		c.ref_tokens = (const char *)sqlite3_column_text(s, 7);
		c.repl_set = sqlite3_column_int64(s, 8);
		c.repl_tokens = (const char *)sqlite3_column_text(s, 9);
		rc = fn(arg, &c);
	}
	sqlite3_finalize(s);
	return rc;
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

int lr_store_collect_identities(struct lr_store *st, int64_t run, lr_identity_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT p.set_id, s.route, p.server, p.models,"
		" (SELECT body FROM collect_identity x WHERE x.set_id = p.set_id AND x.path = '/version'),"
		" (SELECT body FROM collect_identity x WHERE x.set_id = p.set_id AND x.path = '/props')"
		" FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.run_id = :run ORDER BY p.set_id";
	struct lr_identity_row r;
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read what the engines said of themselves", &rc)) {
		r.set = sqlite3_column_int64(s, 0);
		r.route = (const char *)sqlite3_column_text(s, 1);
		r.server = (const char *)sqlite3_column_text(s, 2);
		r.models = (const char *)sqlite3_column_text(s, 3);
		r.version = (const char *)sqlite3_column_text(s, 4);
		r.props = (const char *)sqlite3_column_text(s, 5);
		rc = fn(arg, &r);
	}
	sqlite3_finalize(s);
	return rc;
}
