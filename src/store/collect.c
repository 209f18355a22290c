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
	sqlite3_stmt *s = NULL;
	int rc = 0;

	if (!p->nsamples || (rc = db_prepare(st, &s, sql)))
		return rc;
	for (size_t i = 0; i < p->nsamples && !rc; i++) {
		db_bind_int(s, ":set", set);
		db_bind_int(s, ":seq", (int64_t)i);
		db_bind_real(s, ":t", p->samples[i].t_s * 1e3);
		bind_real_or_null(s, ":running", p->samples[i].running, 1);
		bind_real_or_null(s, ":waiting", p->samples[i].waiting, 1);
		rc = db_step_done(st, s, "record a gauge sample");
	}
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
	return rc ? rc : (rc = insert_gauges(st, set, p)) ? rc : insert_identity(st, set, p);
}

int lr_store_collect(struct lr_set_writer *w, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	static const char sql[] =
		"INSERT INTO collect_request(set_id, seq, case_id, body, sent_ms, end_ms, status, failure, ttft_ms, e2el_ms,"
		" itl_ms, token_source, prompt_tokens, completion_tokens, inflight) VALUES (:set, :seq, :case, :body, :sent,"
		" :end, :status, :failure, :ttft, :e2el, :itl, :source, :prompt, :completion, :inflight)";
	struct lr_store *st = lr_store_set_store(w);
	int64_t set = lr_store_set_id(w);
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = insert_pass(st, set, p)) || (rc = db_prepare(st, &s, sql)))
		return rc;
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
	}
	sqlite3_finalize(s);
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
		" p.slo_ttft_ms, p.slo_tpot_ms, p.slo_e2el_ms"
		" FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.run_id = :run ORDER BY p.set_id";
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
		rc = fn(arg, &p);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_collect_rows(struct lr_store *st, int64_t set, lr_collect_row_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT x.failure IS NOT NULL, x.sent_ms, x.end_ms, x.ttft_ms, x.e2el_ms, x.itl_ms, x.prompt_tokens,"
		" coalesce(x.completion_tokens, CASE WHEN x.token_source <> 'text' THEN r.ntokens END)"
		" FROM collect_request x LEFT JOIN response r ON r.set_id = x.set_id AND r.case_id = x.case_id"
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
		rc = fn(arg, &r);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_collect_gauges(struct lr_store *st, int64_t set, lr_gauge_fn fn, void *arg)
{
	static const char sql[] = "SELECT t_ms, running, waiting FROM collect_gauge WHERE set_id = :set ORDER BY seq";
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
		rc = fn(arg, &g);
	}
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
