/* The store's settings: 'labrun config KEY [VALUE]'. */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "store/store-int.h"

int lr_store_setting_get(struct lr_store *st, const char *key, char **value)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*value = NULL;
	if ((rc = db_prepare(st, &s, "SELECT value FROM setting WHERE key = :key")))
		return rc;
	db_bind_text(s, ":key", key);
	if (db_step_row(st, s, "read a setting", &rc) && !(*value = db_col_dup(s, 0)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	sqlite3_finalize(s);
	return rc;
}

int lr_store_setting_set(struct lr_store *st, const char *key, const char *value)
{
	static const char set[] = "INSERT INTO setting(key, value, set_at) VALUES (:key, :value, :now)"
				  " ON CONFLICT(key) DO UPDATE SET value = excluded.value, set_at = excluded.set_at";
	sqlite3_stmt *s = NULL;
	char *now = NULL;
	int rc;

	if (value && !(now = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (!(rc = db_prepare(st, &s, value ? set : "DELETE FROM setting WHERE key = :key"))) {
		db_bind_text(s, ":key", key);
		if (value) {
			db_bind_text(s, ":value", value);
			db_bind_text(s, ":now", now);
		}
		rc = db_step_done(st, s, value ? "write a setting" : "remove a setting");
		sqlite3_finalize(s);
	}
	free(now);
	return rc;
}

int lr_store_settings(struct lr_store *st, lr_setting_fn fn, void *arg)
{
	return db_each_text3(st, "SELECT key, value, set_at FROM setting ORDER BY key", "read the settings", fn, arg);
}
