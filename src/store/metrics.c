/* The metrics of command experiments' executions, read as the report asks for them (store/metrics.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "store/metrics.h"
#include "store/store-int.h"

struct name_reader {
	lr_metric_name_fn fn;
	void *arg;
};

static int name_row(void *arg, sqlite3_stmt *s)
{
	const struct name_reader *r = arg;
	struct lr_store_metric_name m = {
		.name = (const char *)sqlite3_column_text(s, 0),
		.unit = (const char *)sqlite3_column_text(s, 1),
		.unit_other = (const char *)sqlite3_column_text(s, 2),
		.higher = !strcmp((const char *)sqlite3_column_text(s, 3), "higher"),
		.higher_other = !strcmp((const char *)sqlite3_column_text(s, 4), "higher"),
	};

	return r->fn(r->arg, &m);
}

int lr_store_metric_names(struct lr_store *st, int64_t run, lr_metric_name_fn fn, void *arg)
{
	struct name_reader r = { fn, arg };

	return db_each_int(st,
			   "SELECT name, min(unit), max(unit), min(better), max(better) FROM metric"
			   " WHERE run_id = :run GROUP BY name ORDER BY name",
			   ":run", run, "read the run's metric names", name_row, &r);
}

int lr_store_metric_missing(struct lr_store *st, int64_t run, int cond, int arm, const char *name, int64_t *missing)
{
	static const char sql[] =
		"SELECT count(*) FROM execution e"
		" JOIN repetition r ON r.run_id = e.run_id AND r.condition_idx = e.condition_idx AND r.block = e.block"
		"  AND r.slot = e.slot"
		" WHERE e.run_id = :run AND e.condition_idx = :cond AND e.arm_idx = :arm AND r.warmup = 0"
		"  AND NOT EXISTS (SELECT 1 FROM metric m WHERE m.run_id = e.run_id"
		"   AND m.condition_idx = e.condition_idx AND m.seq = e.seq AND m.name = :name)";
	sqlite3_stmt *s = NULL;
	int rc;

	*missing = 0;
	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	db_bind_int(s, ":run", run);
	db_bind_int(s, ":cond", cond);
	db_bind_int(s, ":arm", arm);
	db_bind_text(s, ":name", name);
	if (db_step_row(st, s, "count the executions without a metric", &rc))
		*missing = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}
