/* 'labrun bench ingest': ingest beside Python's json.loads over the same file (ingestbench.h). */
#include "config.h"
#include "base/system.h"

#include "base/child.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/walk.h"
#include "experiment/ingestbench.h"
#include "experiment/spawn.h"

/* The peer: the one line a user would write to read the responses. */
static const char peer[] = "import json, sys\nfor line in open(sys.argv[1]): json.loads(line)\n";

/*
 * The second peer: the script a user would write to store them, into a copy
 * of the store in the state ingest found it: json.loads per line, the
 * response rows ingest writes (same columns, tokens as compact JSON) with
 * executemany under its response_set row, one transaction, the connection
 * set as labrun sets its own (store/core.c: synchronous=FULL, foreign keys
 * on; the file is in WAL mode already). argv: the database, the file.
 */
static const char script[] =
	"import json, sqlite3, sys\n"
	"db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
	"db.execute('PRAGMA foreign_keys=ON'); db.execute('PRAGMA synchronous=FULL')\n"
	"assert db.execute('PRAGMA journal_mode').fetchone()[0] == 'wal'\n"
	"db.execute('BEGIN IMMEDIATE')\n"
	"run = db.execute('SELECT max(id) FROM run').fetchone()[0]\n"
	"sid = db.execute(\"INSERT INTO response_set(run_id, route, source, raw_sha256, cases, ingested_at)"
	" VALUES (?, 'a', ?, '', 0, datetime('now'))\", (run, sys.argv[2])).lastrowid\n"
	"n = 0\n"
	"def rows():\n"
	"    global n\n"
	"    for n, line in enumerate(open(sys.argv[2], encoding='utf-8'), 1):\n"
	"        d = json.loads(line); t = d['tokens']\n"
	"        yield (sid, d['case_id'], n, json.dumps(t, separators=(',', ':')), len(t), d['text'],"
	" d['finish_reason'], d.get('latency_ms'), d.get('ttft_ms'), d.get('input_tokens'),"
	" d.get('output_tokens'), d.get('lane'), d.get('model'))\n"
	"db.executemany('INSERT INTO response(set_id, case_id, line, tokens, ntokens, text, finish_reason,"
	" latency_ms, ttft_ms, input_tokens, output_tokens, lane, model)"
	" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', rows())\n"
	"db.execute('UPDATE response_set SET cases = ? WHERE id = ?', (n, sid))\n"
	"db.execute('COMMIT')\n"
	"db.close()\n";

/* The store's database copied beside it, as it is between two commands (its WAL, if any, with it). */
static const char copy_store[] = "rm -f \"$2\" \"$2-wal\" && cp \"$1/labrun.db\" \"$2\" &&"
				 " if [ -e \"$1/labrun.db-wal\" ]; then cp \"$1/labrun.db-wal\" \"$2-wal\"; fi";

/*
 * The responses: token ids of a 151,936-token vocabulary (Qwen3's), text of
 * about four characters a token, the other members a harness writes; the
 * same bytes for the same settings.
 */
static int write_responses(const struct lr_ingestbench_opts *o, const char *path, struct lr_bench *b)
{
	static const char *const words[] = { "the",     "cache",     "moves",  "between", "devices", "and",
					     "decode",  "runs",      "on",     "an",      "npu",     "with",
					     "prefill", "elsewhere", "tokens", "agree" };
	FILE *f = fopen(path, "w");
	uint64_t s = 205;
	struct stat sb;
	int64_t i, k;

	if (!f)
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	for (i = 0; i < o->responses; i++) {
		fprintf(f, "{\"case_id\": \"case-%07lld\", \"tokens\": [", (long long)i);
		for (k = 0; k < o->tokens; k++)
			fprintf(f, k ? ", %llu" : "%llu", (unsigned long long)(lr_bench_splitmix(&s) % 151936));
		fputs("], \"text\": \"", f);
		for (k = 0; k < o->tokens; k++)
			fprintf(f, k ? " %s" : "%s", words[lr_bench_splitmix(&s) % 16]);
		fprintf(f,
			"\", \"finish_reason\": \"length\", \"latency_ms\": %.3f, \"ttft_ms\": %.3f, \"output_tokens\": %lld}\n",
			(double)(lr_bench_splitmix(&s) % 100000) / 100, (double)(lr_bench_splitmix(&s) % 10000) / 100,
			(long long)o->tokens);
	}
	if (ferror(f) | fclose(f) || stat(path, &sb))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return lr_bench_add(b, "ingest", "file", 0, (double)sb.st_size, "B");
}

/* argv (a helper the benchmark runs: the peers, cp, dd), its wall time the sample 'variant'; LR_EIO unless it exits 0. */
static int timed(const char *what, char **argv, const struct lr_ingestbench_opts *o, const char *dir,
		 const char *variant, int rep, struct lr_bench *b)
{
	struct lr_child c;
	int rc;

	if ((rc = lr_bench_run_ok(what, argv, o->envp, dir, NULL, &c)))
		return rc;
	return variant ? lr_bench_add(b, "ingest", variant, rep, c.wall_s, "s") : 0;
}

int lr_ingestbench_peer(const struct lr_ingestbench_opts *o)
{
	char *argv[] = { (char *)o->python, "-c", "import json", NULL };
	struct lr_child c;
	char what[4200];
	int rc;

	snprintf(what, sizeof what, "'%s', the peer,", o->python);
	if ((rc = lr_bench_run_ok(what, argv, o->envp, ".", NULL, &c)) == LR_EIO) {
		char msg[4400];

		snprintf(msg, sizeof msg, "%s", lr_error_msg());
		lr_error_set(LR_EINVAL, "%s", msg); /* the user's setting: a usage error */
		lr_error_hint("give --python a Python 3 interpreter");
	}
	return rc == LR_EIO ? LR_EINVAL : rc;
}

/* Where one repetition works: the store, its copy for the script, the file, the floor's file. */
struct scratch {
	const char *dir, *store, *file;
	char copy[4096], floor[4096];
	double written; /* the bytes the last timed ingest wrote (0: none yet) */
};

/* 'labrun ingest' of the file into the fresh run, timed, with the bytes it wrote (its rusage). */
static int ingest_pass(const struct lr_ingestbench_opts *o, struct scratch *x, int rep, struct lr_bench *b)
{
	char *ia[] = { (char *)o->self, "--store", (char *)x->store, "ingest", "responses", "--run", "last",
		       "--route",       "a",       (char *)x->file,  NULL };
	struct lr_child c;
	int rc;

	if ((rc = lr_bench_run_ok("'labrun ingest' on the benchmark's store", ia, o->envp, x->dir, NULL, &c)) ||
	    (rc = lr_bench_add(b, "ingest", "ingest", rep, c.wall_s, "s")))
		return rc;
	/* block output, in 512-byte units: the page-cache pages it dirtied (objects, WAL, checkpoint) */
	x->written = (double)c.ru.ru_oublock * 512;
	return lr_bench_add(b, "ingest", "written", rep, x->written, "B");
}

/* The I/O floor: the bytes the last ingest wrote, written and synced by dd into the same file system. */
static int floor_pass(const struct lr_ingestbench_opts *o, struct scratch *x, int rep, struct lr_bench *b)
{
	char of[4200], count[32];
	char *dd[] = { "dd", "if=/dev/zero", of, "bs=1M", count, "conv=fsync", "status=none", NULL };
	int rc;

	if (x->written <= 0)
		return 0;
	snprintf(of, sizeof of, "of=%s", x->floor);
	snprintf(count, sizeof count, "count=%lld", (long long)((x->written + (1 << 20) - 1) / (1 << 20)));
	rc = timed("dd, the I/O floor,", dd, o, x->dir, "floor", rep, b);
	if (unlink(x->floor) && !rc)
		rc = lr_error_set(LR_EIO, "cannot remove '%s': %s", x->floor, strerror(errno));
	return rc;
}

/*
 * Let the file system settle before a timed step: what the last one wrote
 * written back, what it removed freed (with ext4's discard option, freeing
 * a removed gigabyte is I/O of its own at the next journal commit), so
 * that no step pays for the one before it.
 */
static int settle(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0 || syncfs(fd))
		rc = lr_error_set(LR_EIO, "cannot sync the file system of '%s': %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * One repetition: a fresh run and a copy of the store as it then is; then,
 * in an order that reverses every repetition, ingest (timed), the script
 * into the copy, the parse alone and the floor; then the file ingested
 * again as route b, untimed, and 'labrun compare' of the two, timed.
 */
static int repetition(const struct lr_ingestbench_opts *o, struct scratch *x, int rep, struct lr_bench *b)
{
	char *rec[] = { (char *)o->self, "--store", (char *)x->store, "record", "-q", "--", "true", NULL };
	char *cp[] = { "/bin/sh", "-c", (char *)copy_store, "sh", (char *)x->store, x->copy, NULL };
	char *py[] = { (char *)o->python, "-c", (char *)peer, (char *)x->file, NULL };
	char *sc[] = { (char *)o->python, "-c", (char *)script, x->copy, (char *)x->file, NULL };
	char *ib[] = { (char *)o->self, "--store", (char *)x->store, "ingest", "responses", "--run", "last",
		       "--route",       "b",       (char *)x->file,  NULL };
	char *cmp[] = { (char *)o->self, "--store", (char *)x->store, "compare", "--run", "last",
			"--reference",   "a",       "--candidate",    "b",       NULL };
	double untimed, compare_s;
	int rc = 0, i;

	if ((rc = lr_bench_spawn(o->self, rec, o->envp, x->dir, NULL, &untimed, NULL)) ||
	    (rc = timed("copying the store", cp, o, x->dir, NULL, rep, b)))
		return rc;
	for (i = 0; !rc && i < 4 && !(rc = settle(x->dir)); i++)
		switch (rep % 2 ? 3 - i : i) {
		case 0: rc = ingest_pass(o, x, rep, b); break;
		case 1: rc = timed("the python script", sc, o, x->dir, "script", rep, b); break;
		case 2: rc = timed("the python peer", py, o, x->dir, "python", rep, b); break;
		default: rc = floor_pass(o, x, rep, b); break;
		}
	if (rc || (rc = lr_bench_spawn(o->self, ib, o->envp, x->dir, NULL, &untimed, NULL)) || (rc = settle(x->dir)) ||
	    (rc = lr_bench_spawn(o->self, cmp, o->envp, x->dir, NULL, &compare_s, NULL)))
		return rc;
	return lr_bench_add(b, "ingest", "compare", rep, compare_s, "s");
}

/* Who goes first swaps every repetition. */
static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_ingestbench_opts *o = opts;
	struct lr_progress *progress;
	char *dir = NULL, name[64], file[4096], store[4096];
	struct scratch x = { .file = file, .store = store };
	int rc, rep;

	if (o->reps < 2 || o->reps > LR_INGESTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_INGESTBENCH_MAXREPS);
	snprintf(name, sizeof name, "labrun-bench-ingest-%ld", (long)getpid());
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	x.dir = dir;
	if ((rc = lr_path(file, sizeof file, "%s/responses.jsonl", dir)) ||
	    (rc = lr_path(store, sizeof store, "%s/store", dir)) ||
	    (rc = lr_path(x.copy, sizeof x.copy, "%s/copy.db", dir)) ||
	    (rc = lr_path(x.floor, sizeof x.floor, "%s/floor", dir)) || (rc = write_responses(o, file, &j->bench)))
		goto out;
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++) {
		lr_progress_update(progress, rep);
		rc = repetition(o, &x, rep, &j->bench);
	}
	lr_progress_update(progress, rep);
	lr_progress_stop(&progress);
	if (!rc)
		rc = lr_bench_job_step(j);
out:
	lr_remove_tree(dir);
	free(dir);
	return rc;
}

static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_ingestbench_opts *o = opts;
	int rc;

	if ((rc = lr_bench_bind(run, "responses", o->responses)) || (rc = lr_bench_bind(run, "tokens", o->tokens)) ||
	    (rc = lr_bench_bind(run, "reps", o->reps)))
		return rc;
	return lr_kvlist_set(&run->binding, "python", o->python, "user");
}

const struct lr_bench_ops lr_ingestbench_ops = { LR_BENCHMARK_INGEST, NULL, bind, measure };
