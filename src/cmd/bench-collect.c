/* labrun bench collect: the streaming client's CPU per token beside a Python asyncio client's. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/collectbench.h"
#include "serving/nullserver.h"

static const char usage[] =
	"usage: labrun bench collect [--concurrency N,...] [--requests N] [--tokens N] [--reps N]\n"
	"                            [--burst N] [--python PATH] [--dir DIR] [--json]\n"
	"\n"
	"Time 'labrun collect', storing everything in a throwaway store as a user runs it,\n"
	"beside a Python asyncio client of the kind vLLM's 'bench serve' is (aiohttp, one\n"
	"session, a semaphore for the concurrency; carried inside labrun), sending the same\n"
	"requests and writing the same responses to a file. Both stream from a null server\n"
	"on 127.0.0.1 that labrun starts for every pass: vLLM's chunk shapes, one chunk a\n"
	"token, --burst chunks a write, no model. At each concurrency the two alternate (who goes first swaps every\n"
	"repetition); the first repetition of each is dropped. Prints each client's CPU time\n"
	"(user + sys of its whole process, start-up included) per streamed token, the\n"
	"request rate over its own pass, and the server's CPU in the same pass, so that a\n"
	"figure taken with the server as the bottleneck shows. Measured, not modelled.\n"
	"Recorded as a run (kind bench). Small, to try it: labrun bench collect\n"
	"--concurrency 1,4 --requests 12 --tokens 5 --reps 2.\n";

struct collect_args {
	struct lr_collectbench_opts o;
	int json;
	char self[4096], peer[128];
};

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
	if (!(rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		rc = parse_levels(a, &levels);
	lr_strlist_release(&levels);
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
