#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/importbench.h"

static const char usage[] =
	"usage: labrun bench import [--model M] [--tokens T] [--reps N] [--threads N] [--dir DIR] [--json]\n"
	"\n"
	"Time 'labrun import' as a user runs it, on the simulated device, in each mode (whole,\n"
	"stream) and layout (strided, copy), alternating forward and reversed, into a\n"
	"throwaway store in DIR. From each run: the import total and the copy ceiling the\n"
	"command measured itself (memcpy of the same bytes), and the wall time of the whole\n"
	"command (synthetic source, lease, import, readback check, recording). Ratios are\n"
	"taken run by run, then their median; the first run of each variant is dropped as\n"
	"warm-up. Measured, not modelled. Recorded as a run (kind bench). Small, to try it:\n"
	"labrun bench import --model qwen3-0.6b --tokens 64 --reps 2.\n";

static int parse(struct lr_importbench_opts *o, int *json, char *self, size_t selflen, int argc, char **argv)
{
	static const char *const models[] = { "qwen3-0.6b", "qwen3-4b", "gemma3-1b", "koni-8b", NULL };
	int model = 1, rc, first;
	const struct cmd_opt opts[] = {
		CMD_CHOICE(0, "model", &model, models, "M", "a preset (default qwen3-4b)"),
		CMD_I64(0, "tokens", &o->tokens, 1, 1 << 20, "T", "tokens of the synthetic export (default 8192)"),
		CMD_INT(0, "reps", &o->reps, 2, LR_IMPORTBENCH_MAXREPS, "N",
			"runs of each variant, the first dropped (default 5)"),
		CMD_INT(0, "threads", &o->threads, 1, 64, "N", "encoder threads of each import (default 1)"),
		CMD_STRING(0, "dir", &o->dir, "DIR", "where the throwaway store goes (default: $TMPDIR, else /tmp)"),
		CMD_BOOL(0, "json", json, "one JSON object at the end instead of the table"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };

	o->tokens = 8192;
	o->reps = 5;
	o->threads = 1;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	o->model = models[model];
	o->self = self;
	return cmd_bench_dirs(&o->dir, "", self, selflen);
}

int cmd_bench_import(const struct lr_global *g, int argc, char **argv)
{
	struct lr_importbench_opts o = { .argv = g->argv, .envp = environ };
	char self[4096];
	int json = 0, exit_code;

	if ((exit_code = parse(&o, &json, self, sizeof self, argc, argv)))
		return exit_code;
	return cmd_bench_run(g, &lr_importbench_ops, &o, json, NULL);
}
