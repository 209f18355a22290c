#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "serving/serving.h"
#include "store/runs.h"

extern char **environ;

static const char usage[] =
	"usage: labrun ingest responses --run ID --route NAME [--condition N] [--progress] FILE.jsonl\n"
	"\n"
	"Store a serving harness's responses as evidence of run ID under route NAME (e.g.\n"
	"native-gpu, rngd-atom): one JSON object a line with case_id, tokens, text and\n"
	"finish_reason, and optionally latency_ms, ttft_ms, input_tokens, output_tokens,\n"
	"lane and model (docs/serving.md). Every line is checked first: a malformed line, a\n"
	"wrong type, invalid UTF-8 or a duplicate case id is named as FILE:LINE and nothing\n"
	"is stored. The file itself is kept byte for byte, unknown fields included. FILE is a\n"
	"regular file, or - for standard input.\n";

int cmd_ingest(const struct lr_global *g, int argc, char **argv)
{
	const char *run_ref = NULL, *route = NULL;
	struct lr_store *st = NULL;
	int64_t run = 0, set = 0, cases = 0;
	int rc, cond = -1, progress = 0, first;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref, "ID",
			   "the run the responses are evidence of (an id, uuid prefix, 'last' or 'last~N')"),
		CMD_STRING(0, "route", &route, "NAME", "the route that produced them"),
		CMD_INT(0, "condition", &cond, 0, 1000000, "N", "the condition of a command experiment they belong to"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "ingest", .usage = usage, .min = 1, .max = 1, .operands = "one responses file"
	};

	/* 'ingest WHAT': the options follow the kind of evidence */
	if (argc < 2 || strcmp(argv[1], "responses")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			cmd_print_usage(stdout, &p, opts);
			return CMD_HELP_SHOWN;
		}
		return cmd_usage_error("ingest", "what to ingest: 'labrun ingest responses ...'");
	}
	argc--;
	argv++;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if (!run_ref || !route || !*route)
		return cmd_usage_error("ingest", "--run and --route are required");
	if ((rc = cmd_store(&st, g)))
		return rc;
	if (!(rc = lr_store_run_resolve(st, run_ref, &run))) {
		cmd_progress_begin("labrun ingest", progress, 0);
		rc = lr_responses_ingest(st, run, route, cond, -1, argv[first], environ, &set, &cases);
		cmd_progress_end();
	}
	if (!rc)
		printf("ingested %lld response(s) of route '%s' into run %lld as set %lld\n", (long long)cases, route,
		       (long long)run, (long long)set);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
