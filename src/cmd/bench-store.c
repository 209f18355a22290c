#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/storebench.h"

static const char usage[] = "usage: labrun bench store [--scale N ...] [--repetitions R] [--reps N] [--skip CMD ...]\n"
			    "                          [--remote NAME] [--dir DIR] [--json]\n"
			    "\n"
			    "Time labrun on stores of N runs, as a user runs it: '--version' (start-up alone),\n"
			    "'record -q -- true', 'list -n 20', 'show ID', 'report --run ID' and 'audit', and\n"
			    "with --remote 'push' and 'pull'. For each N a throwaway store in DIR holds N runs:\n"
			    "synthetic experiment runs holding R repetitions (default 1,000; their times generated,\n"
			    "not measured) and runs of 'true' stored, sealed and chained as 'labrun record'\n"
			    "stores them (not executed) up to N. Every store is built first; then each\n"
			    "repetition runs every command on every store, forward, then reversed, the first\n"
			    "repetition dropped as warm-up; the stores are removed at the end.\n"
			    "The table gives each command's median and its ratio to the smallest store. The\n"
			    "benchmark is recorded as a run (kind bench) in the store labrun finds as usual.\n"
			    "Small, to try it: labrun bench store --scale 100 --reps 3 (the default goes to a\n"
			    "million runs).\n";

struct store_args {
	struct lr_storebench_opts o;
	int64_t scale[16];
	int json;
	char self[4096];
};

static int parse(struct store_args *a, const struct lr_global *g, int argc, char **argv)
{
	static const char *const defaults[] = { "1000", "10000", "100000", "1000000" };
	struct lr_strlist scales = { 0 }, skip = { 0 };
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "scale", &scales, "N",
			 "runs in the store (repeatable; default 1000, 10000, 100000, 1000000)"),
		CMD_I64(0, "repetitions", &a->o.repetitions, 0, 100000000, "R",
			"repetitions in each store's experiment runs (default 1000)"),
		CMD_INT(0, "reps", &a->o.reps, 2, LR_STOREBENCH_MAXREPS, "N",
			"runs of each command per scale, the first dropped (default 5)"),
		CMD_LIST(0, "skip", &skip, "COMMAND",
			 "do not time COMMAND (repeatable; e.g. audit, which reads every run)"),
		CMD_STRING(0, "remote", &a->o.name, "NAME", "time push and pull against this remote too"),
		CMD_STRING(0, "dir", &a->o.dir, "DIR", "where the throwaway stores go (default: $TMPDIR, else /tmp)"),
		CMD_BOOL(0, "json", &a->json, "one JSON object at the end instead of the table"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	size_t i;
	int rc, first;

	a->o.reps = 5;
	a->o.repetitions = 1000;
	a->o.seed = 1;
	a->o.argv = g->argv;
	a->o.envp = environ;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lr_strlist_release(&scales);
		return rc;
	}
	for (i = 0; i < (scales.n ? scales.n : 4) && !rc; i++) {
		const char *text = scales.n ? scales.v[i] : defaults[i];
		char *end;

		if (a->o.nscales == 16)
			rc = cmd_usage_error("bench", "at most 16 --scale options");
		else if ((a->scale[a->o.nscales++] = strtoll(text, &end, 10)) < 8 || *end ||
			 a->scale[a->o.nscales - 1] > 100000000)
			rc = cmd_usage_error("bench", "invalid --scale '%s': a number of runs from 8 to 100,000,000",
					     text);
	}
	for (i = 0; i < skip.n && !rc; i++) {
		size_t k = 0;

		while (lr_storebench_ops_names[k] && strcmp(lr_storebench_ops_names[k], skip.v[i]))
			k++;
		if (lr_storebench_ops_names[k])
			a->o.skip |= 1u << k;
		else
			rc = cmd_usage_error("bench",
					     "invalid --skip '%s': one of version, record, list, show, report, "
					     "audit, push, pull",
					     skip.v[i]);
	}
	a->o.scale = a->scale;
	lr_strlist_release(&scales);
	lr_strlist_release(&skip);
	if (rc)
		return rc;
	a->o.self = a->self;
	return cmd_bench_dirs(&a->o.dir, "", a->self, sizeof a->self);
}

int cmd_bench_store(const struct lr_global *g, int argc, char **argv)
{
	struct store_args a;
	int exit_code;

	memset(&a, 0, sizeof a);
	if ((exit_code = parse(&a, g, argc, argv)))
		return exit_code;
	exit_code = cmd_bench_run(g, &lr_storebench_ops, &a.o, a.json, NULL);
	free(a.o.remote);
	free(a.o.uri);
	return exit_code;
}
