#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "serving/serving.h"

extern char **environ;

static const char usage[] =
	"usage: labrun ingest responses --run ID --route NAME [--condition N] FILE.jsonl\n"
	"\n"
	"Store a serving harness's responses as evidence of run ID under route NAME (e.g.\n"
	"native-gpu, rngd-atom): one JSON object a line with case_id, tokens, text and\n"
	"finish_reason, and optionally latency_ms, ttft_ms, input_tokens, output_tokens,\n"
	"lane and model (docs/serving.md). Every line is checked first: a malformed line, a\n"
	"wrong type, invalid UTF-8 or a duplicate case id is named as FILE:LINE and nothing\n"
	"is stored. The file itself is kept byte for byte, unknown fields included.\n"
	"\n"
	"  --run ID         the run the responses are evidence of (an id, uuid prefix or 'last')\n"
	"  --route NAME     the route that produced them\n"
	"  --condition N    the condition of a command experiment they belong to\n";

int cmd_ingest(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "route", required_argument, NULL, 'R' },
		{ "condition", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run_ref = NULL, *route = NULL;
	struct lr_store *st = NULL;
	int64_t run = 0, set = 0, cases = 0;
	int c, rc, cond = -1;
	long long v;

	/* 'ingest WHAT': the options follow the kind of evidence */
	if (argc < 2 || strcmp(argv[1], "responses")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			fputs(usage, stdout);
			return LR_EXIT_OK;
		}
		return cmd_usage_error("ingest", "what to ingest: 'labrun ingest responses ...'");
	}
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			run_ref = optarg;
			break;
		case 'R':
			route = optarg;
			break;
		case 'c':
			if (cmd_parse_int("ingest", "--condition", optarg, 0, 1000000, &v))
				return LR_EXIT_USAGE;
			cond = (int)v;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("ingest", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error("ingest", "'labrun ingest responses' takes one responses file");
	if (!run_ref || !route || !*route)
		return cmd_usage_error("ingest", "--run and --route are required");
	if ((rc = cmd_open_store(&st, g, 0)))
		return rc;
	if (!(rc = lr_store_run_resolve(st, run_ref, &run)))
		rc = lr_responses_ingest(st, run, route, cond, -1, argv[optind], environ, &set, &cases);
	if (!rc)
		printf("ingested %lld response(s) of route '%s' into run %lld as set %lld\n", (long long)cases, route,
		       (long long)run, (long long)set);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
