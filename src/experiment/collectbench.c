/* 'labrun bench collect': labrun's streaming client beside a Python asyncio one, against a server that costs nothing. */
#include "config.h"
#include "base/system.h"

#include <math.h>
#include <sched.h>
#include <sys/timerfd.h>

#include <jansson.h>

#include "base/child.h"
#include "base/clock.h"
#include "base/progress.h"
#include "base/walk.h"
#include "experiment/collectbench.h"
#include "experiment/spawn.h"
#include "serving/client.h"
#include "serving/collect.h"
#include "serving/nullserver.h"
#include "serving/rawclient.h"
#include "store/collect.h"

extern const char lr_aiohttp_client_py[]; /* serving/aiohttp-client.py, embedded at build time */

enum { LABRUN, PEER, RAW, CLIENTS, FLOOR = CLIENTS };
static const char *const clients[CLIENTS + 1] = { "labrun", "python", "raw", "floor" };

#define ARRIVAL_SEED "45" /* the Poisson draw's seed, the same for both clients */

/* One pass of one client: its process's CPU time (user + sys) and wall time, its own pass time, the server's CPU,
 * the send lag's p50, p99 and max. */
struct pass {
	double cpu_s, wall_s, pass_s, server_s, lag_s[3];
};

/* What a pass reads and writes: the cases, their arrival times, the peer's script, labrun's store, the peer's
 * responses. */
struct scratch {
	char *dir, cases[4096], arrivals[4096], script[4096], store[4096], out[4096];
};

/* The send lags (ms, any order) as p50, p99 and max in seconds; every request must have one. */
static int lag_figures(struct lr_values *lag, int64_t requests, const char *who, double out[3])
{
	if ((int64_t)lag->n != requests)
		return lr_error_set(LR_EIO, "the %s client gave %zu send time(s) for %lld requests", who, lag->n,
				    (long long)requests);
	lr_values_sort(lag);
	out[0] = lr_values_percentile(lag, 50) / 1e3;
	out[1] = lr_values_percentile(lag, 99) / 1e3;
	out[2] = lag->v[lag->n - 1] / 1e3;
	return 0;
}

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
		fprintf(f,
			"{\"case_id\":\"c%06lld\",\"prompt\":\"the null server ignores prompt %lld\",\"max_tokens\":%lld}\n",
			(long long)i, (long long)i, (long long)o->tokens);
	if (ferror(f) | fclose(f))
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* The arrival times 'labrun collect --rate R --seed ARRIVAL_SEED' draws (malloc'd), or NULL: out of memory. */
static struct lr_request *arrivals(const struct lr_collectbench_opts *o)
{
	struct lr_collect_opts co = { .rate = o->rate, .burstiness = 1, .has_seed = 1, .seed = atoi(ARRIVAL_SEED) };
	struct lr_request *req = calloc((size_t)o->requests, sizeof *req);

	if (req)
		lr_arrivals(&co, req, (size_t)o->requests);
	return req;
}

/*
 * The floor under any client's send lag on this CPU now: this process, alone
 * on the clients' CPU, sleeping on a timerfd to each arrival and taking how
 * late it woke. A client's lag below it cannot be asked for.
 */
static int floor_pass(const struct lr_collectbench_opts *o, struct pass *p)
{
	struct lr_request *req = arrivals(o);
	struct lr_values lag = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), rc = 0;
	double start = lr_monotonic_s();
	uint64_t fired;

	memset(p, 0, sizeof *p);
	if (!req || fd < 0) {
		free(req);
		if (fd >= 0)
			close(fd);
		return req ? lr_error_set(LR_EIO, "cannot make a timer: %s", strerror(errno)) : LR_ENOMEM;
	}
	for (int64_t i = 0; i < o->requests && !rc; i++) {
		double t = start + req[i].at_s;
		struct itimerspec its = { .it_value = { (time_t)t, (long)((t - floor(t)) * 1e9) } };

		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) ||
		    (lr_monotonic_s() < t && read(fd, &fired, sizeof fired) < 0))
			rc = lr_error_set(LR_EIO, "cannot sleep on a timer: %s", strerror(errno));
		else
			rc = lr_values_push(&lag, (lr_monotonic_s() - t) * 1e3);
	}
	if (!rc)
		rc = lag_figures(&lag, o->requests, "floor", p->lag_s);
	p->cpu_s = p->wall_s = p->pass_s = p->server_s = NAN;
	free(lag.v);
	free(req);
	close(fd);
	return rc;
}

/* The arrival times, for the peer: a line each, seconds. */
static int write_arrivals(const struct lr_collectbench_opts *o, const char *path)
{
	struct lr_request *req = arrivals(o);
	FILE *f;

	if (!req)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (!(f = fopen(path, "w"))) {
		free(req);
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	}
	for (int64_t i = 0; i < o->requests; i++)
		fprintf(f, "%.9f\n", req[i].at_s);
	free(req);
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
	struct lr_values lag; /* ms */
	int rc;
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
	return r->sent && !isnan(r->lag_ms) ? lr_values_push(&s->lag, r->lag_ms) : 0;
}

/* What labrun stored of run 'run': its pass's time, and every request's tokens, read back from the store. */
static int read_stored(const char *store, int64_t run, struct stored *s)
{
	struct lr_store *st = NULL;
	int rc;

	if (!(rc = lr_store_open(&st, store, 0)) && !(rc = lr_store_collect_passes(st, run, on_pass, s)))
		rc = lr_store_collect_rows(st, s->set, on_request, s);
	lr_store_free(st);
	return rc;
}

/* 'labrun --store S collect ...' as a user types it; what it stored, checked whole. */
static int labrun_pass(const struct lr_collectbench_opts *o, const struct scratch *s, const char *endpoint,
		       const char *conc, struct pass *p)
{
	char tokens[24], rate[32], *out = NULL;
	char *argv[] = { (char *)o->self,  "--store",    (char *)s->store, "collect",    "--endpoint",
			 (char *)endpoint, "--route",    "null",           "--cases",    (char *)s->cases,
			 "--concurrency",  (char *)conc, "--max-tokens",   tokens,       "--ignore-eos",
			 "--rate",         rate,         "--seed",         ARRIVAL_SEED, NULL };
	struct stored got = { 0 };
	struct lr_child c;
	const char *at;
	long long run = 0;
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	snprintf(rate, sizeof rate, "%.17g", o->rate);
	if (!(o->rate > 0))
		argv[15] = NULL; /* all at once */
	if ((rc = run_client("labrun", argv, o->envp, s->dir, &out, &c)))
		return rc;
	p->cpu_s = cpu_s(&c.ru);
	p->wall_s = c.wall_s;
	if (!(at = strstr(out, " into run ")) || sscanf(at, " into run %lld", &run) != 1)
		rc = lr_error_set(LR_EIO, "'labrun collect' did not say which run it stored: %.200s", out);
	free(out);
	if (!rc && !(rc = read_stored(s->store, run, &got)) &&
	    (got.completed != o->requests || got.tokens != o->requests * o->tokens))
		rc = lr_error_set(LR_EIO, "'labrun collect' stored %lld request(s) and %lld token(s) of %lld and %lld",
				  (long long)got.completed, (long long)got.tokens, (long long)o->requests,
				  (long long)(o->requests * o->tokens));
	if (!rc)
		rc = lag_figures(&got.lag, o->requests, "labrun", p->lag_s);
	p->pass_s = got.pass_s;
	free(got.lag.v);
	return rc;
}

/* The peer: its own summary line says what it received and how long its pass took. */
static int peer_pass(const struct lr_collectbench_opts *o, const struct scratch *s, const char *endpoint,
		     const char *conc, struct pass *p)
{
	char url[96], tokens[24], *out = NULL;
	char *argv[] = { (char *)o->python, (char *)s->script,   url, (char *)s->cases, (char *)conc, tokens,
			 (char *)s->out,    (char *)s->arrivals, NULL };
	json_int_t completed = -1, received = -1;
	struct lr_values lag = { 0 };
	struct lr_child c;
	json_t *j, *lags = NULL;
	int rc;

	snprintf(url, sizeof url, "%s/completions", endpoint);
	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	if ((rc = run_client("python", argv, o->envp, s->dir, &out, &c)))
		return rc;
	p->cpu_s = cpu_s(&c.ru);
	p->wall_s = c.wall_s;
	j = json_loads(out, 0, NULL);
	if (json_unpack(j, "{s:I, s:I, s:F, s:o}", "completed", &completed, "tokens", &received, "duration_s",
			&p->pass_s, "lag_ms", &lags) ||
	    completed != o->requests || received != o->requests * o->tokens)
		rc = lr_error_set(
			LR_EIO, "the python client received %lld request(s) and %lld token(s) of %lld and %lld: %.200s",
			(long long)completed, (long long)received, (long long)o->requests,
			(long long)(o->requests * o->tokens), out);
	for (size_t i = 0; !rc && i < json_array_size(lags); i++)
		rc = lr_values_push(&lag, json_number_value(json_array_get(lags, i)));
	if (!rc)
		rc = lag_figures(&lag, o->requests, "python", p->lag_s);
	free(lag.v);
	json_decref(j);
	free(out);
	return rc;
}

/* The raw client (serving/rawclient.h): the CPU no client can spend less than, on the same schedule. */
static int raw_pass(const struct lr_collectbench_opts *o, int port, int concurrency, struct pass *p)
{
	struct lr_request *req = o->rate > 0 ? arrivals(o) : NULL;
	double *at = o->rate > 0 ? malloc((size_t)o->requests * sizeof *at) : NULL;
	struct lr_rawclient_opts ro = { port, concurrency, o->requests, o->tokens, at };
	struct lr_rawclient_result r;
	struct lr_values lag = { 0 };
	int rc;

	if (o->rate > 0 && (!req || !at)) {
		free(req);
		free(at);
		return LR_ENOMEM;
	}
	for (int64_t i = 0; at && i < o->requests; i++)
		at[i] = req[i].at_s;
	free(req);
	rc = lr_rawclient_run(&ro, &r);
	free(at);
	if (!rc && r.tokens != o->requests * o->tokens)
		rc = lr_error_set(LR_EIO, "the raw client read %lld token(s) of %lld", (long long)r.tokens,
				  (long long)(o->requests * o->tokens));
	p->cpu_s = r.user_s + r.sys_s;
	p->wall_s = p->pass_s = r.pass_s;
	lag.v = r.lag_ms;
	lag.n = lag.cap = rc ? 0 : (size_t)r.completed;
	if (!rc)
		rc = lag_figures(&lag, o->requests, "raw", p->lag_s);
	free(r.lag_ms);
	return rc;
}

/* One client's pass against a server of its own, whose counts must match what was asked. */
static int one_pass(const struct lr_collectbench_opts *o, const struct scratch *s, int client, int concurrency,
		    struct pass *p)
{
	const struct lr_nullserver_opts so = { o->burst, o->gap_s, o->ttft_s, o->cpu_server };
	struct lr_nullserver srv;
	struct lr_nullserver_stats ss;
	char endpoint[64], conc[16];
	int rc, rc2;

	if ((rc = lr_nullserver_start(&srv, &so)))
		return rc;
	snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d/v1", srv.port);
	snprintf(conc, sizeof conc, "%d", concurrency);
	rc = client == LABRUN ? labrun_pass(o, s, endpoint, conc, p)
	     : client == PEER ? peer_pass(o, s, endpoint, conc, p)
			      : raw_pass(o, srv.port, concurrency, p);
	rc2 = lr_nullserver_stop(&srv, &ss);
	if (rc || (rc = rc2))
		return rc;
	if (ss.requests != o->requests || ss.tokens != o->requests * o->tokens)
		return lr_error_set(
			LR_EIO, "the null server streamed %lld request(s) and %lld token(s) to %s, not %lld and %lld",
			(long long)ss.requests, (long long)ss.tokens, clients[client], (long long)o->requests,
			(long long)(o->requests * o->tokens));
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
	snprintf(s->arrivals, sizeof s->arrivals, "%s/arrivals.txt", s->dir);
	snprintf(s->script, sizeof s->script, "%s/aiohttp-client.py", s->dir);
	snprintf(s->store, sizeof s->store, "%s/store", s->dir);
	snprintf(s->out, sizeof s->out, "%s/python-responses.jsonl", s->dir);
	if ((rc = write_cases(o, s->cases)) || (rc = write_arrivals(o, s->arrivals)) ||
	    (rc = write_file(s->script, lr_aiohttp_client_py)) || (rc = lr_store_open(&st, s->store, LR_STORE_CREATE)))
		return rc;
	lr_store_free(st);
	return 0;
}

int lr_collectbench_check_peer(const struct lr_collectbench_opts *o, char *version, size_t size)
{
	char *argv[] = {
		(char *)o->python, "-c",
		"import sys, aiohttp; print('python %s, aiohttp %s' % (sys.version.split()[0], aiohttp.__version__))",
		NULL
	};
	struct lr_child c;
	char *out = NULL;
	int rc;

	if ((rc = lr_bench_run(argv, o->envp, NULL, &out, &c)))
		return rc;
	if (c.exec_errno || !c.has_exit || c.exit_code) {
		lr_error_set(LR_EINVAL, "'%s' cannot run the peer client: %s", o->python,
			     c.exec_errno ? strerror(c.exec_errno) : "it cannot import aiohttp");
		lr_error_hint(
			"install Debian's python3-aiohttp (apt-get install python3-aiohttp), or give --python PATH "
			"of an interpreter that has aiohttp");
		free(out);
		return LR_EINVAL;
	}
	out[strcspn(out, "\n")] = '\0';
	snprintf(version, size, "%s", out);
	free(out);
	return 0;
}

/* A pass's seven figures as samples: subject the level, variant "CLIENT: FIGURE", seconds. */
static int add_pass(struct lr_bench *b, int concurrency, int client, int rep, const struct pass *p)
{
	static const char *const figures[7] = { "cpu", "wall", "pass", "server cpu", "lag p50", "lag p99", "lag max" };
	const double v[7] = { p->cpu_s, p->wall_s, p->pass_s, p->server_s, p->lag_s[0], p->lag_s[1], p->lag_s[2] };
	char subject[32], variant[48];
	int rc = 0;

	snprintf(subject, sizeof subject, "concurrency %d", concurrency);
	for (int f = 0; f < 7 && !rc; f++) {
		if (isnan(v[f])) /* the floor has only its lag */
			continue;
		snprintf(variant, sizeof variant, "%s: %s", clients[client], figures[f]);
		rc = lr_bench_add(b, subject, variant, rep, v[f], "s");
	}
	return rc;
}

/* Pin this process, and so the clients it starts, to 'cpu', keeping what it was in 'was'. */
static int pin_clients(int cpu, cpu_set_t *was)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_getaffinity(0, sizeof *was, was) || sched_setaffinity(0, sizeof set, &set)) {
		lr_error_set(LR_EINVAL, "cannot pin the clients to CPU %d: %s", cpu, strerror(errno));
		lr_error_hint("give --cpus SERVER,CLIENT of CPUs this process may run on (see nproc, taskset -p)");
		return LR_EINVAL;
	}
	return 0;
}

/* Every level, the two clients alternating who goes first; a step after each level. */
static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_collectbench_opts *o = opts;
	struct lr_progress *progress = NULL;
	struct scratch s;
	struct pass p;
	cpu_set_t was;
	int rc = 0, i, rep, k, pinned = 0;

	memset(&s, 0, sizeof s);
	if (o->nlevels < 1 || o->nlevels > LR_COLLECTBENCH_LEVELS || o->reps < 2 || o->reps > LR_COLLECTBENCH_MAXREPS ||
	    o->requests < 1 || o->tokens < 1)
		return lr_error_set(LR_EINVAL,
				    "the collect benchmark needs 1-%d levels, 2-%d repetitions, requests and tokens",
				    LR_COLLECTBENCH_LEVELS, LR_COLLECTBENCH_MAXREPS);
	if ((o->cpu_client >= 0 && (rc = pin_clients(o->cpu_client, &was))) || (rc = make_scratch(o, &s)))
		goto out;
	pinned = o->cpu_client >= 0;
	progress = lr_progress_start("measured", "passes of every client", (int64_t)o->nlevels * o->reps);
	for (i = 0; i < o->nlevels && !rc; i++) {
		for (rep = 0; rep < o->reps && !rc; rep++, lr_progress_update(progress, (int64_t)i * o->reps + rep))
			for (k = 0; k <= CLIENTS && !rc; k++) {
				int client = k == CLIENTS ? FLOOR
					     : rep % 2    ? CLIENTS - 1 - k
							  : k; /* alternate who goes first */

				if (!(rc = client == FLOOR ? floor_pass(o, &p)
							   : one_pass(o, &s, client, o->level[i], &p)))
					rc = add_pass(&j->bench, o->level[i], client, rep, &p);
			}
		if (!rc)
			rc = lr_bench_job_step(j);
	}
out:
	lr_progress_stop(&progress);
	if (pinned)
		sched_setaffinity(0, sizeof was, &was);
	if (s.dir)
		lr_remove_tree(s.dir);
	free(s.dir);
	return rc;
}

/* A real setting as the binding keeps it. */
static int bind_real(struct lr_run *run, const char *key, double v)
{
	char text[32];

	snprintf(text, sizeof text, "%g", v);
	return lr_kvlist_set(&run->binding, key, text, "user");
}

/* The pacing, the arrivals and the pinning. */
static int bind_schedule(struct lr_run *run, const struct lr_collectbench_opts *o)
{
	char cpus[32] = "none";
	int rc;

	if (o->cpu_client >= 0)
		snprintf(cpus, sizeof cpus, "%d,%d", o->cpu_server, o->cpu_client);
	if ((rc = bind_real(run, "gap_ms", o->gap_s * 1e3)) || (rc = bind_real(run, "ttft_ms", o->ttft_s * 1e3)) ||
	    (rc = bind_real(run, "rate", o->rate)))
		return rc;
	return lr_kvlist_set(&run->binding, "cpus", cpus, "user");
}

static int collect_bind(struct lr_run *run, const void *opts)
{
	const struct lr_collectbench_opts *o = opts;
	char levels[128] = "";
	int rc, i;

	for (i = 0; i < o->nlevels; i++)
		snprintf(levels + strlen(levels), sizeof levels - strlen(levels), "%s%d", i ? "," : "", o->level[i]);
	if ((rc = lr_kvlist_set(&run->binding, "concurrency", levels, "user")) ||
	    (rc = lr_bench_bind(run, "requests", o->requests)) || (rc = lr_bench_bind(run, "tokens", o->tokens)) ||
	    (rc = lr_bench_bind(run, "reps", o->reps)) || (rc = lr_bench_bind(run, "burst", o->burst)) ||
	    (rc = lr_kvlist_set(&run->binding, "python", o->python, "user")) || (rc = bind_schedule(run, o)))
		return rc;
	return lr_kvlist_set(&run->binding, "peer", o->peer, "user");
}

const struct lr_bench_ops lr_collectbench_ops = { LR_BENCHMARK_COLLECT, NULL, collect_bind, measure };
