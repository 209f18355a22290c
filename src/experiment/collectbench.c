/* 'labrun bench collect': labrun's streaming client beside a Python asyncio one, against a server that costs nothing. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/child.h"
#include "base/progress.h"
#include "base/stats.h"
#include "base/walk.h"
#include "experiment/collectbench.h"
#include "experiment/spawn.h"
#include "serving/nullserver.h"
#include "store/collect.h"

extern const char lr_aiohttp_client_py[]; /* serving/aiohttp-client.py, embedded at build time */

const char *const lr_collectbench_clients[LR_COLLECTBENCH_CLIENTS] = { "labrun", "python" };

/* What a pass reads and writes: the cases, the peer's script, labrun's store, the peer's responses. */
struct scratch {
	char *dir, cases[4096], script[4096], store[4096], out[4096];
};

static double cpu_s(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
	       ru->ru_stime.tv_usec / 1e6;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f)) {
		if (f)
			fclose(f);
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* The cases: prompts of a few words, each asking for o->tokens tokens. */
static int write_cases(const struct lr_collectbench_opts *o, const char *path)
{
	FILE *f = fopen(path, "w");
	int64_t i;

	if (!f)
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	for (i = 0; i < o->requests; i++)
		fprintf(f, "{\"case_id\":\"c%06lld\",\"prompt\":\"the null server ignores prompt %lld\",\"max_tokens\":%lld}\n",
			(long long)i, (long long)i, (long long)o->tokens);
	if (ferror(f) | fclose(f))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* Run argv to its end, its stdout kept; LR_EIO naming the client unless it exits 0. */
static int run_client(const char *what, char *const *argv, char *const *envp, const char *dir, char **out,
		      struct lr_child *c)
{
	char name[64];

	snprintf(name, sizeof name, "the %s client", what);
	return lr_bench_run_ok(name, argv, envp, dir, out, c);
}

struct stored {
	int64_t set, completed, tokens;
	double pass_s;
};

static int on_pass(void *arg, const struct lr_collect_pass_row *p)
{
	struct stored *s = arg;

	s->set = p->set;
	s->pass_s = p->duration_s;
	return 0;
}

static int on_request(void *arg, const struct lr_collect_row *r)
{
	struct stored *s = arg;

	if (!r->failed) {
		s->completed++;
		s->tokens += r->output_tokens;
	}
	return 0;
}

/* What labrun stored of run 'run': its pass's time, and every request's tokens, read back from the store. */
static int read_stored(const char *store, int64_t run, struct stored *s)
{
	struct lr_store *st = NULL;
	int rc;

	memset(s, 0, sizeof *s);
	if (!(rc = lr_store_open(&st, store, 0)) && !(rc = lr_store_collect_passes(st, run, on_pass, s)))
		rc = lr_store_collect_rows(st, s->set, on_request, s);
	lr_store_free(st);
	return rc;
}

/* 'labrun --store S collect ...' as a user types it; what it stored, checked whole. */
static int labrun_pass(const struct lr_collectbench_opts *o, const struct scratch *s, const char *endpoint,
		       const char *conc, struct lr_collectbench_pass *p)
{
	char tokens[24], *out = NULL;
	char *argv[] = { (char *)o->self, "--store", (char *)s->store, "collect", "--endpoint", (char *)endpoint,
			 "--route", "null", "--cases", (char *)s->cases, "--concurrency", (char *)conc,
			 "--max-tokens", tokens, "--ignore-eos", NULL };
	struct stored got;
	struct lr_child c;
	const char *at;
	long long run = 0;
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	if ((rc = run_client("labrun", argv, o->envp, s->dir, &out, &c)))
		return rc;
	p->cpu_s = cpu_s(&c.ru);
	p->wall_s = c.wall_s;
	if (!(at = strstr(out, " into run ")) || sscanf(at, " into run %lld", &run) != 1)
		rc = lr_error_set(LR_EIO, "'labrun collect' did not say which run it stored: %.200s", out);
	free(out);
	if (rc || (rc = read_stored(s->store, run, &got)))
		return rc;
	if (got.completed != o->requests || got.tokens != o->requests * o->tokens)
		return lr_error_set(LR_EIO, "'labrun collect' stored %lld request(s) and %lld token(s) of %lld and %lld",
				    (long long)got.completed, (long long)got.tokens, (long long)o->requests,
				    (long long)(o->requests * o->tokens));
	p->pass_s = got.pass_s;
	return 0;
}

/* The peer: its own summary line says what it received and how long its pass took. */
static int peer_pass(const struct lr_collectbench_opts *o, const struct scratch *s, const char *endpoint,
		     const char *conc, struct lr_collectbench_pass *p)
{
	char url[96], tokens[24], *out = NULL;
	char *argv[] = { (char *)o->python, (char *)s->script, url, (char *)s->cases, (char *)conc, tokens,
			 (char *)s->out, NULL };
	json_int_t completed = -1, received = -1;
	struct lr_child c;
	json_t *j;
	int rc;

	snprintf(url, sizeof url, "%s/completions", endpoint);
	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	if ((rc = run_client("python", argv, o->envp, s->dir, &out, &c)))
		return rc;
	p->cpu_s = cpu_s(&c.ru);
	p->wall_s = c.wall_s;
	j = json_loads(out, 0, NULL);
	if (json_unpack(j, "{s:I, s:I, s:F}", "completed", &completed, "tokens", &received, "duration_s", &p->pass_s) ||
	    completed != o->requests || received != o->requests * o->tokens)
		rc = lr_error_set(LR_EIO, "the python client received %lld request(s) and %lld token(s) of %lld and %lld: %.200s",
				  (long long)completed, (long long)received, (long long)o->requests,
				  (long long)(o->requests * o->tokens), out);
	json_decref(j);
	free(out);
	return rc;
}

/* One client's pass against a server of its own, whose counts must match what was asked. */
static int one_pass(const struct lr_collectbench_opts *o, const struct scratch *s, int client, int concurrency,
		    struct lr_collectbench_pass *p)
{
	struct lr_nullserver srv;
	struct lr_nullserver_stats ss;
	char endpoint[64], conc[16];
	int rc, rc2;

	if ((rc = lr_nullserver_start(&srv, o->burst)))
		return rc;
	snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d/v1", srv.port);
	snprintf(conc, sizeof conc, "%d", concurrency);
	rc = client == LR_COLLECTBENCH_LABRUN ? labrun_pass(o, s, endpoint, conc, p) : peer_pass(o, s, endpoint, conc, p);
	rc2 = lr_nullserver_stop(&srv, &ss);
	if (rc || (rc = rc2))
		return rc;
	if (ss.requests != o->requests || ss.tokens != o->requests * o->tokens)
		return lr_error_set(LR_EIO, "the null server streamed %lld request(s) and %lld token(s) to %s, not %lld and %lld",
				    (long long)ss.requests, (long long)ss.tokens, lr_collectbench_clients[client],
				    (long long)o->requests, (long long)(o->requests * o->tokens));
	p->server_s = ss.user_s + ss.sys_s;
	return 0;
}

static int make_scratch(const struct lr_collectbench_opts *o, struct scratch *s)
{
	struct lr_store *st = NULL;
	char name[64];
	int rc;

	snprintf(name, sizeof name, "labrun-bench-collect-%ld", (long)getpid());
	if ((rc = lr_bench_scratch(&s->dir, o->dir, name)))
		return rc;
	snprintf(s->cases, sizeof s->cases, "%s/cases.jsonl", s->dir);
	snprintf(s->script, sizeof s->script, "%s/aiohttp-client.py", s->dir);
	snprintf(s->store, sizeof s->store, "%s/store", s->dir);
	snprintf(s->out, sizeof s->out, "%s/python-responses.jsonl", s->dir);
	if ((rc = write_cases(o, s->cases)) || (rc = write_file(s->script, lr_aiohttp_client_py)) ||
	    (rc = lr_store_open(&st, s->store, LR_STORE_CREATE)))
		return rc;
	lr_store_free(st);
	return 0;
}

int lr_collectbench_check_peer(const struct lr_collectbench_opts *o, char *version, size_t size)
{
	char *argv[] = { (char *)o->python, "-c",
			 "import sys, aiohttp; print('python %s, aiohttp %s' % (sys.version.split()[0], aiohttp.__version__))",
			 NULL };
	struct lr_child c;
	char *out = NULL;
	int rc;

	if ((rc = lr_bench_run(argv, o->envp, NULL, &out, &c)))
		return rc;
	if (c.exec_errno || !c.has_exit || c.exit_code) {
		lr_error_set(LR_EINVAL, "'%s' cannot run the peer client: %s", o->python,
			     c.exec_errno ? strerror(c.exec_errno) : "it cannot import aiohttp");
		lr_error_hint("install Debian's python3-aiohttp (apt-get install python3-aiohttp), or give --python PATH "
			      "of an interpreter that has aiohttp");
		free(out);
		return LR_EINVAL;
	}
	out[strcspn(out, "\n")] = '\0';
	snprintf(version, size, "%s", out);
	free(out);
	return 0;
}

int lr_collectbench(const struct lr_collectbench_opts *o, struct lr_collectbench_result *r)
{
	struct lr_progress *progress = NULL;
	struct scratch s;
	int rc = 0, i, rep, k;

	memset(r, 0, sizeof *r);
	memset(&s, 0, sizeof s);
	if (o->nlevels < 1 || o->nlevels > LR_COLLECTBENCH_LEVELS || o->reps < 2 || o->reps > LR_COLLECTBENCH_MAXREPS ||
	    o->requests < 1 || o->tokens < 1)
		return lr_error_set(LR_EINVAL, "the collect benchmark needs 1-%d levels, 2-%d repetitions, requests and tokens",
				    LR_COLLECTBENCH_LEVELS, LR_COLLECTBENCH_MAXREPS);
	if ((rc = make_scratch(o, &s)))
		goto out;
	progress = lr_progress_start("measured", "passes of every client", (int64_t)o->nlevels * o->reps);
	for (i = 0; i < o->nlevels && !rc; i++) {
		r->l[i].concurrency = o->level[i];
		for (rep = 0; rep < o->reps && !rc; rep++, lr_progress_update(progress, (int64_t)i * o->reps + rep))
			for (k = 0; k < LR_COLLECTBENCH_CLIENTS && !rc; k++) {
				int client = rep % 2 ? LR_COLLECTBENCH_CLIENTS - 1 - k : k; /* alternate who goes first */

				rc = one_pass(o, &s, client, o->level[i], &r->l[i].c[client].p[rep]);
			}
		r->n = i + 1;
		if (!rc)
			lr_collectbench_summarise(r, o->reps, o->requests * o->tokens, o->requests);
		if (!rc && o->on_level)
			rc = o->on_level(o->arg, r, i);
	}
out:
	lr_progress_stop(&progress);
	if (s.dir)
		lr_remove_tree(s.dir);
	free(s.dir);
	return rc;
}

void lr_collectbench_summarise(struct lr_collectbench_result *r, int reps, int64_t tokens, int64_t requests)
{
	double v[4][LR_COLLECTBENCH_MAXREPS], ratio[LR_COLLECTBENCH_MAXREPS];
	int i, k, rep, n = reps - 1;

	for (i = 0; i < r->n; i++) {
		struct lr_collectbench_level *l = &r->l[i];

		for (k = 0; k < LR_COLLECTBENCH_CLIENTS; k++) {
			struct lr_collectbench_client *c = &l->c[k];

			for (rep = 1; rep < reps; rep++) {
				const struct lr_collectbench_pass *p = &c->p[rep];

				v[0][rep - 1] = p->cpu_s / (double)tokens * 1e6;
				v[1][rep - 1] = p->pass_s > 0 ? (double)requests / p->pass_s : 0;
				v[2][rep - 1] = p->server_s / (double)tokens * 1e6;
				v[3][rep - 1] = p->pass_s > 0 ? p->server_s / p->pass_s : 0;
			}
			c->cpu_us_per_token = lr_median(v[0], (size_t)n);
			c->requests_per_s = lr_median(v[1], (size_t)n);
			c->server_us_per_token = lr_median(v[2], (size_t)n);
			c->server_busy = lr_median(v[3], (size_t)n);
		}
		for (rep = 1; rep < reps; rep++) {
			double peer = l->c[LR_COLLECTBENCH_PEER].p[rep].cpu_s;

			ratio[rep - 1] = peer > 0 ? l->c[LR_COLLECTBENCH_LABRUN].p[rep].cpu_s / peer : 0;
		}
		l->ratio = lr_median(ratio, (size_t)n);
	}
}

/* A pass's four samples: variant "CLIENT: cpu|wall|pass|server cpu", seconds. */
static const char *const figures[4] = { "cpu", "wall", "pass", "server cpu" };

static double *figure(struct lr_collectbench_pass *p, int f)
{
	return f == 0 ? &p->cpu_s : f == 1 ? &p->wall_s : f == 2 ? &p->pass_s : &p->server_s;
}

int lr_collectbench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_collectbench_opts *o)
{
	char levels[128] = "";
	int rc, i;

	for (i = 0; i < o->nlevels; i++)
		snprintf(levels + strlen(levels), sizeof levels - strlen(levels), "%s%d", i ? "," : "", o->level[i]);
	if ((rc = lr_bench_job_capture(j, st, o->argv, o->envp, "collect")) ||
	    (rc = lr_kvlist_set(&j->run.binding, "concurrency", levels, "user")) ||
	    (rc = lr_bench_job_bind(j, "requests", o->requests)) || (rc = lr_bench_job_bind(j, "tokens", o->tokens)) ||
	    (rc = lr_bench_job_bind(j, "reps", o->reps)) || (rc = lr_bench_job_bind(j, "burst", o->burst)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "python", o->python, "user")) ||
	    (rc = lr_kvlist_set(&j->run.binding, "peer", o->peer, "user")))
		return rc;
	return lr_bench_job_start(j, st);
}

int lr_collectbench_job_add(struct lr_bench_job *j, int reps, const struct lr_collectbench_result *r)
{
	char subject[32], variant[48];
	int i, k, rep, f, rc = 0;

	for (i = 0; i < r->n && !rc; i++) {
		snprintf(subject, sizeof subject, "concurrency %d", r->l[i].concurrency);
		for (k = 0; k < LR_COLLECTBENCH_CLIENTS && !rc; k++)
			for (f = 0; f < 4 && !rc; f++) {
				snprintf(variant, sizeof variant, "%s: %s", lr_collectbench_clients[k], figures[f]);
				for (rep = 0; rep < reps && !rc; rep++)
					rc = lr_run_add_sample(&j->run, subject, variant, rep,
							       *figure((struct lr_collectbench_pass *)&r->l[i].c[k].p[rep], f), "s");
			}
	}
	return rc;
}

static int64_t bound(const struct lr_run *run, const char *key)
{
	const struct lr_kv *b = lr_kvlist_find(&run->binding, key);

	return b ? strtoll(b->value, NULL, 10) : 0;
}

int lr_collectbench_job_results(const struct lr_run *run, struct lr_collectbench_result *r, int64_t *requests,
				int64_t *tokens, int *reps)
{
	const struct lr_kv *b = lr_kvlist_find(&run->binding, "benchmark"), *levels = lr_kvlist_find(&run->binding, "concurrency");
	struct lr_bench_samples sm;
	char subject[32], variant[48];
	const char *p;
	int i, k, f, rep, rc;

	memset(r, 0, sizeof *r);
	if (!b || strcmp(b->value, "collect") || !levels)
		return lr_error_set(LR_EINVAL, "run %lld is not a collect benchmark", (long long)run->id);
	*requests = bound(run, "requests");
	*tokens = bound(run, "tokens");
	*reps = (int)bound(run, "reps");
	if (*requests < 1 || *tokens < 1 || *reps < 2 || *reps > LR_COLLECTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "collect benchmark run %lld has no valid requests, tokens and reps", (long long)run->id);
	for (p = levels->value; *p && r->n < LR_COLLECTBENCH_LEVELS; p += strspn(p, ","))
		r->l[r->n++].concurrency = (int)strtol(p, (char **)&p, 10);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (i = 0; i < r->n && !rc; i++) {
		snprintf(subject, sizeof subject, "concurrency %d", r->l[i].concurrency);
		for (k = 0; k < LR_COLLECTBENCH_CLIENTS && !rc; k++)
			for (f = 0; f < 4 && !rc; f++)
				for (rep = 0; rep < *reps && !rc; rep++) {
					const struct lr_sample *m;

					snprintf(variant, sizeof variant, "%s: %s", lr_collectbench_clients[k], figures[f]);
					if ((m = lr_bench_sample_find(&sm, subject, variant, "s", rep)))
						*figure(&r->l[i].c[k].p[rep], f) = m->value;
					else
						rc = lr_error_set(LR_EINVAL, "collect benchmark run %lld has no sample '%s' '%s' rep %d",
								  (long long)run->id, subject, variant, rep);
				}
	}
	lr_bench_samples_release(&sm);
	if (!rc)
		lr_collectbench_summarise(r, *reps, *requests * *tokens, *requests);
	return rc;
}
