/* labrun bench ingest: storing a responses file beside Python reading it, storing it, and the I/O floor. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/ingestbench.h"

static const char usage[] =
	"usage: labrun bench ingest [--responses N] [--tokens N] [--reps N] [--python PATH] [--dir DIR] [--json]\n"
	"\n"
	"Time 'labrun ingest responses' as a user runs it, into a fresh run of a throwaway\n"
	"store (fsyncs and sealing included), beside Python's 'for line in f: json.loads(line)'\n"
	"over the same file, warm in the page cache, a Python script storing the same rows\n"
	"(json.loads, sqlite3 executemany, one transaction, synchronous=FULL) into a copy of\n"
	"the store, and the I/O floor (dd conv=fsync of the bytes ingest wrote); their order\n"
	"reverses every repetition, the first repetition dropped. Each repetition also ingests\n"
	"the file again as a second route and times 'labrun compare' of the two sets. Wall time\n"
	"of every process. Measured, not modelled.\n"
	"Recorded as a run (kind bench). Small, to try it: labrun bench ingest --responses 300\n"
	"--tokens 8 --reps 2.\n";

int cmd_bench_ingest(const struct lr_global *g, int argc, char **argv)
{
	struct lr_ingestbench_opts o = { .responses = 100000,
					 .tokens = 256,
					 .reps = 3,
					 .python = "/usr/bin/python3",
					 .argv = g->argv,
					 .envp = environ };
	char self[4096];
	int rc, json = 0, exit_code;
	const struct cmd_opt opts[] = {
		CMD_I64(0, "responses", &o.responses, 1, 10000000, "N", "responses in the file (default 100000)"),
		CMD_I64(0, "tokens", &o.tokens, 1, 1 << 20, "N", "token ids a response (default 256)"),
		CMD_INT(0, "reps", &o.reps, 2, LR_INGESTBENCH_MAXREPS, "N",
			"repetitions of each, the first dropped (default 3)"),
		CMD_NONEMPTY(0, "python", &o.python, "PATH", "the peer's interpreter (default /usr/bin/python3)"),
		CMD_BENCH_TAIL(&o.dir, "where the file and the throwaway store", &json),
	};

	o.self = self;
	if ((exit_code = cmd_bench_parse(usage, opts, argc, argv, &o.dir,
					 "; the responses file and a throwaway store go there", self, sizeof self)))
		return exit_code;
	if ((rc = lr_ingestbench_peer(&o)))
		return cmd_fail(rc);
	return cmd_bench_run(g, &lr_ingestbench_ops, &o, json, NULL);
}
