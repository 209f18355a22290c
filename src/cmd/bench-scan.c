/* labrun bench scan: the sensitive-content scan of one long line beside cat and grep of it. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/scanbench.h"

static const char usage[] = "usage: labrun bench scan [--bytes N] [--reps N] [--dir DIR] [--json]\n"
			    "\n"
			    "Time 'labrun scan' of one line of N bytes without a blank that ends in a made-up\n"
			    "GitHub token, and 'labrun manifest' of a run whose stdout is that line (refused for\n"
			    "the finding, and written with --allow-findings), beside cat of the same file to\n"
			    "/dev/null (a plain read) and GNU grep -c of the token's regex, warm in the page\n"
			    "cache; the two sides alternate, who goes first swapping every repetition, the first\n"
			    "repetition dropped. Checked first: the line without the token scans clean; every\n"
			    "labrun command must find the token each time. Wall time of every process; ratios to\n"
			    "cat's, repetition by repetition. Measured, not modelled. Recorded as a run (kind\n"
			    "bench). Small, to try it: labrun bench scan --bytes 65536 --reps 2.\n";

int cmd_bench_scan(const struct lr_global *g, int argc, char **argv)
{
	struct lr_scanbench_opts o = { .bytes = 1048576, .reps = 5, .argv = g->argv, .envp = environ };
	char self[4096];
	int rc, json = 0, exit_code;
	const struct cmd_opt opts[] = {
		CMD_I64(0, "bytes", &o.bytes, LR_SCANBENCH_TOKEN + 1, (int64_t)1 << 30, "N",
			"the line's length, its token of 40 included (default 1048576)"),
		CMD_INT(0, "reps", &o.reps, 2, LR_SCANBENCH_MAXREPS, "N",
			"repetitions of each, the first dropped (default 5)"),
		CMD_BENCH_TAIL(&o.dir, "where the lines and the throwaway store", &json),
	};

	o.self = self;
	if ((exit_code = cmd_bench_parse(usage, opts, argc, argv, &o.dir, "; the lines and a throwaway store go there",
					 self, sizeof self)))
		return exit_code;
	if ((rc = lr_scanbench_peer(&o)))
		return cmd_fail(rc);
	return cmd_bench_run(g, &lr_scanbench_ops, &o, json, NULL);
}
