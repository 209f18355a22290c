/* Experiment runs written: plan (definition, design, arms), conditions, executions, replay checks. */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "store/experiments.h"
#include "store/store-int.h"

static int insert_arm_command(struct lr_store *st, int64_t run, int idx, const struct lr_store_arm_command *c)
{
	static const char sql[] =
		"INSERT INTO arm_command(run_id, arm_idx, command, cwd, timeout_s, env_json, outputs, responses, route)"
		" VALUES (:run, :idx, :command, :cwd, :timeout, :env, :outputs, :responses, :route)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":idx", idx);
	db_bind_text(s, ":command", c->command);
	db_bind_text(s, ":cwd", c->cwd);
	if (c->timeout_s > 0)
		db_bind_real(s, ":timeout", c->timeout_s);
	db_bind_text(s, ":env", c->env_json);
	db_bind_text(s, ":outputs", c->outputs);
	db_bind_text(s, ":responses", c->responses);
	db_bind_text(s, ":route", c->route);
	rc = db_step_done(st, s, "record an arm's command");
	sqlite3_finalize(s);
	return rc;
}

/* A command experiment's grid values of condition 'cond'. */
static int insert_params(struct lr_store *st, int64_t run, int cond, const struct lr_kvlist *params)
{
	static const char sql[] = "INSERT INTO condition_param(run_id, condition_idx, key, value, position)"
				  " VALUES (:run, :cond, :key, :value, :pos)";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	for (i = 0; i < params->n && !rc; i++) {
		db_bind_int(s, ":run", run);
		db_bind_int(s, ":cond", cond);
		db_bind_text(s, ":key", params->v[i].key);
		db_bind_text(s, ":value", params->v[i].value);
		db_bind_int(s, ":pos", (int64_t)i);
		rc = db_step_done(st, s, "record a grid value");
	}
	sqlite3_finalize(s);
	return rc;
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
	if (e->has_exit)
		db_bind_int(s, ":exit", e->exit_code);
	if (e->signal)
		db_bind_int(s, ":signal", e->signal);
	db_bind_int(s, ":timed_out", e->timed_out);
	db_bind_real(s, ":wall", e->wall_s);
	db_bind_real(s, ":user", e->user_s);
	db_bind_real(s, ":sys", e->sys_s);
	db_bind_int(s, ":rss", e->peak_rss_kib);
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

static int insert_design(struct lr_store *st, int64_t run, const struct lr_store_design *d)
{
	static const char sql[] =
		"INSERT INTO run_design(run_id, name, title, target, backend, block_order, blocks, warmup, margin, seed, metric)"
		" VALUES (:run, :name, :title, :target, :backend, :order, :blocks, :warmup, :margin, :seed, :metric)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_text(s, ":name", d->name);
	db_bind_text(s, ":title", d->title);
	db_bind_text(s, ":target", d->target);
	db_bind_text(s, ":backend", d->backend);
	db_bind_text(s, ":order", d->order);
	db_bind_int(s, ":blocks", d->blocks);
	db_bind_int(s, ":warmup", d->warmup);
	db_bind_real(s, ":margin", d->margin);
	db_bind_int(s, ":seed", (int64_t)d->seed); /* the bits of the uint64 */
	db_bind_text(s, ":metric", d->metric);
	rc = db_step_done(st, s, "record the experiment design");
	sqlite3_finalize(s);
	return rc;
}

/* The row of condition c and its grid values. */
static int insert_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c)
{
	static const char sql[] =
		"INSERT INTO condition(run_id, idx, model, layers, kv_heads, head_dim, tokens, elements, inner, status, failure)"
		" VALUES (:run, :idx, :model, :layers, :kv_heads, :head_dim, :tokens, :elements, :inner, :status, :failure)";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":idx", c->idx);
	db_bind_text(s, ":model", c->model);
	db_bind_int(s, ":layers", c->layers);
	db_bind_int(s, ":kv_heads", c->kv_heads);
	db_bind_int(s, ":head_dim", c->head_dim);
	db_bind_int(s, ":tokens", c->tokens);
	db_bind_int(s, ":elements", c->elements);
	db_bind_int(s, ":inner", c->inner);
	db_bind_text(s, ":status", c->status);
	db_bind_text(s, ":failure", c->failure);
	rc = db_step_done(st, s, "record a condition");
	sqlite3_finalize(s);
	if (!rc && c->params)
		rc = insert_params(st, run, c->idx, c->params);
	return rc;
}

int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256, const char *text,
			     const struct lr_store_design *design, const struct lr_store_arm *arms, int narms,
			     const struct lr_store_condition *planned, int nplanned)
{
	static const char def[] =
		"INSERT INTO run_definition(run_id, path, sha256, text) VALUES (:run, :path, :sha, :text)";
	static const char arm[] = "INSERT INTO arm(run_id, idx, name, kernel, contract, layout, mode, threads)"
				  " VALUES (:run, :idx, :name, :kernel, :contract, :layout, :mode, :threads)";
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = db_begin(st)))
		return rc;
	if ((rc = db_prepare(st, &s, def)))
		goto out;
	db_bind_int(s, ":run", run);
	db_bind_text(s, ":path", path);
	db_bind_text(s, ":sha", sha256);
	db_bind_text(s, ":text", text);
	rc = db_step_done(st, s, "record the experiment definition");
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = insert_design(st, run, design)) || (rc = db_prepare(st, &s, arm)))
		goto out;
	for (i = 0; i < narms && !rc; i++) {
		db_bind_int(s, ":run", run);
		db_bind_int(s, ":idx", i);
		db_bind_text(s, ":name", arms[i].name);
		db_bind_text(s, ":kernel", arms[i].kernel);
		db_bind_text(s, ":contract", arms[i].contract);
		db_bind_text(s, ":layout", arms[i].layout);
		db_bind_text(s, ":mode", arms[i].mode);
		db_bind_int(s, ":threads", arms[i].threads);
		rc = db_step_done(st, s, "record an arm");
	}
	for (i = 0; i < narms && !rc; i++)
		if (arms[i].cmd)
			rc = insert_arm_command(st, run, i, arms[i].cmd);
	for (i = 0; i < nplanned && !rc; i++)
		rc = insert_condition(st, run, &planned[i]);
out:
	sqlite3_finalize(s);
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
		rc = db_step_done(st, s, "replace a planned condition");
		sqlite3_finalize(s);
	}
	return rc;
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
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = db_begin(st)))
		return rc;
	/* the planned row stored at the run's start (lr_store_experiment_plan) gives way to the outcome */
	if ((rc = delete_planned(st, run, c->idx)) || (rc = insert_condition(st, run, c)) ||
	    (rc = db_prepare(st, &s, par)))
		goto out;
	for (i = 0; i < narms && !rc; i++) {
		if (!arm_sha[i])
			continue;
		db_bind_int(s, ":run", run);
		db_bind_int(s, ":cond", c->idx);
		db_bind_int(s, ":arm", i);
		db_bind_text(s, ":sha", arm_sha[i]);
		db_bind_int(s, ":matches", matches[i]);
		rc = db_step_done(st, s, "record a parity check");
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc || (rc = db_prepare(st, &s, rep)))
		goto out;
	for (i = 0; i < nreps && !rc; i++) {
		db_bind_int(s, ":run", run);
		db_bind_int(s, ":cond", c->idx);
		db_bind_int(s, ":block", reps[i].block);
		db_bind_int(s, ":slot", reps[i].slot);
		db_bind_int(s, ":arm", reps[i].arm);
		db_bind_int(s, ":warmup", reps[i].warmup);
		db_bind_real(s, ":wall", reps[i].wall_s);
		db_bind_real(s, ":cpu", reps[i].cpu_s);
		db_bind_int(s, ":invol", reps[i].invol_switches);
		db_bind_int(s, ":steal", reps[i].steal_ticks);
		db_bind_int(s, ":interfered", reps[i].interfered);
		rc = db_step_done(st, s, "record a repetition");
	}
	if (!rc && c->nexecs)
		rc = insert_executions(st, run, c->idx, c->execs, c->nexecs);
out:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_replay_checks(struct lr_store *st, int64_t run, const struct lr_replay_check *checks, int n)
{
	static const char sql[] = "INSERT INTO replay_check(run_id, item, original_value, replay_value, matches)"
				  " VALUES (:run, :item, :orig, :replay, :matches)";
	sqlite3_stmt *s = NULL;
	char *now = NULL;
	int rc, i;

	if ((rc = db_begin(st)))
		return rc;
	if (!(rc = db_prepare(st, &s, sql)))
		for (i = 0; i < n && !rc; i++) {
			db_bind_int(s, ":run", run);
			db_bind_text(s, ":item", checks[i].item);
			db_bind_text(s, ":orig", checks[i].original);
			db_bind_text(s, ":replay", checks[i].replay);
			db_bind_int(s, ":matches", checks[i].matches);
			rc = db_step_done(st, s, "record a replay check");
		}
	sqlite3_finalize(s);
	if (!rc)
		rc = (now = lr_now_iso()) ? db_seal_run(st, run, now) : lr_error_set(LR_ENOMEM, "out of memory");
	free(now);
	return db_commit(st, rc);
}
