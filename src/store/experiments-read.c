/* Experiment runs read back: design, definition, arms, conditions, times, metrics, parity. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "store/experiments.h"
#include "store/store-int.h"

int lr_store_design(struct lr_store *st, int64_t run, struct lr_store_design *out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_prepare(st, &s,
			     "SELECT name, title, target, backend, block_order, blocks, warmup, margin, seed, metric"
			     " FROM run_design WHERE run_id = :run")))
		return rc;
	db_bind_int(s, ":run", run);
	if (db_step_row(st, s, "read the experiment design", &rc)) {
		db_col_copy(s, 0, out->name, sizeof out->name);
		db_col_copy(s, 1, out->title, sizeof out->title);
		db_col_copy(s, 2, out->target, sizeof out->target);
		db_col_copy(s, 3, out->backend, sizeof out->backend);
		db_col_copy(s, 4, out->order, sizeof out->order);
		out->blocks = sqlite3_column_int(s, 5);
		out->warmup = sqlite3_column_int(s, 6);
		out->margin = sqlite3_column_double(s, 7);
		out->seed = (uint64_t)sqlite3_column_int64(s, 8);
		db_col_copy(s, 9, out->metric, sizeof out->metric);
	} else if (!rc) {
		rc = lr_error_set(LR_ENOTFOUND, "run %lld has no stored design", (long long)run);
	}
	sqlite3_finalize(s);
	return rc;
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
			rc = lr_error_set(
				LR_ESTORE,
				"the stored definition of run %lld does not match its sha256 (%.12s, recorded %.12s)",
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
static int push(double **v, int *n, size_t *cap, double x)
{
	int rc;

	if ((rc = LR_ALLOC_GROW(*v, (size_t)*n + 1, *cap)))
		return rc;
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
	size_t cap = 0;
	int rc;

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
		db_col_copy(s, 0, names[*n], 32);
		db_col_copy(s, 1, kernels[*n], 32);
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
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	while (db_step_row(st, s, "read the conditions", &rc)) {
		if ((rc = LR_ALLOC_GROW(v, (size_t)*n + 1, cap)))
			break;
		p = &v[(*n)++];
		memset(p, 0, sizeof *p);
		p->idx = sqlite3_column_int(s, 0);
		db_col_copy(s, 1, p->model, sizeof p->model);
		p->layers = sqlite3_column_int64(s, 2);
		p->tokens = sqlite3_column_int64(s, 3);
		p->inner = sqlite3_column_int64(s, 4);
		db_col_copy(s, 5, p->status, sizeof p->status);
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

int lr_store_arm_metric(struct lr_store *st, int64_t run, int cond, int arm, const char *name, double **out, int *n,
			int *higher, int *flagged)
{
	static const char sql[] =
		"SELECT m.value, m.better, r.interfered FROM metric m"
		" JOIN execution e ON e.run_id = m.run_id AND e.condition_idx = m.condition_idx AND e.seq = m.seq"
		" JOIN repetition r ON r.run_id = e.run_id AND r.condition_idx = e.condition_idx AND r.block = e.block"
		"  AND r.slot = e.slot"
		" WHERE m.run_id = :run AND m.condition_idx = :cond AND e.arm_idx = :arm AND m.name = :name"
		"  AND r.warmup = 0 ORDER BY e.block, e.slot";
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	*higher = 0;
	*flagged = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":arm", arm);
	db_bind_text(s, ":name", name);
	while (db_step_row(st, s, "read the metrics", &rc)) {
		if (*n == 0)
			*higher = !strcmp((const char *)sqlite3_column_text(s, 1), "higher");
		*flagged += sqlite3_column_int(s, 2);
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

	if ((rc = db_prepare(st, &s,
			     "SELECT key, value FROM condition_param WHERE run_id = :run AND condition_idx = :cond"
			     " ORDER BY position")))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	while (db_step_row(st, s, "read the grid values", &rc))
		rc = lr_kvlist_add(out, (const char *)sqlite3_column_text(s, 0),
				   (const char *)sqlite3_column_text(s, 1), NULL);
	sqlite3_finalize(s);
	return rc;
}

int lr_store_arm_routes(struct lr_store *st, int64_t run, lr_str_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s,
			     "SELECT route FROM arm_command WHERE run_id = :run AND responses IS NOT NULL"
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
	/*
	 * What an experiment's arms run: its design's target, or for runs stored
	 * before run_design (migration 18) what its arms say.
	 */
#define TARGET_OF(r) \
	"coalesce((SELECT d.target FROM run_design d WHERE d.run_id = " r "), CASE" \
	" WHEN EXISTS (SELECT 1 FROM arm a WHERE a.run_id = " r " AND a.kernel = 'command') THEN 'command'" \
	" WHEN EXISTS (SELECT 1 FROM arm a WHERE a.run_id = " r \
	" AND a.layout != '') THEN 'import' ELSE 'encode' END)"
	/* an A/A run: passed, on this host, of this target, started before it, its arms all alike */
	static const char sql[] =
		"SELECT r.id FROM run r JOIN run me ON me.id = :run AND me.host_id = r.host_id"
		" WHERE r.kind = 'experiment' AND r.status = 'passed' AND r.id != :run AND r.started_at < me.started_at"
		"  AND " TARGET_OF("r.id") " = " TARGET_OF(
			"me.id") "  AND (SELECT count(*) FROM arm a WHERE a.run_id = r.id) >= 2"
				 "  AND (SELECT count(DISTINCT a.kernel || '/' || a.contract || '/' || a.layout || '/' || a.mode || '/' || a.threads)"
				 "       FROM arm a WHERE a.run_id = r.id) = 1"
				 "  AND (SELECT count(DISTINCT c.command || char(31) || coalesce(c.cwd, '') || char(31) ||"
				 "       coalesce(c.timeout_s, '') || char(31) || c.env_json || char(31) || coalesce(c.outputs, '') || char(31) ||"
				 "       coalesce(c.responses, '')) FROM arm_command c WHERE c.run_id = r.id) <= 1"
				 " ORDER BY r.started_at DESC, r.id DESC LIMIT 1";
#undef TARGET_OF
	return db_one_int(st, sql, ":run", run, aa, "look for an A/A run");
}

int lr_store_output_dropped(struct lr_store *st, int64_t run, int64_t *logs, int64_t *bytes)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*logs = *bytes = 0;
	if ((rc = db_prepare(st, &s,
			     "SELECT count(*), coalesce(sum(dropped_bytes), 0) FROM output_dropped"
			     " WHERE run_id = :run AND seq >= 0")))
		return rc;
	db_bind_int(s, ":run", run);
	if (db_step_row(st, s, "count the output past the cap", &rc)) {
		*logs = sqlite3_column_int64(s, 0);
		*bytes = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return rc;
}
