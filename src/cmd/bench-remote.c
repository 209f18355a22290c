/* labrun bench remote: push and pull of many runs and a GiB of objects, time and peak memory. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/remotebench.h"

static const char usage[] = "usage: labrun bench remote [NAME] [--runs N] [--reps N] [--object-mib M] [--dir DIR]\n"
			    "\n"
			    "Fill a throwaway store with N synthetic experiment runs holding the given\n"
			    "repetitions and MiB of objects between them, push them to remote NAME (the only\n"
			    "remote when there is one) and pull them into a second throwaway store, as a user\n"
			    "runs both commands. Prints each command's wall time, throughput and peak resident\n"
			    "set size (measured). Each invocation makes new objects, so none is on the remote\n"
			    "before. The runs stay on the remote; both stores are removed.\n"
			    "Recorded as a run (kind bench). Small, to try it: labrun bench remote --runs 6\n"
			    "--reps 48 --object-mib 3 (the default moves a GiB each way).\n";

int cmd_bench_remote(const struct lr_global *g, int argc, char **argv)
{
	struct lr_remotebench_opts o;
	char self[4096];
	int64_t mib = 1024;
	int first, exit_code;
	const struct cmd_opt opts[] = {
		CMD_INT(0, "runs", &o.runs, 1, 1000000, "N", "runs (default 1000)"),
		CMD_I64(0, "reps", &o.reps, 0, 100000000, "N", "repetitions in all (default 10000)"),
		CMD_I64(0, "object-mib", &mib, 0, 1 << 20, "M",
			"MiB of objects in all, one object a run (default 1024)"),
		CMD_STRING(0, "dir", &o.dir, "DIR", "where the throwaway stores go (default: $TMPDIR, else /tmp)"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage, .max = 1, .operands = "at most the remote's NAME" };

	memset(&o, 0, sizeof o);
	o.runs = 1000;
	o.reps = 10000;
	o.self = self;
	o.argv = g->argv;
	o.envp = environ;
	o.seed = (uint64_t)time(NULL) * 1000003u ^
		 (uint64_t)getpid(); /* new objects every time: none is on the remote yet */
	if ((exit_code = cmd_parse_options(&p, opts, argc, argv, &first)) ||
	    (exit_code = cmd_bench_dirs(&o.dir, "", self, sizeof self)))
		return exit_code;
	o.name = first < argc ? argv[first] : NULL;
	o.object_bytes = mib << 20;
	exit_code = cmd_bench_run(g, &lr_remotebench_ops, &o, 0, NULL);
	free(o.remote);
	free(o.uri);
	return exit_code;
}
