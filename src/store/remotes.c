/* The remotes of a store (table 'remote'): names for PostgreSQL connection strings and s3:// URIs. */
#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "store/objects.h"
#include "store/pq.h"
#include "store/remote.h"
#include "store/s3.h"
#include "store/store-int.h"

/* An s3:// URI (s3.h), or a URI libpq reads; neither with a password in it (passwords stay in their own places). */
static int check_uri(const char *name, const char *uri)
{
	PQconninfoOption *opts, *o;
	char *err = NULL;
	int rc;

	if (!strncmp(uri, "s3://", 5))
		return lr_s3_uri_check(name, uri);
	if ((rc = lr_pq_load()))
		return rc;
	if (!(opts = PQconninfoParse(uri, &err))) {
		if (err)
			err[strcspn(err, "\n")] = '\0'; /* its first line */
		lr_error_set(LR_EINVAL, "cannot add remote '%s': libpq cannot read its connection string: %s", name,
			     err ? err : "out of memory");
		lr_error_hint("give a URI (postgresql://host/dbname) or keywords (host=... dbname=...)");
		PQfreemem(err);
		return LR_EINVAL;
	}
	for (o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val) {
			rc = lr_error_set(LR_EINVAL, "cannot add remote '%s': its connection string holds a password",
					  name);
			lr_error_hint(
				"labrun never stores passwords: put it in ~/.pgpass (or PGPASSWORD, or a service file) "
				"and add the remote without it");
		}
	PQconninfoFree(opts);
	return rc;
}

int lr_store_remote_add(struct lr_store *st, const char *name, const char *uri, const char *objects)
{
	sqlite3_stmt *s = NULL;
	char *now;
	int rc;

	if (!*name || strlen(name) > 64 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(name) ||
	    *name == '-') {
		lr_error_set(LR_EINVAL, "cannot add remote '%s': a name is 1 to 64 letters, digits, '.', '_' or '-'",
			     name);
		lr_error_hint("for example: labrun remote add lab postgresql://db.lab/evidence");
		return LR_EINVAL;
	}
	if ((rc = check_uri(name, uri)) || (objects && (rc = lr_s3_uri_check(name, objects))))
		return rc;
	if (objects && !strncmp(uri, "s3://", 5)) {
		lr_error_set(LR_EINVAL, "cannot add remote '%s': an S3 remote keeps its objects in its own bucket",
			     name);
		lr_error_hint("--objects goes with a PostgreSQL remote");
		return LR_EINVAL;
	}
	if (!(now = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = db_begin(st)) ||
	    (rc = db_prepare(st, &s,
			     "INSERT INTO remote(name, uri, added_at, objects_uri) VALUES (:n, :u, :now, :o)"
			     " ON CONFLICT(name) DO NOTHING")))
		goto out;
	db_bind_text(s, ":n", name);
	db_bind_text(s, ":u", uri);
	db_bind_text(s, ":now", now);
	db_bind_text(s, ":o", objects);
	if (!(rc = db_step_done(st, s, "add the remote")) && !sqlite3_changes(st->db)) {
		rc = lr_error_set(LR_EREFUSED, "cannot add remote '%s': this store has a remote of that name", name);
		lr_error_hint("'labrun remote list' shows it; 'labrun remote remove %s' removes it", name);
	}
out:
	sqlite3_finalize(s);
	free(now);
	return db_commit(st, rc);
}

int lr_store_remote_remove(struct lr_store *st, const char *name)
{
	sqlite3_stmt *s = NULL;
	int64_t pending = 0;
	int rc;

	if ((rc = db_begin(st)) || (rc = db_one_int_text(st, "SELECT count(*) FROM remote_object WHERE remote = :n",
							 ":n", name, &pending, "count the objects to fetch")))
		goto out;
	if (pending) {
		rc = lr_error_set(LR_EREFUSED,
				  "cannot remove remote '%s': %lld objects pulled lazily are still to come from it",
				  name, (long long)pending);
		lr_error_hint("pull them first: labrun pull %s --objects all", name);
	}
	if (rc || (rc = db_prepare(st, &s, "DELETE FROM remote WHERE name = :n")))
		goto out;
	db_bind_text(s, ":n", name);
	if (!(rc = db_step_done(st, s, "remove the remote")) && !sqlite3_changes(st->db)) {
		rc = lr_error_set(LR_ENOTFOUND, "there is no remote '%s'", name);
		lr_error_hint("'labrun remote list' shows the remotes");
	}
out:
	sqlite3_finalize(s);
	return db_commit(st, rc);
}

int lr_store_remote_get(struct lr_store *st, const char *name, char **name_out, char **uri, char **objects)
{
	sqlite3_stmt *s = NULL;
	int rc, n = 0;

	*uri = NULL;
	if (name_out)
		*name_out = NULL;
	if (objects)
		*objects = NULL;
	if ((rc = db_prepare(st, &s,
			     "SELECT name, uri, objects_uri FROM remote WHERE :n IS NULL OR name = :n ORDER BY name")))
		return rc;
	db_bind_text(s, ":n", name);
	while (db_step_row(st, s, "read the remotes", &rc) && ++n == 1) {
		if (!(*uri = db_col_dup(s, 1)) || (name_out && !(*name_out = db_col_dup(s, 0))) ||
		    (objects && sqlite3_column_type(s, 2) != SQLITE_NULL && !(*objects = db_col_dup(s, 2))))
			rc = lr_error_set(LR_ENOMEM, "out of memory");
	}
	sqlite3_finalize(s);
	if (!rc && !n) {
		rc = lr_error_set(LR_ENOTFOUND, name ? "there is no remote '%s'" : "this store has no remote%s",
				  name ? name : "");
		lr_error_hint("add one: labrun remote add NAME postgresql://HOST/DBNAME");
	} else if (!rc && n > 1) {
		rc = lr_error_set(LR_EINVAL, "this store has %d remotes: say which", n);
		lr_error_hint("'labrun remote list' shows them");
	}
	if (rc) {
		free(*uri);
		*uri = NULL;
		if (name_out) {
			free(*name_out);
			*name_out = NULL;
		}
		if (objects) {
			free(*objects);
			*objects = NULL;
		}
	}
	return rc;
}

struct remotes {
	lr_remote_fn fn;
	void *arg;
};

static int remote_row(void *arg, sqlite3_stmt *s)
{
	const struct remotes *r = arg;

	return r->fn(r->arg, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
		     (const char *)sqlite3_column_text(s, 2), (const char *)sqlite3_column_text(s, 3));
}

int lr_store_remotes(struct lr_store *st, lr_remote_fn fn, void *arg)
{
	struct remotes r = { fn, arg };
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = db_prepare(st, &s, "SELECT name, uri, added_at, objects_uri FROM remote ORDER BY name")))
		return rc;
	return db_each(st, s, "read the remotes", remote_row, &r);
}

int lr_store_object_fetch(struct lr_store *st, const char *sha256)
{
	char *path = lr_obj_path(st->dir, sha256), *remote = NULL, *uri = NULL, *objects = NULL;
	struct lr_remote *r = NULL;
	sqlite3_stmt *s = NULL;
	struct stat sb;
	int64_t size = -1;
	int rc;

	if (!path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = stat(path, &sb);
	free(path);
	if (!rc)
		return 0;
	if ((rc = db_prepare(
		     st, &s,
		     "SELECT r.remote, o.size FROM remote_object r JOIN object o USING (sha256) WHERE sha256 = :sha")))
		return rc;
	db_bind_text(s, ":sha", sha256);
	if (db_step_row(st, s, "find where an object is", &rc) && !(remote = db_col_dup(s, 0)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if (remote)
		size = sqlite3_column_int64(s, 1);
	sqlite3_finalize(s);
	if (rc || !remote) {
		free(remote);
		return rc ? rc : lr_error_set(LR_ENOTFOUND, "object %s is not in objects/ and on no remote", sha256);
	}
	if (!(rc = lr_store_remote_get(st, remote, NULL, &uri, &objects)) &&
	    !(rc = lr_remote_open(&r, remote, uri, objects, 0)))
		rc = lr_remote_get_object(r, st->dir, sha256, size);
	lr_remote_free(r);
	free(remote);
	free(uri);
	free(objects);
	return rc;
}
