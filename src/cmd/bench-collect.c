/* labrun bench collect: the streaming client's CPU per token beside a Python asyncio client's. */
#include "config.h"
#include "base/system.h"

#include <sched.h>

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/collectbench.h"
#include "serving/nullserver.h"

static const char usage[] = "usage: labrun bench collect [--concurrency N,...] [--requests N] [--tokens N] [--reps N]\n"
			    "                            [--burst N] [--gap MS] [--ttft MS] [--rate R] [--cpus S,C]\n"
			    "                            [--python PATH] [--dir DIR] [--json]\n"
			    "\n"
			    "Time 'labrun collect', storing everything in a throwaway store as a user runs it,\n"
			    "beside a Python asyncio client of the kind vLLM's 'bench serve' is (aiohttp, one\n"
			    "session, a semaphore for the concurrency; carried inside labrun), sending the same\n"
			    "requests and writing the same responses to a file. Both stream from a null server\n"
			    "on 127.0.0.1 that labrun starts for every pass: vLLM's chunk shapes, one chunk a\n"
			    "token, --burst chunks a write, no model. A third, raw client sends the same requests\n"
			    "and only reads and frames the bytes (epoll, recv, chunked framing; no JSON, nothing\n"
			    "kept): the CPU floor under any client on this machine. At each concurrency the\n"
			    "clients alternate (the order reverses every repetition); the first repetition of\n"
			    "each is dropped. Prints each client's CPU time\n"
			    "(user + sys of its whole process, start-up included) per streamed token, the\n"
			    "request rate over its own pass, and the server's CPU in the same pass, so that a\n"
			    "figure taken with the server as the bottleneck shows. With --gap or --ttft the\n"
			    "server paces its streams as an engine does instead: the first token --ttft ms\n"
			    "after the request, then one event a write every --gap ms. With --rate, requests\n"
			    "arrive as a Poisson process (the same times for both clients), --concurrency\n"
			    "capping those in flight. Each client's send lag (its send time less the scheduled\n"
			    "one) is shown as p50, p99 and max. Measured, not modelled.\n"
			    "Recorded as a run (kind bench). Small, to try it: labrun bench collect\n"
			    "--concurrency 1,4 --requests 12 --tokens 5 --reps 2.\n";

struct collect_args {
	struct lr_collectbench_opts o;
	int json;
	double gap_ms, ttft_ms;
	const char *cpus;
	char self[4096], peer[128];
};

/* --cpus SERVER,CLIENT: two different CPUs. */
static int parse_cpus(struct collect_args *a)
{
	char *end;
	long s, c;

	a->o.cpu_server = a->o.cpu_client = -1;
	if (!a->cpus)
		return 0;
	s = strtol(a->cpus, &end, 10);
	if (end == a->cpus || *end != ',' || s < 0 || s >= CPU_SETSIZE)
		goto bad;
	c = strtol(end + 1, &end, 10);
	if (*end || c < 0 || c >= CPU_SETSIZE || c == s || end == a->cpus)
		goto bad;
	a->o.cpu_server = (int)s;
	a->o.cpu_client = (int)c;
	return 0;
bad:
	return cmd_usage_error("bench", "invalid --cpus '%s': the server's CPU and the clients', two numbers, e.g. 1,0",
			       a->cpus);
}

/* --concurrency: repeatable, each a comma-separated list of levels. */
static int parse_levels(struct collect_args *a, const struct lr_strlist *given)
{
	static const char *const fallback = "1,16,256";
	size_t i;

	for (i = 0; i < (given->n ? given->n : 1); i++) {
		const char *p = given->n ? given->v[i] : fallback;

		while (*p) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p || v < 1 || v > 4096 || (*end && *end != ','))
				return cmd_usage_error(
					"bench", "invalid --concurrency '%s': levels from 1 to 4096, e.g. 1,16,256",
					given->n ? given->v[i] : fallback);
			if (a->o.nlevels == LR_COLLECTBENCH_LEVELS)
				return cmd_usage_error("bench", "at most %d concurrency levels",
						       LR_COLLECTBENCH_LEVELS);
			a->o.level[a->o.nlevels++] = (int)v;
			p = *end ? end + 1 : end;
		}
	}
	return 0;
}

static int parse(struct collect_args *a, const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist levels = { 0 };
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "concurrency", &levels, "N,...", "requests in flight (repeatable; default 1,16,256)"),
		CMD_I64(0, "requests", &a->o.requests, 1, 1000000, "N", "requests a pass (default 1024)"),
		CMD_I64(0, "tokens", &a->o.tokens, 1, 1 << 20, "N", "tokens streamed a request (default 128)"),
		CMD_INT(0, "reps", &a->o.reps, 2, LR_COLLECTBENCH_MAXREPS, "N",
			"passes of each client a level, the first dropped (default 5)"),
		CMD_INT(0, "burst", &a->o.burst, 1, LR_NULLSERVER_MAXBURST, "N",
			"token chunks the null server writes at once (default 16; 1: a\nwrite a token, which makes the server the bottleneck)"),
		CMD_REAL(0, "gap", &a->gap_ms, "MS",
			 "pace the server: ms between a stream's tokens (default 0: unpaced)"),
		CMD_REAL(0, "ttft", &a->ttft_ms, "MS",
			 "pace the server: ms from a request to its first token (default 0)"),
		CMD_REAL(0, "rate", &a->o.rate, "R", "requests per second, Poisson arrivals (default 0: all at once)"),
		CMD_STRING(0, "cpus", &a->cpus, "S,C",
			   "pin the server to CPU S and the clients to CPU C (default: no pinning)"),
		CMD_NONEMPTY(
			0, "python", &a->o.python, "PATH",
			"the peer's interpreter, which must have aiohttp\n(default /usr/bin/python3, where Debian's python3-aiohttp is)"),
		CMD_STRING(0, "dir", &a->o.dir, "DIR",
			   "where the throwaway store and files go (default: $TMPDIR, else /tmp)"),
		CMD_BOOL(0, "json", &a->json, "one JSON object at the end instead of the table"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	int rc, first;

	a->o.requests = 1024;
	a->o.tokens = 128;
	a->o.reps = 5;
	a->o.burst = 16;
	a->o.python = "/usr/bin/python3";
	a->o.argv = g->argv;
	a->o.envp = environ;
	if (!(rc = cmd_parse_options(&p, opts, argc, argv, &first)) && !(rc = parse_levels(a, &levels)) &&
	    !(rc = parse_cpus(a)) &&
	    !(a->gap_ms >= 0 && a->ttft_ms >= 0 && a->o.rate >= 0 && a->gap_ms <= 60000 && a->ttft_ms <= 60000))
		rc = cmd_usage_error("bench", "--gap and --ttft from 0 to 60000 ms, and --rate >= 0");
	lr_strlist_release(&levels);
	a->o.gap_s = a->gap_ms / 1e3;
	a->o.ttft_s = a->ttft_ms / 1e3;
	a->o.self = a->self;
	return rc ? rc : cmd_bench_dirs(&a->o.dir, "", a->self, sizeof a->self);
}

int cmd_bench_collect(const struct lr_global *g, int argc, char **argv)
{
	struct collect_args a;
	int rc, exit_code;

	memset(&a, 0, sizeof a);
	if ((exit_code = parse(&a, g, argc, argv)))
		return exit_code;
	if ((rc = lr_collectbench_check_peer(&a.o, a.peer, sizeof a.peer)))
		return cmd_fail(rc);
	a.o.peer = a.peer;
	return cmd_bench_run(g, &lr_collectbench_ops, &a.o, a.json, NULL);
}
