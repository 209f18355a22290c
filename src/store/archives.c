/* Registrations with research hubs, and objects that live in archives. */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "store/archives.h"
#include "store/objects.h"
#include "store/store-int.h"

int lr_store_register(struct lr_store *st, const struct lr_registration *g, const struct lr_strlist *run_uuids,
		      int64_t *id)
{
	static const char reg[] =
		"INSERT INTO registration(hub, crate_path, manifest_sha256, archive_sha256, registered_at)"
		" VALUES (:hub, :path, :sha, :archive, :now)";
	static const char run[] =
		"INSERT OR IGNORE INTO registration_run(registration_id, run_id) SELECT :reg, id FROM run WHERE uuid = :uuid";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if ((rc = db_begin_at(st)))
		return rc;
	if ((rc = db_prepare(st, &s, reg)))
		goto done;
	db_bind_text(s, ":hub", g->hub);
	db_bind_text(s, ":path", g->path);
	db_bind_text(s, ":sha", g->sha);
	db_bind_text(s, ":archive", g->archive_sha); /* NULL binds NULL */
	db_bind_text(s, ":now", st->now);
	rc = db_step_done(st, s, "record the registration");
	sqlite3_finalize(s);
	s = NULL;
	*id = sqlite3_last_insert_rowid(st->db);
	if (rc || (rc = db_prepare(st, &s, run)))
		goto done;
	for (i = 0; i < run_uuids->n && !rc; i++) {
		db_bind_int(s, ":reg", *id);
		db_bind_text(s, ":uuid", run_uuids->v[i]);
		rc = db_step_done(st, s, "record a registered run");
	}
done:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

/* The caller's callback for lr_store_registrations's rows. */
struct registrations {
	lr_registration_fn fn;
	void *arg;
};

static int registration_row(void *arg, sqlite3_stmt *s)
{
	const struct registrations *r = arg;
	const struct lr_registration g = {
		sqlite3_column_int64(s, 0),
		(const char *)sqlite3_column_text(s, 1),
		(const char *)sqlite3_column_text(s, 2),
		(const char *)sqlite3_column_text(s, 3),
		(const char *)sqlite3_column_text(s, 6),
		(const char *)sqlite3_column_text(s, 4),
		sqlite3_column_text(s, 5) ? (const char *)sqlite3_column_text(s, 5) : "",
	};

	return r->fn(r->arg, &g);
}

int lr_store_registrations(struct lr_store *st, lr_registration_fn fn, void *arg)
{
	static const char sql[] = "SELECT g.id, g.hub, g.crate_path, g.manifest_sha256, g.registered_at,"
				  " (SELECT group_concat(run_id, ' ') FROM (SELECT run_id FROM registration_run r"
				  "  WHERE r.registration_id = g.id ORDER BY run_id)), g.archive_sha256"
				  " FROM registration g ORDER BY g.id";
	struct registrations r = { fn, arg };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, sql)))
		return rc;
	return db_each(st, s, "read the registrations", registration_row, &r);
}

int lr_store_archived(struct lr_store *st, const char *sha256, char **archive, char **member)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*archive = *member = NULL;
	if ((rc = db_prepare(st, &s, "SELECT archive_path, member FROM archived_object WHERE sha256 = :sha")))
		return rc;
	db_bind_text(s, ":sha", sha256);
	if (db_step_row(st, s, "look up the archived object", &rc)) {
		*archive = db_col_dup(s, 0);
		*member = db_col_dup(s, 1);
		if (!*archive || !*member)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
	} else if (!rc) {
		char *path = lr_obj_path(st->dir, sha256);

		rc = lr_error_set(LR_ENOTFOUND, "object '%s' is missing, and it was never archived",
				  path ? path : sha256);
		lr_error_hint(
			"'labrun fsck' lists every missing object; a backup of the store's objects/ can restore it");
		free(path);
	}
	sqlite3_finalize(s);
	return rc;
}

int lr_store_archived_each(struct lr_store *st, lr_archived_fn fn, void *arg)
{
	return db_each_text3(st, "SELECT sha256, archive_path, member FROM archived_object ORDER BY sha256",
			     "read the archived objects", fn, arg);
}

int lr_store_archive_holds(struct lr_store *st, const char *path, int64_t *objects)
{
	return db_one_int_text(st, "SELECT count(*) FROM archived_object WHERE archive_path = :path", ":path", path,
			       objects, "read the archived objects");
}

int lr_store_mark_archived(struct lr_store *st, const char *archive, const struct lr_kvlist *sha_to_member)
{
	static const char sql[] =
		"INSERT INTO archived_object(sha256, archive_path, member, archived_at) VALUES (:sha, :archive, :member, :now)"
		" ON CONFLICT(sha256) DO UPDATE SET archive_path = excluded.archive_path, member = excluded.member,"
		" archived_at = excluded.archived_at";
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc;

	if ((rc = db_begin_at(st)))
		return rc;
	if (!(rc = db_prepare(st, &s, sql)))
		for (i = 0; i < sha_to_member->n && !rc; i++) {
			db_bind_text(s, ":sha", sha_to_member->v[i].key);
			db_bind_text(s, ":archive", archive);
			db_bind_text(s, ":member", sha_to_member->v[i].value);
			db_bind_text(s, ":now", st->now);
			rc = db_step_done(st, s, "record an archived object");
		}
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_prunable_logs(struct lr_store *st, const int64_t *runs, int n, lr_log_fn fn, void *arg)
{
	/* a log object of run :run that no artifact outside the archived runs, and no non-log artifact, uses */
	static const char sql[] =
		"SELECT a.sha256, a.role, a.name FROM artifact a WHERE a.run_id = :run AND a.sha256 IS NOT NULL"
		" AND a.role IN ('stdout', 'stderr', 'log')"
		" AND NOT EXISTS (SELECT 1 FROM artifact b WHERE b.sha256 = a.sha256"
		"  AND (b.role NOT IN ('stdout', 'stderr', 'log') OR b.run_id NOT IN (SELECT value FROM json_each(:runs))))"
		" ORDER BY a.role, a.name";
	struct lr_buf ids = LR_BUF_INIT;
	sqlite3_stmt *s = NULL;
	int rc = 0, i;

	lr_buf_addch(&ids, '[');
	for (i = 0; i < n; i++)
		lr_buf_addf(&ids, "%s%lld", i ? "," : "", (long long)runs[i]);
	lr_buf_addch(&ids, ']');
	if ((rc = lr_buf_error(&ids)) || (rc = db_prepare(st, &s, sql)))
		goto out;
	for (i = 0; i < n && !rc; i++) {
		db_bind_int(s, ":run", runs[i]);
		db_bind_text(s, ":runs", ids.buf);
		while (db_step_row(st, s, "read the runs' logs", &rc))
			rc = fn(arg, (const char *)sqlite3_column_text(s, 0), runs[i],
				(const char *)sqlite3_column_text(s, 1), (const char *)sqlite3_column_text(s, 2));
		sqlite3_reset(s);
	}
out:
	sqlite3_finalize(s);
	lr_buf_release(&ids);
	return rc;
}
