/* Experiment runs read back: design, definition, arms, conditions, times, metrics, parity. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "store/experiments.h"
#include "store/store-int.h"

int lr_store_design(struct lr_store *st, int64_t run, struct lr_store_design *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	rc = db_one_row(st,
			"SELECT name, title, target, backend, block_order, blocks, warmup, margin, seed, metric"
			" FROM run_design WHERE run_id = :run",
			":run", run, db_design_cols, db_ndesign_cols, out, "read the experiment design");
	if (rc < 0)
		return rc;
	return rc ? 0 : lr_error_set(LR_ENOTFOUND, "run %lld has no stored design", (long long)run);
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

/* A query of the values of an arm in a condition (arm_values). */
struct values_query {
	const char *sql, *what;
	int flag; /* the column that flags a value measured while something interfered */
};

/*
 * The values of arm 'arm' in condition 'cond' of run 'run' by query 'q'
 * (its :run, :cond, :arm and, when 'name' is not NULL, :name bound): its
 * first column as an array (*out, *n; none on an error); the sum of its
 * column q->flag in *flagged when that is not NULL; when 'higher' is not
 * NULL, whether the second column of the first row says "higher".
 */
static int arm_values(struct lr_store *st, const struct values_query *q, int64_t run, int cond, int arm,
		      const char *name, double **out, int *n, int *flagged, int *higher)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (higher)
		*higher = 0;
	if (flagged)
		*flagged = 0;
	if ((rc = db_prepare(st, &s, q->sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":arm", arm);
	if (name)
		db_bind_text(s, ":name", name);
	while (db_step_row(st, s, q->what, &rc)) {
		if (higher && *n == 0)
			*higher = !strcmp((const char *)sqlite3_column_text(s, 1), "higher");
		if (flagged)
			*flagged += sqlite3_column_int(s, q->flag);
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

int lr_store_arm_times(struct lr_store *st, int64_t run, int cond, int arm, double **out, int *n, int *flagged)
{
	static const struct values_query times = {
		/* the condition's 'inner' once (an uncorrelated subquery), not a join lookup per row */
		"SELECT r.wall_s / (SELECT inner FROM condition WHERE run_id = :run AND idx = :cond), r.interfered"
		" FROM repetition r"
		" WHERE r.run_id = :run AND r.condition_idx = :cond AND r.arm_idx = :arm AND r.warmup = 0"
		" ORDER BY r.block, r.slot",
		"read the repetitions", 1
	};

	return arm_values(st, &times, run, cond, arm, NULL, out, n, flagged, NULL);
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

static const struct db_col condition_cols[] = {
	DB_COL(struct lr_store_condition_row, idx, DB_INT),     DB_COL(struct lr_store_condition_row, model, DB_TEXT),
	DB_COL(struct lr_store_condition_row, layers, DB_INT),  DB_COL(struct lr_store_condition_row, tokens, DB_INT),
	DB_COL(struct lr_store_condition_row, inner, DB_INT),   DB_COL(struct lr_store_condition_row, status, DB_TEXT),
	DB_COL(struct lr_store_condition_row, failure, DB_DUP), DB_COL(struct lr_store_condition_row, flagged, DB_INT),
};

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
		db_row_read(s, DB_COLS(condition_cols), p);
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
	static const struct values_query metric = {
		"SELECT m.value, m.better, r.interfered FROM metric m"
		" JOIN execution e ON e.run_id = m.run_id AND e.condition_idx = m.condition_idx AND e.seq = m.seq"
		" JOIN repetition r ON r.run_id = e.run_id AND r.condition_idx = e.condition_idx AND r.block = e.block"
		"  AND r.slot = e.slot"
		" WHERE m.run_id = :run AND m.condition_idx = :cond AND e.arm_idx = :arm AND m.name = :name"
		"  AND r.warmup = 0 ORDER BY e.block, e.slot",
		"read the metrics", 2
	};

	return arm_values(st, &metric, run, cond, arm, name, out, n, flagged, higher);
}

static int param_row(void *arg, sqlite3_stmt *s)
{
	return lr_kvlist_add(arg, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
			     NULL);
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
	return db_each(st, s, "read the grid values", param_row, out);
}

/* A reader of text values: its callback and argument. */
struct str_reader {
	lr_str_fn fn;
	void *arg;
};

static int route_row(void *arg, sqlite3_stmt *s)
{
	const struct str_reader *r = arg;

	return r->fn(r->arg, (const char *)sqlite3_column_text(s, 0));
}

int lr_store_arm_routes(struct lr_store *st, int64_t run, lr_str_fn fn, void *arg)
{
	struct str_reader r = { fn, arg };

	return db_each_int(st,
			   "SELECT route FROM arm_command WHERE run_id = :run AND responses IS NOT NULL"
			   " ORDER BY arm_idx",
			   ":run", run, "read the arms' routes", route_row, &r);
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
	struct dropped {
		int64_t logs, bytes;
	} d = { 0, 0 };
	static const struct db_col cols[] = { DB_COL(struct dropped, logs, DB_INT),
					      DB_COL(struct dropped, bytes, DB_INT) };
	int rc = db_one_row(st,
			    "SELECT count(*), coalesce(sum(dropped_bytes), 0) FROM output_dropped"
			    " WHERE run_id = :run AND seq >= 0",
			    ":run", run, DB_COLS(cols), &d, "count the output past the cap");

	*logs = d.logs;
	*bytes = d.bytes;
	return rc < 0 ? rc : 0;
}

/* An execution's row for lr_store_executions: its fields, and the callback it goes to. */
struct exec_reader {
	lr_store_exec_fn fn;
	void *arg;
};

static const struct db_col exec_cols[] = {
	DB_COL(struct lr_store_exec_row, cond, DB_INT),
	DB_COL(struct lr_store_exec_row, seq, DB_INT),
	DB_COL(struct lr_store_exec_row, arm, DB_INT),
	DB_COL(struct lr_store_exec_row, block, DB_INT),
	DB_COL(struct lr_store_exec_row, slot, DB_INT),
	DB_COL(struct lr_store_exec_row, has_exit, DB_INT),
	DB_COL(struct lr_store_exec_row, exit_code, DB_INT),
	DB_COL(struct lr_store_exec_row, signal, DB_INT),
	DB_COL(struct lr_store_exec_row, timed_out, DB_INT),
	DB_COL(struct lr_store_exec_row, wall_s, DB_REAL),
	DB_COL(struct lr_store_exec_row, stdout_sha256, DB_TEXT),
	DB_COL(struct lr_store_exec_row, stderr_sha256, DB_TEXT),
	DB_COL(struct lr_store_exec_row, failure, DB_PTR),
};

static int exec_row(void *arg, sqlite3_stmt *s)
{
	const struct exec_reader *r = arg;
	struct lr_store_exec_row e = { 0 };

	db_row_read(s, DB_COLS(exec_cols), &e);
	return r->fn(r->arg, &e);
}

int lr_store_executions(struct lr_store *st, int64_t run, lr_store_exec_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT condition_idx, seq, arm_idx, coalesce(block, -1), coalesce(slot, -1), exit_code IS NOT NULL,"
		" coalesce(exit_code, 0), coalesce(signal, 0), timed_out, wall_s, stdout_sha256, stderr_sha256, failure"
		" FROM execution WHERE run_id = :run ORDER BY condition_idx, seq";
	struct exec_reader r = { fn, arg };

	return db_each_int(st, sql, ":run", run, "read the executions", exec_row, &r);
}
