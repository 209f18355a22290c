/* Experiment runs: plan, conditions, parity, repetitions, replay checks. */
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
	static const char sql[] =
		"INSERT INTO condition_param(run_id, condition_idx, key, value, position)"
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
	static const char out[] =
		"INSERT INTO execution_output(run_id, condition_idx, seq, path, sha256, size)"
		" VALUES (:run, :cond, :seq, :path, :sha, :size)";
	static const char met[] =
		"INSERT INTO metric(run_id, condition_idx, seq, name, value, unit, better)"
		" VALUES (:run, :cond, :seq, :name, :value, :unit, :better)";
	sqlite3_stmt *s = NULL, *o = NULL, *m = NULL;
	int rc, i, k;

	if ((rc = db_prepare(st, &s, exe)) || (rc = db_prepare(st, &o, out)) || (rc = db_prepare(st, &m, met)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		const struct lr_store_exec *e = &execs[i];

		rc = insert_execution(st, s, run, cond, e);
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

int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256,
			     const char *text, const struct lr_store_arm *arms, int narms)
{
	static const char def[] =
		"INSERT INTO run_definition(run_id, path, sha256, text) VALUES (:run, :path, :sha, :text)";
	static const char arm[] =
		"INSERT INTO arm(run_id, idx, name, kernel, contract, layout, mode, threads)"
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
	if (rc || (rc = db_prepare(st, &s, arm)))
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
out:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c,
		       const char *const *arm_sha, const int *matches, int narms,
		       const struct lr_store_rep *reps, int nreps)
{
	static const char cond[] =
		"INSERT INTO condition(run_id, idx, model, layers, kv_heads, head_dim, tokens, elements, inner, status, failure)"
		" VALUES (:run, :idx, :model, :layers, :kv_heads, :head_dim, :tokens, :elements, :inner, :status, :failure)";
	static const char par[] =
		"INSERT INTO parity(run_id, condition_idx, arm_idx, output_sha256, matches)"
		" VALUES (:run, :cond, :arm, :sha, :matches)";
	static const char rep[] =
		"INSERT INTO repetition(run_id, condition_idx, block, slot, arm_idx, warmup, wall_s, cpu_s,"
		" invol_switches, steal_ticks, interfered)"
		" VALUES (:run, :cond, :block, :slot, :arm, :warmup, :wall, :cpu, :invol, :steal, :interfered)";
	sqlite3_stmt *s = NULL;
	int rc, i;

	if ((rc = db_begin(st)))
		return rc;
	if ((rc = db_prepare(st, &s, cond)))
		goto out;
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
	s = NULL;
	if (rc || (rc = db_prepare(st, &s, par)))
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
	if (!rc && c->params)
		rc = insert_params(st, run, c->idx, c->params);
	if (!rc && c->nexecs)
		rc = insert_executions(st, run, c->idx, c->execs, c->nexecs);
out:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_definition(struct lr_store *st, int64_t run, char **path, char **text)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*path = *text = NULL;
	if ((rc = db_prepare(st, &s, "SELECT path, text, sha256 FROM run_definition WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", run);
	if (db_step_row(st, s, "read the stored definition", &rc)) {
		char got[LR_SHA256_HEX];
		const char *want = (const char *)sqlite3_column_text(s, 2);

		*path = db_col_dup(s, 0);
		*text = db_col_dup(s, 1);
		if (!*path || !*text)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		/* the text is what the run executed only while it still hashes to what was recorded */
		else if (!(rc = lr_sha256_buf(*text, strlen(*text), got)) && (!want || strcmp(got, want))) {
			rc = lr_error_set(LR_ESTORE, "the stored definition of run %lld does not match its sha256 (%.12s, recorded %.12s)",
					  (long long)run, got, want ? want : "none");
			lr_error_hint("the store was edited outside labrun; 'labrun audit' names what changed");
		}
		if (rc) {
			free(*path);
			free(*text);
			*path = *text = NULL;
		}
	} else if (!rc) {
		rc = lr_error_set(LR_ENOTFOUND, "run %lld has no stored experiment definition", (long long)run);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_parity_hashes(struct lr_store *st, int64_t run, int ncond, int narm, struct lr_digest *out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	memset(out, 0, (size_t)ncond * (size_t)narm * sizeof *out);
	if ((rc = db_prepare(st, &s, "SELECT condition_idx, arm_idx, output_sha256 FROM parity WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the parity hashes", &rc)) {
		int c = sqlite3_column_int(s, 0), a = sqlite3_column_int(s, 1);

		const char *hex = (const char *)sqlite3_column_text(s, 2);

		if (c >= 0 && c < ncond && a >= 0 && a < narm && hex)
			snprintf(out[(size_t)c * (size_t)narm + (size_t)a].hex, LR_SHA256_HEX, "%s", hex);
	}
	sqlite3_finalize(s);
	return rc;
}

/* Append a value to a growing array. */
static int push(double **v, int *n, int *cap, double x)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 64;
		double *p = realloc(*v, (size_t)c * sizeof *p);

		if (!p)
			return lr_error_set(LR_ENOMEM, "out of memory");
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int lr_store_arm_times(struct lr_store *st, int64_t run, int cond, int arm, double **out, int *n, int *flagged)
{
	static const char sql[] =
		/* the condition's 'inner' once (an uncorrelated subquery), not a join lookup per row */
		"SELECT r.wall_s / (SELECT inner FROM condition WHERE run_id = :run AND idx = :cond), r.interfered"
		" FROM repetition r"
		" WHERE r.run_id = :run AND r.condition_idx = :cond AND r.arm_idx = :arm AND r.warmup = 0"
		" ORDER BY r.block, r.slot";
	sqlite3_stmt *s = NULL;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if (flagged)
		*flagged = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":arm", arm);
	while (db_step_row(st, s, "read the repetitions", &rc)) {
		rc = push(out, n, &cap, sqlite3_column_double(s, 0));
		if (flagged)
			*flagged += sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int lr_store_arm_names(struct lr_store *st, int64_t run, char (*names)[32], char (*kernels)[32], int max, int *n)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*n = 0;
	if ((rc = db_prepare(st, &s, "SELECT name, kernel FROM arm WHERE run_id = :run ORDER BY idx")))
		return rc;
	db_bind_int(s, ":run", run);
	while (*n < max && db_step_row(st, s, "read the arms", &rc)) {
		snprintf(names[*n], 32, "%s", (const char *)sqlite3_column_text(s, 0));
		snprintf(kernels[*n], 32, "%s", (const char *)sqlite3_column_text(s, 1));
		(*n)++;
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_conditions(struct lr_store *st, int64_t run, struct lr_store_condition_row **out, int *n)
{
	static const char sql[] =
		"SELECT c.idx, c.model, c.layers, c.tokens, c.inner, c.status, c.failure,"
		" (SELECT count(*) FROM repetition r WHERE r.run_id = c.run_id AND r.condition_idx = c.idx"
		"  AND r.warmup = 0 AND r.interfered = 1)"
		" FROM condition c WHERE c.run_id = :run ORDER BY c.idx";
	struct lr_store_condition_row *v = NULL, *p;
	sqlite3_stmt *s = NULL;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the conditions", &rc)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(v, (size_t)cap * sizeof *v);
			if (!p) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
			v = p;
		}
		p = &v[(*n)++];
		memset(p, 0, sizeof *p);
		p->idx = sqlite3_column_int(s, 0);
		snprintf(p->model, sizeof p->model, "%s", (const char *)sqlite3_column_text(s, 1));
		p->layers = sqlite3_column_int64(s, 2);
		p->tokens = sqlite3_column_int64(s, 3);
		p->inner = sqlite3_column_int64(s, 4);
		snprintf(p->status, sizeof p->status, "%s", (const char *)sqlite3_column_text(s, 5));
		p->failure = db_col_dup(s, 6);
		p->flagged = sqlite3_column_int(s, 7);
	}
	sqlite3_finalize(s);
	if (rc) {
		lr_store_conditions_free(v, *n);
		*n = 0;
		return rc;
	}
	*out = v;
	return 0;
}

void lr_store_conditions_free(struct lr_store_condition_row *rows, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(rows[i].failure);
	free(rows);
}

int lr_store_repetitions(struct lr_store *st, int64_t run, lr_sqlrow_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT condition_idx, block, slot, arm_idx, warmup, wall_s, cpu_s, invol_switches, steal_ticks, interfered"
		" FROM repetition WHERE run_id = :run ORDER BY condition_idx, block, slot";
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	rc = db_each_row(s, fn, arg);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = db_error(st, "read the repetitions");
	sqlite3_finalize(s);
	return rc;
}

int lr_store_replay_checks(struct lr_store *st, int64_t run, const struct lr_replay_check *checks, int n)
{
	static const char sql[] =
		"INSERT INTO replay_check(run_id, item, original_value, replay_value, matches)"
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

int lr_store_arm_metric(struct lr_store *st, int64_t run, int cond, int arm, const char *name, double **out, int *n,
			int *higher)
{
	static const char sql[] =
		"SELECT m.value, m.better FROM metric m"
		" JOIN execution e ON e.run_id = m.run_id AND e.condition_idx = m.condition_idx AND e.seq = m.seq"
		" JOIN repetition r ON r.run_id = e.run_id AND r.condition_idx = e.condition_idx AND r.block = e.block"
		"  AND r.slot = e.slot"
		" WHERE m.run_id = :run AND m.condition_idx = :cond AND e.arm_idx = :arm AND m.name = :name"
		"  AND r.warmup = 0 ORDER BY e.block, e.slot";
	sqlite3_stmt *s = NULL;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	*higher = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":arm", arm);
	db_bind_text(s, ":name", name);
	while (db_step_row(st, s, "read the metrics", &rc)) {
		if (*n == 0)
			*higher = !strcmp((const char *)sqlite3_column_text(s, 1), "higher");
		rc = push(out, n, &cap, sqlite3_column_double(s, 0));
	}
	sqlite3_finalize(s);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int lr_store_condition_params(struct lr_store *st, int64_t run, int cond, struct lr_kvlist *out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT key, value FROM condition_param WHERE run_id = :run AND condition_idx = :cond"
				     " ORDER BY position")))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	while (db_step_row(st, s, "read the grid values", &rc))
		rc = lr_kvlist_add(out, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
				   NULL);
	sqlite3_finalize(s);
	return rc;
}

int lr_store_arm_routes(struct lr_store *st, int64_t run, lr_str_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT route FROM arm_command WHERE run_id = :run AND responses IS NOT NULL"
				     " ORDER BY arm_idx")))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the arms' routes", &rc))
		rc = fn(arg, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc;
}

int lr_store_newest_aa(struct lr_store *st, int64_t run, int64_t *aa)
{
	static const char sql[] =
		"SELECT r.id FROM run r JOIN run me ON me.id = :run AND me.host_id = r.host_id"
		" WHERE r.kind = 'experiment' AND r.status = 'passed' AND r.id != :run"
		"  AND (SELECT count(*) FROM arm a WHERE a.run_id = r.id) >= 2"
		"  AND (SELECT count(DISTINCT a.kernel || '/' || a.contract || '/' || a.layout || '/' || a.mode || '/' || a.threads)"
		"       FROM arm a WHERE a.run_id = r.id AND a.kernel != 'command') = 1"
		"  AND NOT EXISTS (SELECT 1 FROM arm a WHERE a.run_id = r.id AND a.kernel = 'command')"
		" ORDER BY r.id DESC LIMIT 1";
	sqlite3_stmt *s = NULL;
	int rc;

	*aa = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	if (db_step_row(st, s, "look for an A/A run", &rc))
		*aa = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}
