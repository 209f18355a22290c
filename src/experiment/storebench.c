/*
 * 'labrun bench store': throwaway stores of N runs (recorded runs of
 * 'true', as 'labrun record' stores them, and synthetic experiment runs
 * holding the repetitions), then labrun itself, as a user runs it, timed on
 * each: start-up alone, record, list, show, report, audit, and push and
 * pull when a remote is named.
 */
#include "config.h"
#include "base/system.h"

#include <uuid/uuid.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/sha256.h"
#include "base/walk.h"
#include "experiment/spawn.h"
#include "experiment/storebench.h"
#include "experiment/synthetic.h"
#include "record/record.h"
#include "record/session.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/runs.h"

enum { OP_VERSION, OP_RECORD, OP_LIST, OP_SHOW, OP_REPORT, OP_AUDIT, OP_PUSH, OP_PULL, OPS };
const char *const lr_storebench_ops_names[] = { "version", "record", "list", "show", "report",
						"audit",   "push",   "pull", NULL };

/* At most this many repetitions an experiment run: many repetitions are many runs, as a lab's are. */
#define REPS_PER_RUN 100000

/* What one scale's store holds, and what the timed commands name. */
struct scale_store {
	char *dir;
	char show[32]; /* the run 'show' and 'report --run' read: the first, an experiment */
	char uuid[37]; /* the first recorded run, which 'pull --run' asks for */
	int64_t n;     /* runs asked for: the subject */
	int64_t runs;  /* runs in the store before timing */
	int64_t repetitions;
};

/* The remote's name with '--run UUID' for pull: a run the remote holds and the store has, so nothing moves. */
static int timed(const struct lr_storebench_opts *o, const struct scale_store *ss, int op, double *s)
{
	char *const version[] = { (char *)o->self, "--version", NULL };
	char *const record[] = { (char *)o->self, "--store", ss->dir, "record", "-q", "--", "true", NULL };
	char *const list[] = { (char *)o->self, "--store", ss->dir, "list", "-n", "20", NULL };
	char *const show[] = { (char *)o->self, "--store", ss->dir, "show", (char *)ss->show, NULL };
	char *const report[] = { (char *)o->self, "--store", ss->dir, "report", "--run", (char *)ss->show, NULL };
	char *const audit[] = { (char *)o->self, "--store", ss->dir, "audit", NULL };
	char *const push[] = { (char *)o->self, "--store", ss->dir, "push", (char *)o->remote, NULL };
	char *const pull[] = { (char *)o->self,   "--store", ss->dir,          "pull",
			       (char *)o->remote, "--run",   (char *)ss->uuid, NULL };
	char *const *argv[OPS] = { version, record, list, show, report, audit, push, pull };

	return lr_bench_spawn(o->self, argv[op], o->envp, ss->dir, NULL, s, NULL);
}

/* The empty object a run of 'true' logs as its stdout and stderr. */
static int empty_object(struct lr_store *st, char *hex)
{
	struct lr_objw *w = NULL;
	int64_t size;
	int rc;

	if ((rc = lr_objw_open(&w, lr_store_dir(st), NULL)))
		return rc;
	return lr_objw_commit(w, hex, &size);
}

/*
 * 'n' runs of 'true' as 'labrun record -- true' stores one: captured once
 * (host, environment, sources, recorder), then for each run a new uuid and
 * the session record goes through (the 'running' row, then the final state
 * with its seal and ledger entry). Not timed, not executed: exit 0 and a
 * millisecond are written as they would be.
 */
static int fill_records(struct lr_store *st, int64_t n, char *const *envp, struct lr_progress *progress, int64_t *done,
			char *first_uuid)
{
	char *const argv[] = { "true", NULL };
	char hex[LR_SHA256_HEX];
	struct lr_session ss = { 0 };
	struct lr_run run;
	uuid_t u;
	int rc;

	lr_run_init(&run);
	if ((rc = lr_run_capture(st, &run, LR_KIND_RECORD, argv, envp, NULL, NULL, NULL)) ||
	    (rc = empty_object(st, hex)) || (rc = lr_run_add_artifact(&run, "stdout", "stdout", hex, 0)) ||
	    (rc = lr_run_add_artifact(&run, "stderr", "stderr", hex, 0)))
		goto out;
	for (int64_t i = 0; i < n && !rc; i++) {
		uuid_generate_random(u);
		uuid_unparse_lower(u, run.uuid);
		if (!i)
			memcpy(first_uuid, run.uuid, sizeof run.uuid);
		run.id = 0;
		free(run.started_at);
		free(run.ended_at);
		run.started_at = run.ended_at = NULL;
		if (!(rc = lr_session_start(&ss, st, &run))) {
			run.status = LR_PASSED;
			run.exit_code = 0;
			run.wall_s = run.user_s = 1e-3;
			rc = lr_session_end(&ss, run.nartifacts);
		}
		lr_session_release(&ss);
		if (!rc && ++*done % 1024 == 0 && !(rc = lr_store_scratch_commit(st)) &&
		    !(rc = lr_store_scratch_begin(st)))
			lr_progress_update(progress, *done);
	}
out:
	lr_run_release(&run);
	return rc;
}

/* The store in ss->dir: experiment runs holding o->repetitions, then recorded runs up to n in all. */
static int fill(const struct lr_storebench_opts *o, struct scale_store *ss, int64_t n, struct lr_bench *b,
		const char *subject)
{
	struct lr_progress *progress = NULL;
	struct lr_store *st = NULL;
	int64_t done = 0, left = o->repetitions, id;
	double t0 = lr_monotonic_s();
	int rc;

	if ((rc = lr_store_open(&st, ss->dir, LR_STORE_CREATE)) || (rc = lr_store_scratch_begin(st)))
		goto out;
	if (o->remote && (rc = lr_store_remote_add(st, o->remote, o->uri, NULL)))
		goto out;
	progress = lr_progress_start("stored", "runs", n);
	while (!rc && (left > 0 || done == 0)) { /* one experiment run at least: what show and report read */
		int64_t k = left < REPS_PER_RUN ? left : REPS_PER_RUN;

		if (k < 8)
			k = 8;
		if (!(rc = lr_synthetic_run(st, k, 0, o->seed + (uint64_t)done, o->argv, o->envp, &id))) {
			ss->repetitions += k / 8 * 8;
			left -= k;
			if (!done++)
				snprintf(ss->show, sizeof ss->show, "%lld", (long long)id);
		}
	}
	if (!rc && done < n)
		rc = fill_records(st, n - done, o->envp, progress, &done, ss->uuid);
	lr_progress_stop(&progress);
	ss->runs = done;
	if (!rc)
		rc = lr_store_scratch_commit(st);
out:
	lr_store_free(st);
	if (!rc && !(rc = lr_bench_add(b, subject, "generate", 0, lr_monotonic_s() - t0, "s")) &&
	    !(rc = lr_bench_add(b, subject, "runs", 0, (double)ss->runs, "runs")))
		rc = lr_bench_add(b, subject, "repetitions", 0, (double)ss->repetitions, "repetitions");
	return rc;
}

/* With a remote: every run pushed once, untimed ('prime'), so that a timed push moves only what is new. */
static int prime(const struct lr_storebench_opts *o, const struct scale_store *ss, struct lr_bench *b,
		 const char *subject)
{
	double s;
	int rc;

	if (!o->remote)
		return 0;
	if ((rc = timed(o, ss, OP_PUSH, &s)))
		return rc;
	return lr_bench_add(b, subject, "prime", 0, s, "s");
}

/* One scale's store, built: filled, and with a remote every run pushed once. */
static int build(const struct lr_storebench_opts *o, int64_t n, struct scale_store *ss, struct lr_bench *b)
{
	char name[80], subject[32];
	int rc;

	ss->n = n;
	snprintf(name, sizeof name, "labrun-bench-store-%ld-%lld", (long)getpid(), (long long)n);
	snprintf(subject, sizeof subject, "%lld", (long long)n);
	if ((rc = lr_bench_scratch(&ss->dir, o->dir, name)))
		return rc;
	if (!(rc = fill(o, ss, n, b, subject)))
		rc = prime(o, ss, b, subject);
	return rc;
}

/*
 * Every command on every store, o->reps times: each repetition visits every
 * store, the stores and the commands forward, then reversed, so that what
 * the machine does meanwhile weighs on each store alike and the ratio
 * between stores is measured in one run, not minutes apart.
 */
static int time_all(const struct lr_storebench_opts *o, const struct scale_store *ss, struct lr_bench *b)
{
	struct lr_progress *progress;
	char subject[32];
	int rc = 0, rep, i, k, nops = 0, ops[OPS];
	double s;

	for (i = 0; i < OPS; i++) /* push and pull only with a remote; none of o->skip */
		if ((o->remote || i < OP_PUSH) && !(o->skip & 1u << i))
			ops[nops++] = i;
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++, lr_progress_update(progress, rep))
		for (k = 0; !rc && k < o->nscales; k++) {
			const struct scale_store *at = &ss[rep % 2 ? o->nscales - 1 - k : k];

			snprintf(subject, sizeof subject, "%lld", (long long)at->n);
			for (i = 0; !rc && i < nops; i++) {
				int op = ops[rep % 2 ? nops - 1 - i : i]; /* forward, then reversed */

				if (!(rc = timed(o, at, op, &s)))
					rc = lr_bench_add(b, subject, lr_storebench_ops_names[op], rep, s, "s");
			}
		}
	lr_progress_stop(&progress);
	return rc;
}

/* The remote the benchmark pushes to, as the invoking store names it. */
static int prepare(void *opts, struct lr_store *st)
{
	struct lr_storebench_opts *o = opts;

	return o->name ? lr_store_remote_get(st, o->name, &o->remote, &o->uri, NULL) : 0;
}

static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_storebench_opts *o = opts;
	int rc;

	if ((rc = lr_bench_bind(run, "reps", o->reps)) || (rc = lr_bench_bind(run, "repetitions", o->repetitions)) ||
	    (o->remote && (rc = lr_kvlist_set(&run->binding, "remote", o->remote, "user"))))
		return rc;
	return lr_kvlist_set(&run->binding, "store_dir", o->dir, "user");
}

/* Every store built first, then timed together; all removed at the end. */
static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_storebench_opts *o = opts;
	struct scale_store *ss = calloc((size_t)o->nscales, sizeof *ss);
	int rc = ss ? 0 : lr_error_set(LR_ENOMEM, "out of memory");

	for (int i = 0; !rc && i < o->nscales; i++)
		rc = build(o, o->scale[i], &ss[i], &j->bench);
	if (!rc && !(rc = time_all(o, ss, &j->bench)))
		rc = lr_bench_job_step(j); /* its meter shows the repetitions */
	for (int i = 0; ss && i < o->nscales; i++)
		if (ss[i].dir) {
			lr_remove_tree(ss[i].dir);
			free(ss[i].dir);
		}
	free(ss);
	return rc;
}

const struct lr_bench_ops lr_storebench_ops = { LR_BENCHMARK_STORE, prepare, bind, measure };
