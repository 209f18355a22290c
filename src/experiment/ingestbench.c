/* 'labrun bench ingest': ingest beside Python's json.loads over the same file (ingestbench.h). */
#include "config.h"
#include "base/system.h"

#include "base/child.h"
#include "base/error.h"
#include "base/walk.h"
#include "experiment/ingestbench.h"
#include "experiment/spawn.h"

/* The peer: the one line a user would write to read the responses. */
static const char peer[] = "import json, sys\nfor line in open(sys.argv[1]): json.loads(line)\n";

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

/* The peer over the file, its wall time a sample; LR_EIO unless it exits 0. */
static int python_pass(const struct lr_bench_pass *p, int rep, struct lr_bench *b)
{
	const struct lr_ingestbench_opts *o = p->opts;
	const char *dir = p->dir, *file = p->file;
	char *argv[] = { (char *)o->python, "-c", (char *)peer, (char *)file, NULL };
	struct lr_child c;
	int rc;

	if ((rc = lr_bench_run_ok("the python peer", argv, o->envp, dir, NULL, &c)))
		return rc;
	return lr_bench_add(b, "ingest", "python", rep, c.wall_s, "s");
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

/* A fresh run, the file ingested as route a (timed) and b, and the two compared (timed). */
static int labrun_pass(const struct lr_bench_pass *p, int rep, struct lr_bench *b)
{
	const struct lr_ingestbench_opts *o = p->opts;
	const char *dir = p->dir, *store = p->store, *file = p->file;
	char *rec[] = { (char *)o->self, "--store", (char *)store, "record", "-q", "--", "true", NULL };
	char *ia[] = { (char *)o->self, "--store", (char *)store, "ingest",     "responses", "--run",
		       "last",          "--route", "a",           (char *)file, NULL };
	char *ib[] = { (char *)o->self, "--store", (char *)store, "ingest",     "responses", "--run",
		       "last",          "--route", "b",           (char *)file, NULL };
	char *cmp[] = { (char *)o->self, "--store", (char *)store, "compare", "--run", "last",
			"--reference",   "a",       "--candidate", "b",       NULL };
	double untimed, ingest_s, compare_s;
	int rc;

	if ((rc = lr_bench_spawn(o->self, rec, o->envp, dir, NULL, &untimed, NULL)) ||
	    (rc = lr_bench_spawn(o->self, ia, o->envp, dir, NULL, &ingest_s, NULL)) ||
	    (rc = lr_bench_spawn(o->self, ib, o->envp, dir, NULL, &untimed, NULL)) ||
	    (rc = lr_bench_spawn(o->self, cmp, o->envp, dir, NULL, &compare_s, NULL)) ||
	    (rc = lr_bench_add(b, "ingest", "ingest", rep, ingest_s, "s")))
		return rc;
	return lr_bench_add(b, "ingest", "compare", rep, compare_s, "s");
}

/* The file written into the scratch directory, then the repetitions, who goes first swapping every time. */
static int measure_in(void *opts, const char *dir, struct lr_bench_job *j)
{
	const struct lr_ingestbench_opts *o = opts;
	char file[4096], store[4096];
	int rc;

	if ((rc = lr_path(file, sizeof file, "%s/responses.jsonl", dir)) ||
	    (rc = lr_path(store, sizeof store, "%s/store", dir)) || (rc = write_responses(o, file, &j->bench)))
		return rc;
	return lr_bench_alternate(j, o->reps, labrun_pass, python_pass,
				  &(struct lr_bench_pass){ .opts = o, .dir = dir, .store = store, .file = file });
}

static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_ingestbench_opts *o = opts;

	if (o->reps < 2 || o->reps > LR_INGESTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_INGESTBENCH_MAXREPS);
	return lr_bench_in_scratch(j, o->dir, "ingest", measure_in, opts);
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
