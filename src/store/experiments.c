/* Experiment runs written: plan (definition, design, arms), conditions, executions, replay checks. */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "store/experiments.h"
#include "store/store-int.h"

/* The run (and condition) of the rows a db_insert_each of this file writes, and the items they are written from. */
struct rows {
	int64_t run;
	int cond;
	const struct lr_kvlist *params;
	const struct lr_store_arm *arms;
	const char *const *arm_sha; /* parity: each arm's output digest, NULL when not checked */
	const int *matches;
	const struct lr_store_rep *reps;
};

static const struct db_col arm_params[] = {
	DB_PARAM(":name", struct lr_store_arm, name, DB_PTR),
	DB_PARAM(":kernel", struct lr_store_arm, kernel, DB_PTR),
	DB_PARAM(":contract", struct lr_store_arm, contract, DB_PTR),
	DB_PARAM(":layout", struct lr_store_arm, layout, DB_PTR),
	DB_PARAM(":mode", struct lr_store_arm, mode, DB_PTR),
	DB_PARAM(":threads", struct lr_store_arm, threads, DB_INT),
};
static const struct db_col command_params[] = {
	DB_PARAM(":command", struct lr_store_arm_command, command, DB_PTR),
	DB_PARAM(":cwd", struct lr_store_arm_command, cwd, DB_PTR),
	DB_PARAM(":env", struct lr_store_arm_command, env_json, DB_PTR),
	DB_PARAM(":outputs", struct lr_store_arm_command, outputs, DB_PTR),
	DB_PARAM(":responses", struct lr_store_arm_command, responses, DB_PTR),
	DB_PARAM(":route", struct lr_store_arm_command, route, DB_PTR),
};

/* The command of arm i, when it has one. */
static int bind_arm_command(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct rows *r = arg;
	const struct lr_store_arm_command *c = r->arms[i].cmd;

	if (!c)
		return 1;
	db_bind_int(s, ":run", r->run);
	db_bind_int(s, ":idx", (int64_t)i);
	if (c->timeout_s > 0)
		db_bind_real(s, ":timeout", c->timeout_s);
	db_row_bind(s, DB_COLS(command_params), c);
	return 0;
}

/* A command experiment's grid value i of condition 'cond'. */
static int bind_param(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct rows *r = arg;

	db_bind_int(s, ":run", r->run);
	db_bind_int(s, ":cond", r->cond);
	db_bind_text(s, ":key", r->params->v[i].key);
	db_bind_text(s, ":value", r->params->v[i].value);
	db_bind_int(s, ":pos", (int64_t)i);
	return 0;
}

static int insert_execution(struct lr_store *st, sqlite3_stmt *s, int64_t run, int cond, const struct lr_store_exec *e)
{
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":seq", e->seq);
	db_bind_int(s, ":arm", e->arm);
	if (e->block >= 0) {
		db_bind_int(s, ":block", e->block);
		db_bind_int(s, ":slot", e->slot);
	}
	db_bind_text(s, ":argv", e->argv_json);
	db_bind_outcome(s, DB_OUTCOME(e));
	db_bind_text(s, ":stdout", e->stdout_sha256[0] ? e->stdout_sha256 : NULL);
	db_bind_text(s, ":stderr", e->stderr_sha256[0] ? e->stderr_sha256 : NULL);
	db_bind_text(s, ":outputs", e->outputs_sha256[0] ? e->outputs_sha256 : NULL);
	db_bind_text(s, ":failure", e->failure);
	return db_step_done(st, s, "record an execution");
}

/* Every execution of a command experiment's condition, with its outputs and metrics. */
static int insert_executions(struct lr_store *st, int64_t run, int cond, const struct lr_store_exec *execs, int n)
{
	static const char exe[] =
		"INSERT INTO execution(run_id, condition_idx, seq, arm_idx, block, slot, argv_json, exit_code, signal,"
		" timed_out, wall_s, user_s, sys_s, peak_rss_kib, stdout_sha256, stderr_sha256, outputs_sha256, failure)"
		" VALUES (:run, :cond, :seq, :arm, :block, :slot, :argv, :exit, :signal, :timed_out, :wall, :user, :sys,"
		" :rss, :stdout, :stderr, :outputs, :failure)";
	static const char out[] = "INSERT INTO execution_output(run_id, condition_idx, seq, path, sha256, size)"
				  " VALUES (:run, :cond, :seq, :path, :sha, :size)";
	static const char met[] = "INSERT INTO metric(run_id, condition_idx, seq, name, value, unit, better)"
				  " VALUES (:run, :cond, :seq, :name, :value, :unit, :better)";
	sqlite3_stmt *s = NULL, *o = NULL, *m = NULL;
	int rc, i, k;

	if ((rc = db_prepare(st, &s, exe)) || (rc = db_prepare(st, &o, out)) || (rc = db_prepare(st, &m, met)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		const struct lr_store_exec *e = &execs[i];

		rc = insert_execution(st, s, run, cond, e);
		if (!rc)
			rc = db_output_dropped(st, run, cond, e->seq, e->output_cap, e->dropped);
		if (!rc)
			rc = db_leftovers(st, run, cond, e->seq, &e->left);
		for (k = 0; k < e->noutputs && !rc; k++) {
			db_bind_int(o, ":run", run);
			db_bind_int(o, ":cond", cond);
			db_bind_int(o, ":seq", e->seq);
			db_bind_text(o, ":path", e->outputs[k].path);
			if (e->outputs[k].sha256[0]) {
				db_bind_text(o, ":sha", e->outputs[k].sha256);
				db_bind_int(o, ":size", e->outputs[k].size);
			}
			rc = db_step_done(st, o, "record an execution's output");
		}
		for (k = 0; k < e->nmetrics && !rc; k++) {
			db_bind_int(m, ":run", run);
			db_bind_int(m, ":cond", cond);
			db_bind_int(m, ":seq", e->seq);
			db_bind_text(m, ":name", e->metrics[k].name);
			db_bind_real(m, ":value", e->metrics[k].value);
			db_bind_text(m, ":unit", e->metrics[k].unit ? e->metrics[k].unit : "");
			db_bind_text(m, ":better", e->metrics[k].higher ? "higher" : "lower");
			rc = db_step_done(st, m, "record a metric");
		}
	}
out:
	sqlite3_finalize(s);
	sqlite3_finalize(o);
	sqlite3_finalize(m);
	return rc;
}

const struct db_col db_design_cols[] = {
	DB_PARAM(":name", struct lr_store_design, name, DB_TEXT),
	DB_PARAM(":title", struct lr_store_design, title, DB_TEXT),
	DB_PARAM(":target", struct lr_store_design, target, DB_TEXT),
	DB_PARAM(":backend", struct lr_store_design, backend, DB_TEXT),
	DB_PARAM(":order", struct lr_store_design, order, DB_TEXT),
	DB_PARAM(":blocks", struct lr_store_design, blocks, DB_INT),
	DB_PARAM(":warmup", struct lr_store_design, warmup, DB_INT),
	DB_PARAM(":margin", struct lr_store_design, margin, DB_REAL),
	DB_PARAM(":seed", struct lr_store_design, seed, DB_INT), /* the bits of the uint64 */
	DB_PARAM(":metric", struct lr_store_design, metric, DB_TEXT),
};
const size_t db_ndesign_cols = sizeof db_design_cols / sizeof *db_design_cols;

static const struct db_col condition_params[] = {
	DB_PARAM(":idx", struct lr_store_condition, idx, DB_INT),
	DB_PARAM(":model", struct lr_store_condition, model, DB_PTR),
	DB_PARAM(":layers", struct lr_store_condition, layers, DB_INT),
	DB_PARAM(":kv_heads", struct lr_store_condition, kv_heads, DB_INT),
	DB_PARAM(":head_dim", struct lr_store_condition, head_dim, DB_INT),
	DB_PARAM(":tokens", struct lr_store_condition, tokens, DB_INT),
	DB_PARAM(":elements", struct lr_store_condition, elements, DB_INT),
	DB_PARAM(":inner", struct lr_store_condition, inner, DB_INT),
	DB_PARAM(":status", struct lr_store_condition, status, DB_PTR),
	DB_PARAM(":failure", struct lr_store_condition, failure, DB_PTR),
};

/* The row of condition c and its grid values. */
static int insert_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c)
{
	static const char sql[] =
		"INSERT INTO condition(run_id, idx, model, layers, kv_heads, head_dim, tokens, elements, inner, status, failure)"
		" VALUES (:run, :idx, :model, :layers, :kv_heads, :head_dim, :tokens, :elements, :inner, :status, :failure)";
	static const char param[] = "INSERT INTO condition_param(run_id, condition_idx, key, value, position)"
				    " VALUES (:run, :cond, :key, :value, :pos)";
	struct db_items row = { ":run", run, NULL, c, sizeof *c, DB_COLS(condition_params) };
	struct rows r = { .run = run, .cond = c->idx, .params = c->params };
	int rc;

	if ((rc = db_insert_each(st, sql, 1, db_bind_items, &row, "record a condition")) || !c->params)
		return rc;
	return db_insert_each(st, param, c->params->n, bind_param, &r, "record a grid value");
}

int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256, const char *text,
			     const struct lr_store_design *design, const struct lr_store_arm *arms, int narms,
			     const struct lr_store_condition *planned, int nplanned)
{
	static const char def[] =
		"INSERT INTO run_definition(run_id, path, sha256, text) VALUES (:run, :path, :sha, :text)";
	static const char arm[] = "INSERT INTO arm(run_id, idx, name, kernel, contract, layout, mode, threads)"
				  " VALUES (:run, :idx, :name, :kernel, :contract, :layout, :mode, :threads)";
	static const char cmd[] =
		"INSERT INTO arm_command(run_id, arm_idx, command, cwd, timeout_s, env_json, outputs, responses, route)"
		" VALUES (:run, :idx, :command, :cwd, :timeout, :env, :outputs, :responses, :route)";
	static const char design_sql[] =
		"INSERT INTO run_design(run_id, name, title, target, backend, block_order, blocks, warmup, margin, seed, metric)"
		" VALUES (:run, :name, :title, :target, :backend, :order, :blocks, :warmup, :margin, :seed, :metric)";
	struct db_items arm_rows = { ":run", run, ":idx", arms, sizeof *arms, DB_COLS(arm_params) };
	struct db_items design_row = { ":run", run, NULL, design, sizeof *design, db_design_cols, db_ndesign_cols };
	struct rows r = { .run = run, .arms = arms };
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = db_begin(st)))
		return rc;
	if (!(rc = db_prepare(st, &s, def))) {
		db_bind_int(s, ":run", run);
		db_bind_text(s, ":path", path);
		db_bind_text(s, ":sha", sha256);
		db_bind_text(s, ":text", text);
		rc = db_step_final(st, s, "record the experiment definition");
	}
	if (!rc &&
	    !(rc = db_insert_each(st, design_sql, 1, db_bind_items, &design_row, "record the experiment design")) &&
	    !(rc = db_insert_each(st, arm, (size_t)(narms > 0 ? narms : 0), db_bind_items, &arm_rows, "record an arm")))
		rc = db_insert_each(st, cmd, (size_t)(narms > 0 ? narms : 0), bind_arm_command, &r,
				    "record an arm's command");
	for (i = 0; i < nplanned && !rc; i++)
		rc = insert_condition(st, run, &planned[i]);
	return db_commit(st, rc);
}

/* The planned row of condition 'cond' and its grid values, if any. */
static int delete_planned(struct lr_store *st, int64_t run, int cond)
{
	static const char *const sql[] = {
		"DELETE FROM condition_param WHERE run_id = :run AND condition_idx = :cond",
		"DELETE FROM condition WHERE run_id = :run AND idx = :cond",
	};
	sqlite3_stmt *s = NULL;
	int rc = 0;
	size_t i;

	for (i = 0; i < sizeof sql / sizeof *sql && !rc; i++) {
		if ((rc = db_prepare(st, &s, sql[i])))
			break;
		db_bind_int(s, ":run", run);
		db_bind_int(s, ":cond", cond);
		rc = db_step_final(st, s, "replace a planned condition");
	}
	return rc;
}

static int bind_parity(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct rows *r = arg;

	if (!r->arm_sha[i])
		return 1;
	db_bind_int(s, ":run", r->run);
	db_bind_int(s, ":cond", r->cond);
	db_bind_int(s, ":arm", (int64_t)i);
	db_bind_text(s, ":sha", r->arm_sha[i]);
	db_bind_int(s, ":matches", r->matches[i]);
	return 0;
}

static const struct db_col rep_params[] = {
	DB_PARAM(":block", struct lr_store_rep, block, DB_INT),
	DB_PARAM(":slot", struct lr_store_rep, slot, DB_INT),
	DB_PARAM(":arm", struct lr_store_rep, arm, DB_INT),
	DB_PARAM(":warmup", struct lr_store_rep, warmup, DB_INT),
	DB_PARAM(":wall", struct lr_store_rep, wall_s, DB_REAL),
	DB_PARAM(":cpu", struct lr_store_rep, cpu_s, DB_REAL),
	DB_PARAM(":invol", struct lr_store_rep, invol_switches, DB_INT),
	DB_PARAM(":steal", struct lr_store_rep, steal_ticks, DB_INT),
	DB_PARAM(":interfered", struct lr_store_rep, interfered, DB_INT),
};

static int bind_rep(const void *arg, sqlite3_stmt *s, size_t i)
{
	const struct rows *r = arg;

	db_bind_int(s, ":run", r->run);
	db_bind_int(s, ":cond", r->cond);
	db_row_bind(s, DB_COLS(rep_params), &r->reps[i]);
	return 0;
}

int lr_store_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c, const char *const *arm_sha,
		       const int *matches, int narms, const struct lr_store_rep *reps, int nreps)
{
	static const char par[] = "INSERT INTO parity(run_id, condition_idx, arm_idx, output_sha256, matches)"
				  " VALUES (:run, :cond, :arm, :sha, :matches)";
	static const char rep[] =
		"INSERT INTO repetition(run_id, condition_idx, block, slot, arm_idx, warmup, wall_s, cpu_s,"
		" invol_switches, steal_ticks, interfered)"
		" VALUES (:run, :cond, :block, :slot, :arm, :warmup, :wall, :cpu, :invol, :steal, :interfered)";
	struct rows r = { .run = run, .cond = c->idx, .arm_sha = arm_sha, .matches = matches, .reps = reps };
	int rc;

	if ((rc = db_begin(st)))
		return rc;
	/* the planned row stored at the run's start (lr_store_experiment_plan) gives way to the outcome */
	if (!(rc = delete_planned(st, run, c->idx)) && !(rc = insert_condition(st, run, c)) &&
	    !(rc = db_insert_each(st, par, (size_t)(narms > 0 ? narms : 0), bind_parity, &r,
				  "record a parity check")) &&
	    !(rc = db_insert_each(st, rep, (size_t)(nreps > 0 ? nreps : 0), bind_rep, &r, "record a repetition")) &&
	    c->nexecs)
		rc = insert_executions(st, run, c->idx, c->execs, c->nexecs);
	return db_commit(st, rc);
}

static const struct db_col check_params[] = {
	DB_PARAM(":item", struct lr_replay_check, item, DB_TEXT),
	DB_PARAM(":orig", struct lr_replay_check, original, DB_PTR),
	DB_PARAM(":replay", struct lr_replay_check, replay, DB_PTR),
	DB_PARAM(":matches", struct lr_replay_check, matches, DB_INT),
};

int lr_store_replay_checks(struct lr_store *st, int64_t run, const struct lr_replay_check *checks, int n)
{
	static const char sql[] = "INSERT INTO replay_check(run_id, item, original_value, replay_value, matches)"
				  " VALUES (:run, :item, :orig, :replay, :matches)";
	struct db_items rows = { ":run", run, NULL, checks, sizeof *checks, DB_COLS(check_params) };
	char *now = NULL;
	int rc;

	if ((rc = db_begin(st)))
		return rc;
	rc = db_insert_each(st, sql, (size_t)(n > 0 ? n : 0), db_bind_items, &rows, "record a replay check");
	if (!rc)
		rc = (now = lr_now_iso()) ? db_seal_run(st, run, now) : lr_error_set(LR_ENOMEM, "out of memory");
	free(now);
	return db_commit(st, rc);
}
