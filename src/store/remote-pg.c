/*
 * A remote: a PostgreSQL database with the schema of schema/pg/, reached
 * with libpq. Every statement takes its values as parameters; every write
 * is one transaction, so an interrupted push leaves nothing half-written.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "store/objects.h"
#include "store/pq.h"
#include "store/remote-int.h"
#include "store/s3.h"
#include "store/schema.h"

#define CHUNK (1 << 20) /* bytes of an object per row of object_chunk */

struct pg_remote {
	struct lr_remote base;
	PGconn *conn;
	char where[256]; /* "db 'x' on /tmp/sock:5432" for messages: never the password */
};

#define PG(r) ((struct pg_remote *)(r))

/* The first line of libpq's message, for one-line errors. */
static const char *first_line(const char *msg, char *buf, size_t len)
{
	size_t n = strcspn(msg, "\n");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), msg);
	return buf;
}

/* An LR_ESTORE error naming the remote, what failed and libpq's reason. */
static int pq_error(struct pg_remote *r, const char *what, const char *why)
{
	char line[512];

	lr_error_set(LR_ESTORE, "cannot %s on remote '%s' (%s): %s", what, r->base.name, r->where,
		     first_line(why ? why : PQerrorMessage(r->conn), line, sizeof line));
	if (strstr(line, "No space left") || strstr(line, "could not extend"))
		lr_error_hint("the remote's disk is full: nothing of this step was written; free space and push again");
	else if (strstr(line, "permission denied"))
		lr_error_hint(
			"the remote's role may lack a grant: docs/remote.md gives the roles for reading and pushing");
	return LR_ESTORE;
}

/* Run 'sql' with text parameters; a result of status 'want', else an error (result cleared). */
static PGresult *pq_exec(struct pg_remote *r, const char *what, ExecStatusType want, int *rc, const char *sql, int n,
			 const char *const *params)
{
	PGresult *res;

	if (*rc)
		return NULL;
	res = PQexecParams(r->conn, sql, n, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) == want)
		return res;
	*rc = pq_error(r, what, res ? PQresultErrorMessage(res) : NULL);
	PQclear(res);
	return NULL;
}

static int pq_do(struct pg_remote *r, const char *what, const char *sql, int n, const char *const *params)
{
	int rc = 0;

	PQclear(pq_exec(r, what, PGRES_COMMAND_OK, &rc, sql, n, params));
	return rc;
}

static void pq_rollback(struct pg_remote *r)
{
	PQclear(PQexec(r->conn, "ROLLBACK"));
}

static int connect_error(struct pg_remote *r)
{
	const char *msg = PQerrorMessage(r->conn);
	char line[512];

	/* libpq's message may span lines ("connection to server ... failed: FATAL: ..."): keep its reason */
	lr_error_set(LR_ESTORE, "cannot connect to remote '%s' (%s): %s", r->base.name, r->where,
		     first_line(strstr(msg, "failed: ") ? strstr(msg, "failed: ") + 8 : msg, line, sizeof line));
	if (strstr(msg, "password"))
		lr_error_hint("check the password for this user in ~/.pgpass or PGPASSWORD (labrun never stores it)");
	else if (strstr(msg, "No such file") || strstr(msg, "Connection refused") || strstr(msg, "could not connect") ||
		 strstr(msg, "timeout"))
		lr_error_hint("is the server running and reachable? 'labrun remote list' shows the remote's address");
	else
		lr_error_hint("'labrun remote list' shows the remote's address");
	return LR_ESTORE;
}

/* The remote's schema version; -1 when it has no labrun schema. */
static int schema_version(struct pg_remote *r, int *version)
{
	PGresult *res;
	int rc = 0;

	*version = -1;
	res = pq_exec(r, "read the schema version", PGRES_TUPLES_OK, &rc,
		      "SELECT to_regclass('labrun_migration') IS NOT NULL", 0, NULL);
	if (res && !strcmp(PQgetvalue(res, 0, 0), "t")) {
		PQclear(res);
		res = pq_exec(r, "read the schema version", PGRES_TUPLES_OK, &rc,
			      "SELECT coalesce(max(version), 0) FROM labrun_migration", 0, NULL);
		if (res)
			*version = atoi(PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	return rc;
}

static void pg_free(struct lr_remote *base)
{
	struct pg_remote *r = PG(base);

	PQfinish(r->conn);
	free(r->base.name);
	free(r);
}

static int pg_init(struct lr_remote *base, int *applied, int *version)
{
	struct pg_remote *r = PG(base);
	char num[16];
	int rc, v = 0, i;

	*applied = 0;
	/* one initialiser at a time: the others wait here, then find nothing to do */
	if ((rc = pq_do(r, "start a transaction", "BEGIN", 0, NULL)))
		goto out;
	PQclear(pq_exec(r, "take the migration lock", PGRES_TUPLES_OK, &rc, "SELECT pg_advisory_xact_lock(7635812)", 0,
			NULL));
	if (rc || (rc = schema_version(r, &v)))
		goto out;
	if (v > lr_pg_migration_count) {
		rc = lr_error_set(LR_ESCHEMA, "remote '%s' has schema version %d; this labrun knows up to %d",
				  r->base.name, v, lr_pg_migration_count);
		goto out;
	}
	for (i = v < 0 ? 0 : v; i < lr_pg_migration_count && !rc; i++) {
		const char *const p[] = { num, lr_pg_migrations[i].name };
		PGresult *res = PQexec(r->conn, lr_pg_migrations[i].sql);

		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			rc = pq_error(r, "apply a migration", PQresultErrorMessage(res));
		PQclear(res);
		snprintf(num, sizeof num, "%d", lr_pg_migrations[i].version);
		if (!rc && !(rc = pq_do(r, "record a migration",
					"INSERT INTO labrun_migration(version, name) VALUES ($1, $2)", 2, p)))
			(*applied)++;
	}
	if (!rc)
		rc = pq_do(r, "commit", "COMMIT", 0, NULL);
out:
	if (rc)
		pq_rollback(r);
	*version = rc ? v : lr_pg_migration_count;
	return rc;
}

/* Send the object file's chunks (inside the caller's transaction), checking its hash and size. */
static int send_chunks(struct pg_remote *r, const char *store_dir, const char *sha256, int64_t size)
{
	static const char ins[] = "INSERT INTO object_chunk(sha256, seq, data) VALUES ($1, $2, $3)";
	char *path = lr_obj_path(store_dir, sha256), *buf = malloc(CHUNK), seqs[24], hex[LR_SHA256_HEX];
	const int formats[] = { 0, 0, 1 };
	struct lr_sha256 h;
	int64_t total = 0;
	int rc = 0, fd = -1, seq = 0;
	ssize_t n;

	if (!path || !buf || (rc = lr_sha256_init(&h))) {
		rc = rc ? rc : lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = lr_error_set(LR_EIO, "cannot send object %s to remote '%s': %s", sha256, r->base.name,
				  strerror(errno));
		if (errno == ENOENT)
			lr_error_hint("its file is not in objects/ (archived and pruned?): 'labrun fsck' tells");
		goto hashed;
	}
	for (;;) {
		size_t got = 0;

		while (got < CHUNK && (n = read(fd, buf + got, CHUNK - got)) > 0)
			got += (size_t)n;
		if (n < 0) {
			rc = lr_error_set(LR_EIO, "cannot read object %s: %s", sha256, strerror(errno));
			break;
		}
		if (!got && seq)
			break;
		{
			const char *const p[] = { sha256, seqs, buf };
			const int lens[] = { 0, 0, (int)got };
			PGresult *res;

			snprintf(seqs, sizeof seqs, "%d", seq++);
			lr_sha256_update(&h, buf, got);
			total += (int64_t)got;
			lr_obj_step(sha256, total, size);
			res = PQexecParams(r->conn, ins, 3, NULL, p, lens, formats, 0);
			if (PQresultStatus(res) != PGRES_COMMAND_OK)
				rc = pq_error(r, "store an object's bytes", PQresultErrorMessage(res));
			PQclear(res);
		}
		if (rc || got < CHUNK)
			break;
	}
hashed:
	lr_sha256_final(&h, hex);
	if (!rc && (strcmp(hex, sha256) || total != size)) {
		rc = lr_error_set(LR_EIO, "object %s in objects/ does not match its name: not sent", sha256);
		lr_error_hint("'labrun fsck' checks every object");
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	free(buf);
	return rc;
}

static int pg_put_object(struct lr_remote *base, const char *store_dir, const char *sha256, int64_t size, int *sent)
{
	struct pg_remote *r = PG(base);
	char sz[24];
	const char *const p[] = { sha256, sz, base->objects_uri };
	PGresult *res;
	int rc = 0, put;

	*sent = 0;
	snprintf(sz, sizeof sz, "%lld", (long long)size);
	if ((rc = pq_do(r, "start a transaction", "BEGIN", 0, NULL)))
		return rc;
	/* a concurrent pusher of the same object waits here until the first one commits or rolls back; the
	 * bytes go to the chunks, or to the remote's bucket, before the row commits */
	res = pq_exec(r, "store an object", PGRES_TUPLES_OK, &rc,
		      "INSERT INTO object(sha256, size, bucket) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1",
		      3, p);
	if (res && PQntuples(res) == 1 &&
	    !(rc = base->objects ? lr_s3_object_put(base->objects, base->name, store_dir, sha256, size, &put)
				 : send_chunks(r, store_dir, sha256, size)))
		*sent = 1;
	PQclear(res);
	if (!rc)
		rc = pq_do(r, "commit an object", "COMMIT", 0, NULL);
	if (rc) {
		pq_rollback(r);
		*sent = 0;
	}
	return rc;
}

static int pg_has_run(struct lr_remote *base, const char *uuid, int *has)
{
	struct pg_remote *r = PG(base);
	const char *const p[] = { uuid };
	PGresult *res;
	int rc = 0;

	*has = 0;
	res = pq_exec(r, "read a run", PGRES_TUPLES_OK, &rc, "SELECT 1 FROM run WHERE uuid = $1", 1, p);
	if (res)
		*has = PQntuples(res) == 1;
	PQclear(res);
	return rc;
}

/* The same uuid is there: the same bundle is an earlier push, another is a conflict. */
static int present(struct pg_remote *r, const struct lr_bundle *b, int *outcome)
{
	const char *const p[] = { b->uuid };
	PGresult *res;
	int rc = 0;

	res = pq_exec(r, "read a run", PGRES_TUPLES_OK, &rc,
		      "SELECT bundle_sha256, pushed_from, pushed_by FROM run WHERE uuid = $1", 1, p);
	if (res && PQntuples(res) == 1 && !strcmp(PQgetvalue(res, 0, 0), b->sha256)) {
		*outcome = LR_PUSH_PRESENT;
	} else if (res) {
		rc = lr_error_set(LR_EREFUSED,
				  "remote '%s' refuses run %s: it holds that uuid with other content "
				  "(bundle %.12s..., pushed by %s from %s; this one is %.12s...)",
				  r->base.name, b->uuid, PQntuples(res) ? PQgetvalue(res, 0, 0) : "?",
				  PQntuples(res) ? PQgetvalue(res, 0, 2) : "?",
				  PQntuples(res) ? PQgetvalue(res, 0, 1) : "?", b->sha256);
		lr_error_hint(
			"the run changed after it was pushed (a later ingest, compare or gate?): the remote keeps its "
			"first copy; put the amendment in a run of its own and push that");
	}
	PQclear(res);
	return rc;
}

static int pg_put_run(struct lr_remote *base, const struct lr_bundle *b, const char *from_host, int *outcome)
{
	struct pg_remote *r = PG(base);
	const char *const p[] = { b->uuid,     b->sha256,     b->text, b->kind,  b->status,
				  b->hostname, b->started_at, b->seal, from_host };
	PGresult *res;
	size_t i;
	int rc = 0;

	*outcome = 0;
	if ((rc = pq_do(r, "start a transaction", "BEGIN", 0, NULL)))
		return rc;
	res = pq_exec(
		r, "store a run", PGRES_TUPLES_OK, &rc,
		"INSERT INTO run(uuid, bundle_sha256, bundle, kind, status, hostname, started_at, seal_digest, pushed_from)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING 1",
		9, p);
	if (res && !PQntuples(res))
		rc = present(r, b, outcome);
	else if (res)
		*outcome = LR_PUSH_NEW;
	PQclear(res);
	for (i = 0; !rc && *outcome == LR_PUSH_NEW && i < b->issues.n; i++) {
		const char *const q[] = { b->uuid, b->issues.v[i] };

		rc = pq_do(r, "store a run's issue", "INSERT INTO run_issue(uuid, issue_ref) VALUES ($1, $2)", 2, q);
	}
	for (i = 0; !rc && *outcome == LR_PUSH_NEW && i < b->objects.n; i++) {
		const char *const q[] = { b->uuid, b->objects.v[i].key };

		rc = pq_do(r, "store a run's object", "INSERT INTO run_object(uuid, sha256) VALUES ($1, $2)", 2, q);
	}
	if (!rc)
		rc = pq_do(r, "commit a run", "COMMIT", 0, NULL);
	if (rc) {
		pq_rollback(r);
		*outcome = 0;
	}
	return rc;
}

/* The uuids or prefixes as a PostgreSQL array literal (hex digits and dashes, checked by lr_remote_runs). */
static int uuid_array(const struct lr_strlist *l, char **out)
{
	size_t i, n, len = 3;
	char *a;

	*out = NULL;
	if (!l || !l->n)
		return 0;
	for (i = 0; i < l->n; i++) /* hex digits and dashes: lr_remote_runs checked them */
		len += strlen(l->v[i]) + 1;
	if (!(a = malloc(len)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0, n = 1, a[0] = '{'; i < l->n; i++)
		n += (size_t)snprintf(a + n, len - n, "%s%s", i ? "," : "", l->v[i]);
	snprintf(a + n, len - n, "}");
	*out = a;
	return 0;
}

static int pg_runs(struct lr_remote *base, const struct lr_remote_filter *f, lr_remote_run_fn fn, void *arg)
{
	struct pg_remote *r = PG(base);
	char *uuids = NULL;
	PGresult *res;
	int rc, i;

	if ((rc = uuid_array(f->uuids, &uuids)))
		return rc;
	{
		const char *const p[] = { f->issue, f->host, uuids };

		res = pq_exec(
			r, "list runs", PGRES_TUPLES_OK, &rc,
			"SELECT uuid, bundle_sha256 FROM run r"
			" WHERE ($1::text IS NULL OR EXISTS (SELECT 1 FROM run_issue i WHERE i.uuid = r.uuid AND i.issue_ref = $1))"
			" AND ($2::text IS NULL OR r.hostname = $2)"
			" AND ($3::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($3::text[]) u(p) WHERE left(r.uuid, length(p)) = p))"
			" ORDER BY r.pushed_at, r.uuid",
			3, p);
	}
	for (i = 0; res && !rc && i < PQntuples(res); i++)
		rc = fn(arg, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
	PQclear(res);
	free(uuids);
	return rc;
}

static int pg_get_run(struct lr_remote *base, const char *uuid, char **text, char **sha256, char **pushed_by,
		      char **pushed_from)
{
	struct pg_remote *r = PG(base);
	char max[24];
	const char *const p[] = { uuid, max };
	PGresult *res;
	int rc = 0;

	*text = *sha256 = *pushed_by = *pushed_from = NULL;
	snprintf(max, sizeof max, "%lld", (long long)lr_bundle_max());
	/* a bundle over the cap never comes over the wire: its JSON would cost several times its size here */
	res = pq_exec(r, "read a run", PGRES_TUPLES_OK, &rc,
		      "SELECT CASE WHEN octet_length(bundle) <= $2::bigint THEN bundle END, bundle_sha256, pushed_by, "
		      "pushed_from, octet_length(bundle) FROM run WHERE uuid = $1",
		      2, p);
	if (res && PQntuples(res) != 1) {
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' has no run %s", r->base.name, uuid);
	} else if (res && strtoll(PQgetvalue(res, 0, 4), NULL, 10) > strtoll(max, NULL, 10)) {
		rc = lr_error_set(LR_EINVAL,
				  "refusing to pull run %s from remote '%s': its bundle is %s bytes, more than %s",
				  uuid, r->base.name, PQgetvalue(res, 0, 4), max);
		lr_error_hint("a bundle is a run's rows, megabytes for a large one; if this run is one you expect, "
			      "raise the cap with LABRUN_MAX_BUNDLE=BYTES");
	} else if (res &&
		   (!(*text = strdup(PQgetvalue(res, 0, 0))) || !(*sha256 = strdup(PQgetvalue(res, 0, 1))) ||
		    !(*pushed_by = strdup(PQgetvalue(res, 0, 2))) || !(*pushed_from = strdup(PQgetvalue(res, 0, 3))))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	}
	PQclear(res);
	if (rc) {
		free(*text);
		free(*sha256);
		free(*pushed_by);
		free(*pushed_from);
		*text = *sha256 = *pushed_by = *pushed_from = NULL;
	}
	return rc;
}

/* Read the chunks one row at a time into 'w' (single-row mode: one chunk in memory at a time), 'most' bytes at most. */
static int receive_chunks(struct pg_remote *r, const char *sha256, struct lr_objw *w, int64_t most, int64_t *chunks)
{
	int64_t got = 0;
	const char *const p[] = { sha256 };
	PGresult *res;
	int rc = 0;

	*chunks = 0;
	if (!PQsendQueryParams(r->conn, "SELECT data FROM object_chunk WHERE sha256 = $1 ORDER BY seq", 1, NULL, p,
			       NULL, NULL, 1) ||
	    !PQsetSingleRowMode(r->conn))
		rc = pq_error(r, "read an object", NULL);
	while ((res = PQgetResult(r->conn))) {
		ExecStatusType t = PQresultStatus(res);

		if (!rc && t == PGRES_SINGLE_TUPLE && (got += PQgetlength(res, 0, 0)) > most) {
			rc = lr_error_set(LR_EIO, "remote '%s' sends more of object %s than the %lld bytes it holds",
					  r->base.name, sha256, (long long)most);
		} else if (!rc && t == PGRES_SINGLE_TUPLE) {
			rc = lr_objw_write(w, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
			(*chunks)++;
			lr_obj_step(sha256, got, most);
		} else if (!rc && t != PGRES_TUPLES_OK) {
			rc = pq_error(r, "read an object", PQresultErrorMessage(res));
		}
		PQclear(res);
	}
	return rc;
}

/* An object whose bytes are in bucket 'uri' (as the remote's row names it), read by a host that knows no bucket. */
static int in_bucket(const char *name, const char *sha256, const char *uri)
{
	char shown[600];

	lr_visible(shown, sizeof shown, uri); /* another host's words */
	lr_error_set(LR_ENOTFOUND, "remote '%s' keeps object %s in a bucket, %s, and this store knows no bucket for it",
		     name, sha256, shown);
	lr_error_hint("add the remote here as its pushers did: labrun remote remove %s; labrun remote add %s URI "
		      "--objects s3://BUCKET/PREFIX?endpoint=...",
		      name, name);
	return LR_ENOTFOUND;
}

static int pg_get_object(struct lr_remote *base, const char *store_dir, const char *sha256, int64_t expect)
{
	struct pg_remote *r = PG(base);
	const char *const p[] = { sha256 };
	struct lr_objw *w = NULL;
	char hex[LR_SHA256_HEX];
	int64_t size = 0, want, chunks;
	PGresult *res;
	int rc = 0;

	res = pq_exec(r, "read an object", PGRES_TUPLES_OK, &rc, "SELECT size, bucket FROM object WHERE sha256 = $1", 1,
		      p);
	if (res && PQntuples(res) != 1) {
		rc = lr_error_set(LR_ENOTFOUND, "remote '%s' has no object %s", r->base.name, sha256);
		lr_error_hint("push the run that names it from the host that recorded it");
	}
	want = res && !rc ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
	if (res && !rc && !PQgetisnull(res, 0, 1)) { /* its bytes are in the remote's bucket */
		rc = base->objects ? lr_s3_object_get(base->objects, base->name, store_dir, sha256, expect)
				   : in_bucket(base->name, sha256, PQgetvalue(res, 0, 1));
		PQclear(res);
		return rc;
	}
	PQclear(res);
	if (rc || (rc = lr_remote_size_differs(base->name, sha256, want, expect)) ||
	    (rc = lr_objw_open(&w, store_dir, NULL)))
		return rc;
	if ((rc = receive_chunks(r, sha256, w, want, &chunks))) {
		lr_objw_abort(w);
		return rc;
	}
	if (!(rc = lr_objw_commit(w, hex, &size)) && (strcmp(hex, sha256) || size != want)) {
		rc = lr_error_set(LR_EIO,
				  "object %s from remote '%s' does not match its name (%lld bytes, sha256 %.12s...)",
				  sha256, r->base.name, (long long)size, hex);
		lr_error_hint("the remote's copy is damaged: push it again from a store that holds it");
	}
	return rc;
}

static const struct lr_remote_ops pg_ops = { pg_init, pg_put_object, pg_has_run,    pg_put_run,
					     pg_runs, pg_get_run,    pg_get_object, pg_free };

int lr_remote_pg_open(struct lr_remote **out, const char *name, const char *uri, int for_init)
{
	const char *const keys[] = { "dbname", "fallback_application_name", NULL };
	const char *const vals[] = { uri, "labrun", NULL };
	struct pg_remote *r;
	int rc, version = 0;

	*out = NULL;
	if ((rc = lr_pq_load()))
		return rc;
	if (!(r = calloc(1, sizeof *r)) || !(r->base.name = strdup(name))) {
		free(r);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	r->base.ops = &pg_ops;
	r->conn = PQconnectdbParams(keys, vals, 1);
	if (r->conn) {
		const char *host = PQhost(r->conn), *db = PQdb(r->conn);

		snprintf(r->where, sizeof r->where, "database '%s' on %s%s%s", db ? db : "?", host ? host : "?",
			 PQport(r->conn) && *PQport(r->conn) ? ":" : "", PQport(r->conn) ? PQport(r->conn) : "");
	}
	if (!r->conn || PQstatus(r->conn) != CONNECTION_OK)
		rc = r->conn ? connect_error(r) : lr_error_set(LR_ENOMEM, "out of memory");
	else
		rc = schema_version(r, &version);
	if (!rc && version < 0 && !for_init) {
		rc = lr_error_set(LR_ESTORE, "remote '%s' (%s) has no labrun schema", name, r->where);
		lr_error_hint("create it once: labrun remote init %s", name);
	} else if (!rc && version > lr_pg_migration_count) {
		rc = lr_error_set(LR_ESCHEMA, "remote '%s' (%s) has schema version %d; this labrun knows up to %d",
				  name, r->where, version, lr_pg_migration_count);
		lr_error_hint("a newer labrun initialised it: upgrade labrun on this host");
	} else if (!rc && version < lr_pg_migration_count && !for_init) {
		rc = lr_error_set(LR_ESCHEMA, "remote '%s' (%s) has schema version %d; this labrun needs %d", name,
				  r->where, version, lr_pg_migration_count);
		lr_error_hint("migrate it: labrun remote init %s", name);
	}
	if (rc)
		pg_free(&r->base);
	else
		*out = &r->base;
	return rc;
}
