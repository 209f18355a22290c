#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/sha256.h"
#include "serving/serving.h"
#include "store/hashcache.h"
#include "store/ledger.h"
#include "store/remote.h"
#include "store/runs.h"
#include "store/schema.h"
#include "store/store-int.h"
#include "store/store.h"
#include "testutil.h"

struct fx {
	char *tmp;
	char dir[4096];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	f->tmp = tmpdir_new();
	assert_non_null(f->tmp);
	snprintf(f->dir, sizeof f->dir, "%s/store", f->tmp);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tmpdir_remove(f->tmp);
	free(f);
	return 0;
}

/* Read an integer with raw SQLite, independently of the store layer. */
static int raw_int(const char *dir, const char *sql)
{
	char path[4200];
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int v = -1;

	snprintf(path, sizeof path, "%s/labrun.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static void raw_exec(const char *dir, const char *sql)
{
	char path[4200];
	sqlite3 *db = NULL;

	snprintf(path, sizeof path, "%s/labrun.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void make_run(struct lr_run *r, const char *uuid)
{
	lr_run_init(r);
	snprintf(r->uuid, sizeof r->uuid, "%s", uuid);
	r->kind = LR_KIND_RECORD;
	r->started_at = strdup("2026-11-29T10:00:00.000Z");
	r->cwd = strdup("/tmp");
	r->argv_json = strdup("[\"true\"]");
	r->labrun_version = strdup("test");
	r->experiment = strdup("encoder205");
	r->host.hostname = strdup("h1");
	r->host.kernel = strdup("k");
	r->host.arch = strdup("x86_64");
	r->host.cores = 2;
	assert_int_equal(lr_kvlist_add(&r->geometry, "model", "qwen3-4b", NULL), 0);
	assert_int_equal(lr_kvlist_add(&r->binding, "device", "atom:0", "user"), 0);
	assert_int_equal(lr_kvlist_add(&r->env, "API_TOKEN", "<redacted>", "redacted"), 0);
	assert_int_equal(lr_strlist_add(&r->issues, "270"), 0);
}

static void open_creates_and_migrates(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;

	assert_int_equal(lr_store_open(&st, f->dir, 0), LR_ENOTFOUND);
	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(lr_store_schema_version(st), lr_migration_count);
	lr_store_free(st);
	assert_int_equal(raw_int(f->dir, "PRAGMA user_version"), lr_migration_count);
	assert_int_equal(raw_int(f->dir, "PRAGMA application_id"), LR_APPLICATION_ID);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM sqlite_master WHERE name = 'run_overview'"), 1);
	/* reopening is idempotent */
	assert_int_equal(lr_store_open(&st, f->dir, 0), 0);
	lr_store_free(st);
}

static void newer_schema_is_refused_and_left_untouched(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	char db[4200], before[LR_SHA256_HEX], after[LR_SHA256_HEX];

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	lr_store_free(st);
	raw_exec(f->dir, "PRAGMA user_version = 999");
	snprintf(db, sizeof db, "%s/labrun.db", f->dir);
	assert_int_equal(lr_sha256_file(db, before, NULL), 0);
	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), LR_ESCHEMA);
	assert_null(st);
	assert_non_null(strstr(lr_error_msg(), "newer"));
	assert_int_equal(lr_sha256_file(db, after, NULL), 0);
	assert_string_equal(before, after);
	assert_int_equal(raw_int(f->dir, "PRAGMA user_version"), 999);
}

static void foreign_database_is_refused(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;

	assert_int_equal(mkdir(f->dir, 0777), 0);
	raw_exec(f->dir, "CREATE TABLE t(x); PRAGMA application_id = 1234");
	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), LR_ESCHEMA);
	assert_non_null(strstr(lr_error_msg(), "not a labrun database"));
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM sqlite_master WHERE name = 'run'"), 0);
}

static void run_round_trips_through_the_store(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	struct lr_run r, back;
	int64_t id = 0;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	make_run(&r, "0b1d3c4e-0000-4000-8000-000000000001");
	assert_int_equal(lr_run_add_artifact(&r, "input", "in.bin",
					     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3),
			 0);
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	assert_true(r.id > 0);

	r.status = LR_FAILED;
	r.ended_at = strdup("2026-11-29T10:00:01.000Z");
	r.has_exit = 1;
	r.exit_code = 3;
	r.failure = strdup("the command exited with status 3");
	r.wall_s = 1.5;
	assert_int_equal(lr_run_add_artifact(&r, "stdout", "stdout",
					     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3),
			 0);
	assert_int_equal(lr_store_run_finish(st, &r, 1), 0);
	/* a second finish is refused: the run is no longer running */
	assert_int_equal(lr_store_run_finish(st, &r, 2), LR_ESTORE);

	assert_int_equal(lr_store_run_resolve(st, "last", &id), 0);
	assert_int_equal(id, r.id);
	assert_int_equal(lr_store_run_resolve(st, "0b1d3c4e", &id), 0);
	assert_int_equal(lr_store_run_resolve(st, "ffff", &id), LR_ENOTFOUND);
	assert_int_equal(lr_store_run_resolve(st, "x';--", &id), LR_EINVAL);

	lr_run_init(&back);
	assert_int_equal(lr_store_run_load(st, r.id, &back), 0);
	assert_string_equal(back.uuid, r.uuid);
	assert_int_equal(back.status, LR_FAILED);
	assert_int_equal(back.exit_code, 3);
	assert_string_equal(back.experiment, "encoder205");
	assert_string_equal(lr_kvlist_find(&back.geometry, "model")->value, "qwen3-4b");
	assert_string_equal(lr_kvlist_find(&back.binding, "device")->tag, "user");
	assert_string_equal(lr_kvlist_find(&back.env, "API_TOKEN")->tag, "redacted");
	assert_int_equal(back.issues.n, 1);
	assert_int_equal(back.nartifacts, 2);
	assert_string_equal(back.artifacts[0].role, "stdout");
	assert_string_equal(back.host.hostname, "h1");
	lr_run_release(&back);
	lr_run_release(&r);
	lr_store_free(st);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM object"), 1);
}

static int count_problem(void *arg, int64_t seq, const char *run_uuid, const char *text)
{
	(void)seq;
	(void)run_uuid;
	(void)text;
	++*(int *)arg;
	return 0;
}

static int count_changed(void *arg, const char *table)
{
	(void)table;
	++*(int *)arg;
	return 0;
}

/*
 * audit checks each seal, then walks the ledger with the digests it kept
 * from the seal checks. Rows changed by another writer in between must be
 * read again, not taken from what was kept.
 */
static void the_ledger_walk_sees_rows_changed_after_the_seal_check(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	struct lr_ledger_head head;
	struct lr_run r;
	int sealed = 0, changed = 0, problems = 0;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	make_run(&r, "0b1d3c4e-0000-4000-8000-0000000000aa");
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	r.status = LR_PASSED;
	r.ended_at = strdup("2026-11-29T10:00:01.000Z");
	assert_int_equal(lr_store_run_finish(st, &r, 1), 0);
	assert_int_equal(lr_store_seal_check(st, r.id, count_changed, &changed, &sealed), 0);
	assert_int_equal(sealed, 1);
	assert_int_equal(changed, 0);
	assert_int_equal(lr_store_ledger_check(st, NULL, 0, NULL, count_problem, &problems, &head), 0);
	assert_int_equal(problems, 0);
	raw_exec(f->dir, "UPDATE run SET cwd = '/elsewhere'"); /* another connection */
	assert_int_equal(lr_store_ledger_check(st, NULL, 0, NULL, count_problem, &problems, &head), 0);
	assert_int_equal(problems, 1);
	lr_run_release(&r);
	lr_store_free(st);
}

/* Record a finished run of 'uuid' through 'st' (a ledger entry): its id. */
static int64_t finished_run(struct lr_store *st, const char *uuid)
{
	struct lr_run r;
	int64_t id;

	make_run(&r, uuid);
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	r.status = LR_PASSED;
	r.ended_at = strdup("2026-11-29T10:00:01.000Z");
	assert_int_equal(lr_store_run_finish(st, &r, 1), 0);
	id = r.id;
	lr_run_release(&r);
	return id;
}

/*
 * manifest and archive read one snapshot: it sees the store as it was when
 * it began while another connection commits (which it does not hold up),
 * nests (a run's bundle, read in a savepoint of its own, included), refuses
 * writes through its own connection, both a write transaction and a single
 * statement, and keeps no cache; once ended, the new commits are seen and
 * writes go through again.
 */
static void a_snapshot_reads_one_state_while_another_connection_writes(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL, *other = NULL;
	struct lr_ledger_head head;
	struct lr_hash_entry e = { .path = f->dir };
	struct lr_bundle b;
	int64_t id;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(lr_store_open(&other, f->dir, 0), 0);
	id = finished_run(st, "0b1d3c4e-0000-4000-8000-0000000000c1");
	assert_int_equal(lr_store_snapshot_begin(st), 0);
	assert_int_equal(lr_store_snapshot_begin(st), 0);
	finished_run(other, "0b1d3c4e-0000-4000-8000-0000000000c2");
	assert_int_equal(lr_store_ledger_head(other, &head), 0);
	assert_int_equal(head.seq, 2);
	assert_int_equal(lr_store_ledger_head(st, &head), 0);
	assert_int_equal(head.seq, 1);
	lr_store_snapshot_end(st); /* the inner one: the snapshot stays */
	assert_int_equal(lr_store_run_bundle(st, id, &b), 0);
	lr_bundle_release(&b);
	assert_int_equal(lr_store_ledger_head(st, &head), 0);
	assert_int_equal(head.seq, 1);
	assert_int_equal(lr_store_setting_set(st, "manifest.license", "CC0-1.0"), LR_ESTORE);
	assert_int_equal(lr_store_remote_add(st, "lab", "postgresql://db.lab/evidence", NULL), LR_ESTORE);
	assert_int_equal(lr_sha256_buf("", 0, e.sha256), 0);
	assert_int_equal(stat(f->dir, &e.sb), 0);
	assert_int_equal(lr_store_hash_remember(st, &e, 1), 0);
	lr_store_snapshot_end(st);
	lr_store_snapshot_end(st); /* none open: nothing to do */
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM file_hash_cache"), 0);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM setting"), 0);
	assert_int_equal(lr_store_ledger_head(st, &head), 0);
	assert_int_equal(head.seq, 2);
	assert_int_equal(lr_store_setting_set(st, "manifest.license", "CC0-1.0"), 0);
	/* with no one else writing, a write is refused all the same */
	assert_int_equal(lr_store_snapshot_begin(st), 0);
	assert_int_equal(lr_store_setting_set(st, "manifest.license", NULL), LR_ESTORE);
	lr_store_snapshot_end(st);
	lr_store_free(other);
	lr_store_free(st);
}

/* A responses file of one case whose sha256 does not start with 'avoid' (two hex digits, or ""): its digest. */
static void responses_file(const char *path, const char *avoid, char hex[LR_SHA256_HEX])
{
	for (int i = 0;; i++) {
		FILE *fp = fopen(path, "w");

		assert_non_null(fp);
		fprintf(fp, "{\"case_id\": \"c1\", \"tokens\": [%d], \"text\": \"t\", \"finish_reason\": \"stop\"}\n",
			i);
		assert_int_equal(fclose(fp), 0);
		assert_int_equal(lr_sha256_file(path, hex, NULL), 0);
		if (!*avoid || strncmp(hex, avoid, 2))
			return;
	}
}

/*
 * An ingest whose copy cannot be put into objects/ (its fan-out directory
 * is a file) fails and leaves no transaction open: the same connection's
 * next ingest stores its own set and nothing of the first.
 */
static void an_ingest_that_cannot_store_its_object_leaves_nothing_open(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	char a[4200], b[4200], block[4300], ha[LR_SHA256_HEX], hb[LR_SHA256_HEX];
	char *envp[] = { NULL };
	int64_t set = 0, cases = 0;
	struct lr_run r;
	FILE *fp;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	make_run(&r, "0b1d3c4e-0000-4000-8000-0000000000ab");
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	r.status = LR_PASSED;
	r.ended_at = strdup("2026-11-29T10:00:01.000Z");
	assert_int_equal(lr_store_run_finish(st, &r, 1), 0);
	snprintf(a, sizeof a, "%s/a.jsonl", f->tmp);
	snprintf(b, sizeof b, "%s/b.jsonl", f->tmp);
	responses_file(a, "", ha);
	responses_file(b, (char[3]){ ha[0], ha[1], 0 }, hb);
	snprintf(block, sizeof block, "%s/objects/%.2s", f->dir, ha);
	assert_non_null(fp = fopen(block, "w")); /* where a's object would go */
	fclose(fp);
	assert_int_equal(lr_responses_ingest(st, r.id, "a", -1, -1, a, envp, &set, &cases), LR_EIO);
	assert_int_equal(lr_responses_ingest(st, r.id, "b", -1, -1, b, envp, &set, &cases), 0);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM response_set"), 1);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM response_set WHERE route = 'b'"), 1);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM response"), 1);
	lr_run_release(&r);
	lr_store_free(st);
}

static void abandon_changes_only_running_runs(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	struct lr_running *running = NULL;
	struct lr_run r;
	size_t n = 0;
	int changed = -1;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	make_run(&r, "0b1d3c4e-0000-4000-8000-000000000002");
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	assert_int_equal(lr_store_running(st, &running, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(running[0].id, r.id);
	free(running);
	assert_int_equal(lr_store_run_abandon(st, r.id, "2026-11-29T11:00:00.000Z", NULL, 0, &changed), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(lr_store_run_abandon(st, r.id, "2026-11-29T11:00:00.000Z", NULL, 0, &changed), 0);
	assert_int_equal(changed, 0);
	lr_run_release(&r);
	lr_store_free(st);
	assert_int_equal(raw_int(f->dir, "SELECT status = 'abandoned' FROM run"), 1);
}

static int count_rows(void *arg, const struct lr_sqlrow *row, int is_header)
{
	(void)row;
	if (!is_header)
		(*(int *)arg)++;
	return 0;
}

static void readonly_sql_refuses_writes(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	struct lr_run r;
	int rows = 0;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	make_run(&r, "0b1d3c4e-0000-4000-8000-000000000003");
	assert_int_equal(lr_store_run_begin(st, &r), 0);
	assert_int_equal(lr_store_sql_readonly(st, "SELECT * FROM run_overview", count_rows, &rows), 0);
	assert_int_equal(rows, 1);
	assert_int_equal(lr_store_sql_readonly(st, "DELETE FROM run", count_rows, &rows), LR_EREFUSED);
	/* a write after a read is refused as a write (it was "more than one statement", a usage error) */
	assert_int_equal(lr_store_sql_readonly(st, "SELECT 1; DELETE FROM run", count_rows, &rows), LR_EREFUSED);
	assert_int_equal(lr_store_sql_readonly(st, "SELECT 1; SELECT 2", count_rows, &rows), LR_EINVAL);
	assert_int_equal(lr_store_sql_readonly(st, "ATTACH ':memory:' AS x", count_rows, &rows), LR_EREFUSED);
	assert_int_equal(lr_store_sql_readonly(st, "PRAGMA user_version = 7", count_rows, &rows), LR_EREFUSED);
	assert_int_equal(lr_store_integrity(st), 0);
	lr_run_release(&r);
	lr_store_free(st);
	assert_int_equal(raw_int(f->dir, "SELECT count(*) FROM run"), 1);
	assert_int_equal(raw_int(f->dir, "PRAGMA user_version"), lr_migration_count);
}

/* A bind to a name the statement lacks was ignored and the row written with NULL; now the step fails. */
static void a_failed_bind_fails_the_step(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	sqlite3_stmt *s = NULL;
	int rc = 0;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(db_prepare(st, &s, "SELECT :a IS NULL"), 0);
	db_bind_int(s, ":b", 1);
	assert_int_equal(db_step_row(st, s, "read a value", &rc), 0);
	assert_int_equal(rc, LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "cannot read a value"));
	assert_non_null(strstr(lr_error_msg(), "parameter :b: the statement has no such parameter"));
	/* reported once: the statement is usable again afterwards */
	sqlite3_reset(s);
	rc = 0;
	db_bind_int(s, ":a", 1);
	assert_int_equal(db_step_row(st, s, "read a value", &rc), 1);
	assert_int_equal(rc, 0);
	assert_int_equal(sqlite3_column_int(s, 0), 0);
	sqlite3_reset(s);
	/* and db_step_done() reports it the same way */
	db_bind_text(s, ":nope", "x");
	assert_int_equal(db_step_done(st, s, "write a value"), LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "parameter :nope"));
	sqlite3_finalize(s);
	lr_store_free(st);
}

/*
 * A failed bind belongs to its statement: it was kept for the thread and
 * reported by whichever statement stepped next, so a statement given up
 * before its step (an early error) failed an unrelated, correct one.
 */
static void a_failed_bind_stays_with_its_statement(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	sqlite3_stmt *a = NULL, *b = NULL;
	int rc = 0;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(db_prepare(st, &a, "SELECT :a"), 0);
	assert_int_equal(db_prepare(st, &b, "SELECT :b"), 0);
	db_bind_int(a, ":nope", 1);
	/* another statement, bound correctly, steps cleanly while a's failure waits */
	db_bind_int(b, ":b", 2);
	assert_int_equal(db_step_row(st, b, "read b", &rc), 1);
	assert_int_equal(rc, 0);
	assert_int_equal(sqlite3_column_int(b, 0), 2);
	sqlite3_reset(b);
	/* a still reports its own */
	assert_int_equal(db_step_row(st, a, "read a", &rc), 0);
	assert_int_equal(rc, LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "parameter :nope"));
	/* a statement given up before its step takes its failure with it */
	sqlite3_reset(a);
	db_bind_int(a, ":nope", 1);
	sqlite3_finalize(a);
	a = NULL;
	assert_int_equal(db_prepare(st, &a, "SELECT 3"), 0); /* may reuse the freed statement's memory */
	rc = 0;
	assert_int_equal(db_step_row(st, a, "read three", &rc), 1);
	assert_int_equal(rc, 0);
	sqlite3_reset(b);
	assert_int_equal(db_step_row(st, b, "read b again", &rc), 1);
	assert_int_equal(rc, 0);
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	lr_store_free(st);
}

static void find_walks_up_and_honours_override(void **state)
{
	struct fx *f = *state;
	char sub[4200], want[4200], *out = NULL;
	int exists = 0;

	snprintf(sub, sizeof sub, "%s/a/b", f->tmp);
	snprintf(want, sizeof want, "%s/a", f->tmp);
	assert_int_equal(mkdir(want, 0777), 0);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(lr_store_find(&out, &exists, NULL, sub, 0), LR_ENOTFOUND);
	/* For writing outside git: a new store in the working directory. */
	assert_int_equal(lr_store_find(&out, &exists, NULL, sub, 1), 0);
	assert_false(exists);
	snprintf(want, sizeof want, "%s/a/b/.labrun", f->tmp);
	assert_string_equal(out, want);
	free(out);
	snprintf(want, sizeof want, "%s/a/.labrun", f->tmp);
	assert_int_equal(mkdir(want, 0777), 0);
	assert_int_equal(lr_store_find(&out, &exists, NULL, sub, 0), 0);
	assert_true(exists);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(lr_store_find(&out, &exists, "/elsewhere/store", sub, 1), 0);
	assert_string_equal(out, "/elsewhere/store");
	free(out);
}

/* A one-row query gives the row's integer, 0 without a row, and names a bad query. */
static void one_row_queries(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	int64_t v = -1;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(db_one_int(st, "SELECT :n * 2", ":n", 21, &v, "double"), 0);
	assert_int_equal(v, 42);
	assert_int_equal(db_one_int_text(st, "SELECT length(:t)", ":t", "four", &v, "measure"), 0);
	assert_int_equal(v, 4);
	v = -1;
	assert_int_equal(db_one_int_text(st, "SELECT id FROM run WHERE uuid = :u", ":u", "none", &v, "find"), 0);
	assert_int_equal(v, 0);
	assert_int_equal(db_one_int(st, "SELECT :m", ":n", 1, &v, "bind"), LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "bind"));
	lr_store_free(st);
}

/* Columns of every kind, written and read by one table. */
struct item {
	int small;
	int64_t big;
	uint64_t bits;
	double real;
	char name[4];
	char *dup;
	const char *ptr;
	double nreal; /* NAN stored as NULL, NULL read as NAN */
};
static const struct db_col item_cols[] = {
	DB_PARAM(":small", struct item, small, DB_INT), DB_PARAM(":big", struct item, big, DB_INT),
	DB_PARAM(":bits", struct item, bits, DB_INT),   DB_PARAM(":real", struct item, real, DB_REAL),
	DB_PARAM(":name", struct item, name, DB_TEXT),  DB_PARAM(":dup", struct item, dup, DB_DUP),
	DB_PARAM(":ptr", struct item, ptr, DB_PTR),     DB_PARAM(":nreal", struct item, nreal, DB_NREAL),
};

/* Item 1 has no row. */
static int bind_but_second(const void *arg, sqlite3_stmt *s, size_t i)
{
	return i == 1 ? 1 : db_bind_items(arg, s, i);
}

static int check_item(void *arg, sqlite3_stmt *s)
{
	int seq = sqlite3_column_int(s, 8);
	const struct item *want = (const struct item *)arg + seq;
	struct item got;

	memset(&got, 0, sizeof got);
	db_row_read(s, DB_COLS(item_cols), &got);
	assert_int_equal(got.small, want->small);
	assert_true(got.big == want->big && got.bits == want->bits && got.real == want->real);
	assert_true(isnan(want->nreal) ? isnan(got.nreal) : got.nreal == want->nreal);
	assert_string_equal(got.name, seq ? "def" : "abc"); /* name || 'def', cut to the field */
	if (want->ptr) {
		assert_string_equal(got.dup, want->dup);
		assert_string_equal(got.ptr, want->ptr);
	} else {
		assert_null(got.dup);
		assert_null(got.ptr);
	}
	free(got.dup);
	return 0;
}

/* db_insert_each writes a row per item but the skipped; a column table writes and reads each kind of field. */
static void column_tables_write_and_read_rows(void **state)
{
	struct fx *f = *state;
	struct lr_store *st = NULL;
	struct item in[3] = { { -7, INT64_C(1) << 40, UINT64_MAX, 2.5, "abc", "copied", "borrowed", NAN },
			      { 1, 2, 3, 4.0, "no", "row", "here", 1.0 },
			      { 0, 0, 0, 0.0, "", NULL, NULL, -0.5 } };
	struct db_items items = { ":run", 5, ":seq", in, sizeof *in, DB_COLS(item_cols) };
	struct item none = { 9, 9, 9, 9.0, "kep", NULL, NULL, 9.0 };
	int64_t n = -1;

	assert_int_equal(lr_store_open(&st, f->dir, LR_STORE_CREATE), 0);
	assert_int_equal(
		db_exec(st, "CREATE TEMP TABLE t(run, seq, small, big, bits, real, name, dup, ptr, nreal)", "create"),
		0);
	assert_int_equal(
		db_insert_each(
			st, "INSERT INTO t VALUES (:run, :seq, :small, :big, :bits, :real, :name, :dup, :ptr, :nreal)",
			3, bind_but_second, &items, "write"),
		0);
	assert_int_equal(db_one_int(st, "SELECT count(*) FROM t WHERE run = :r AND seq != 1", ":r", 5, &n, "count"), 0);
	assert_int_equal(n, 2);
	assert_int_equal(
		db_one_int(st, "SELECT count(*) FROM t WHERE run = :r AND nreal IS NULL", ":r", 5, &n, "count"), 0);
	assert_int_equal(n, 1); /* item 0's NAN */
	/* the row's seq says which item it is */
	assert_int_equal(
		db_each_int(st,
			    "SELECT small, big, bits, real, name || 'def', dup, ptr, nreal, seq FROM t WHERE run = :r"
			    " ORDER BY seq",
			    ":r", 5, "read", check_item, in),
		0);
	assert_int_equal(db_one_row(st, "SELECT 1 FROM t WHERE run = :r", ":r", 6, DB_COLS(item_cols), &none, "read"),
			 0);
	assert_int_equal(none.small, 9);
	assert_int_equal(db_insert_each(st, "INSERT INTO nowhere VALUES (:run)", 0, db_bind_items, &items, "write"), 0);
	lr_store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(open_creates_and_migrates, setup, teardown),
		cmocka_unit_test_setup_teardown(an_ingest_that_cannot_store_its_object_leaves_nothing_open, setup,
						teardown),
		cmocka_unit_test_setup_teardown(newer_schema_is_refused_and_left_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_database_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(run_round_trips_through_the_store, setup, teardown),
		cmocka_unit_test_setup_teardown(the_ledger_walk_sees_rows_changed_after_the_seal_check, setup,
						teardown),
		cmocka_unit_test_setup_teardown(abandon_changes_only_running_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(a_snapshot_reads_one_state_while_another_connection_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(readonly_sql_refuses_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(find_walks_up_and_honours_override, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_bind_fails_the_step, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_bind_stays_with_its_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(one_row_queries, setup, teardown),
		cmocka_unit_test_setup_teardown(column_tables_write_and_read_rows, setup, teardown),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
