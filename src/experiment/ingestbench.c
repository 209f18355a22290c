/* 'labrun bench ingest': ingest beside Python's json.loads over the same file (ingestbench.h). */
#include "config.h"
#include "base/system.h"

#include "base/child.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/stats.h"
#include "base/walk.h"
#include "experiment/ingestbench.h"
#include "experiment/spawn.h"
#include "record/record.h"

static const char *const kinds[3] = { "ingest", "python", "compare" };

/* The peer: the one line a user would write to read the responses. */
static const char peer[] = "import json, sys\nfor line in open(sys.argv[1]): json.loads(line)\n";

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The responses: token ids of a 151,936-token vocabulary (Qwen3's), text of
 * about four characters a token, the other members a harness writes; the
 * same bytes for the same settings.
 */
static int write_responses(const struct lr_ingestbench_opts *o, const char *path, int64_t *bytes)
{
	static const char *const words[] = { "the", "cache", "moves", "between", "devices", "and", "decode", "runs",
					     "on", "an", "npu", "with", "prefill", "elsewhere", "tokens", "agree" };
	FILE *f = fopen(path, "w");
	uint64_t s = 205;
	int64_t i, k;

	if (!f)
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	for (i = 0; i < o->responses; i++) {
		fprintf(f, "{\"case_id\": \"case-%07lld\", \"tokens\": [", (long long)i);
		for (k = 0; k < o->tokens; k++)
			fprintf(f, k ? ", %llu" : "%llu", (unsigned long long)(splitmix(&s) % 151936));
		fputs("], \"text\": \"", f);
		for (k = 0; k < o->tokens; k++)
			fprintf(f, k ? " %s" : "%s", words[splitmix(&s) % 16]);
		fprintf(f, "\", \"finish_reason\": \"length\", \"latency_ms\": %.3f, \"ttft_ms\": %.3f, \"output_tokens\": %lld}\n",
			(double)(splitmix(&s) % 100000) / 100, (double)(splitmix(&s) % 10000) / 100, (long long)o->tokens);
	}
	if (ferror(f) | fclose(f))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	*bytes = 0;
	{
		struct stat sb;

		if (stat(path, &sb) == 0)
			*bytes = (int64_t)sb.st_size;
	}
	return 0;
}

/* The peer over the file: its wall time; LR_EIO unless it exits 0. */
static int python_pass(const struct lr_ingestbench_opts *o, const char *dir, const char *file, double *s)
{
	char *argv[] = { (char *)o->python, "-c", (char *)peer, (char *)file, NULL };
	struct lr_child c;
	int rc;

	if (!(rc = lr_bench_run_ok("the python peer", argv, o->envp, dir, NULL, &c)))
		*s = c.wall_s;
	return rc;
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
static int labrun_pass(const struct lr_ingestbench_opts *o, const char *dir, const char *store, const char *file,
		       int rep, struct lr_ingestbench_result *r)
{
	char *rec[] = { (char *)o->self, "--store", (char *)store, "record", "-q", "--", "true", NULL };
	char *ia[] = { (char *)o->self, "--store", (char *)store, "ingest", "responses", "--run", "last", "--route", "a",
		       (char *)file, NULL };
	char *ib[] = { (char *)o->self, "--store", (char *)store, "ingest", "responses", "--run", "last", "--route", "b",
		       (char *)file, NULL };
	char *cmp[] = { (char *)o->self, "--store", (char *)store, "compare", "--run", "last", "--reference", "a",
			"--candidate", "b", NULL };
	double untimed;
	int rc;

	if ((rc = lr_bench_spawn(o->self, rec, o->envp, dir, NULL, &untimed, NULL)) ||
	    (rc = lr_bench_spawn(o->self, ia, o->envp, dir, NULL, &r->ingest_s[rep], NULL)) ||
	    (rc = lr_bench_spawn(o->self, ib, o->envp, dir, NULL, &untimed, NULL)))
		return rc;
	return lr_bench_spawn(o->self, cmp, o->envp, dir, NULL, &r->compare_s[rep], NULL);
}

int lr_ingestbench(const struct lr_ingestbench_opts *o, struct lr_ingestbench_result *r)
{
	struct lr_progress *progress;
	char *dir = NULL, name[64], file[4096], store[4096];
	int rc, rep;

	memset(r, 0, sizeof *r);
	if (o->reps < 2 || o->reps > LR_INGESTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_INGESTBENCH_MAXREPS);
	r->reps = o->reps;
	snprintf(name, sizeof name, "labrun-bench-ingest-%ld", (long)getpid());
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	if ((rc = lr_path(file, sizeof file, "%s/responses.jsonl", dir)) || (rc = lr_path(store, sizeof store, "%s/store", dir)) ||
	    (rc = write_responses(o, file, &r->bytes)))
		goto out;
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++) { /* who goes first swaps every repetition */
		lr_progress_update(progress, rep);
		if (rep % 2 && (rc = labrun_pass(o, dir, store, file, rep, r)))
			break;
		if ((rc = python_pass(o, dir, file, &r->python_s[rep])))
			break;
		if (!(rep % 2))
			rc = labrun_pass(o, dir, store, file, rep, r);
	}
	lr_progress_update(progress, rep);
	lr_progress_stop(&progress);
	if (!rc)
		lr_ingestbench_summarise(r);
out:
	lr_remove_tree(dir);
	free(dir);
	return rc;
}

void lr_ingestbench_summarise(struct lr_ingestbench_result *r)
{
	double x[LR_INGESTBENCH_MAXREPS];
	int m = r->reps - 1;

	for (int k = 0; k < m; k++) /* the first is warm-up */
		x[k] = r->python_s[k + 1] > 0 ? r->ingest_s[k + 1] / r->python_s[k + 1] : 0;
	r->ingest_ms = lr_median(r->ingest_s + 1, (size_t)m) * 1e3;
	r->python_ms = lr_median(r->python_s + 1, (size_t)m) * 1e3;
	r->compare_ms = lr_median(r->compare_s + 1, (size_t)m) * 1e3;
	r->x_python = lr_median(x, (size_t)m);
}

/* ---- as a run ------------------------------------------------------------------- */

int lr_ingestbench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_ingestbench_opts *o)
{
	int rc;

	if ((rc = lr_bench_job_capture(j, st, o->argv, o->envp, "ingest")) ||
	    (rc = lr_bench_job_bind(j, "responses", o->responses)) || (rc = lr_bench_job_bind(j, "tokens", o->tokens)) ||
	    (rc = lr_bench_job_bind(j, "reps", o->reps)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "python", o->python, "user")))
		return rc;
	return lr_bench_job_start(j, st);
}

int lr_ingestbench_job_add(struct lr_bench_job *j, const struct lr_ingestbench_result *r)
{
	int rc;

	if ((rc = lr_run_add_sample(&j->run, "ingest", "file", 0, (double)r->bytes, "B")))
		return rc;
	for (int k = 0; k < 3; k++)
		for (int rep = 0; rep < r->reps; rep++) {
			const double *s = k == 0 ? r->ingest_s : k == 1 ? r->python_s : r->compare_s;

			if ((rc = lr_run_add_sample(&j->run, "ingest", kinds[k], rep, s[rep], "s")))
				return rc;
		}
	return 0;
}

int lr_ingestbench_job_results(const struct lr_run *run, struct lr_ingestbench_result *r)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, "reps");
	const struct lr_sample *size;
	struct lr_bench_samples sm;
	int found = 0, rc;

	memset(r, 0, sizeof *r);
	r->reps = e ? atoi(e->value) : 0;
	if (r->reps < 2 || r->reps > LR_INGESTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "run %lld is not an ingest benchmark", (long long)run->id);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	if ((size = lr_bench_sample_find(&sm, "ingest", "file", "B", 0)))
		r->bytes = (int64_t)size->value;
	for (int k = 0; k < 3; k++)
		for (int rep = 0; rep < r->reps; rep++) {
			double *s = k == 0 ? r->ingest_s : k == 1 ? r->python_s : r->compare_s;
			const struct lr_sample *m = lr_bench_sample_find(&sm, "ingest", kinds[k], "s", rep);

			if (m) {
				s[rep] = m->value;
				found++;
			}
		}
	lr_bench_samples_release(&sm);
	if (found != 3 * r->reps)
		return lr_error_set(LR_EINVAL, "ingest benchmark run %lld holds %d of its %d samples", (long long)run->id,
				    found, 3 * r->reps);
	lr_ingestbench_summarise(r);
	return 0;
}
