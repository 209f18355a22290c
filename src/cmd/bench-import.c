#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/importbench.h"
#include "import/job.h"

static const char usage[] =
	"usage: labrun bench import [--model M] [--tokens T] [--reps N] [--imports N] [--threads N] [--dir DIR]\n"
	"                          [--json]\n"
	"\n"
	"Time 'labrun import --repeat N' as a user runs it, on the simulated device, in each mode\n"
	"(whole, stream) and layout (strided, copy), alternating forward and reversed, into a\n"
	"throwaway store in DIR. From each run: the first import's cycle (lease, import,\n"
	"readback and digest: first touch of the device's memory) and the steady cycle (the\n"
	"imports after the device's memory is allocated), the copy ceiling the command\n"
	"measured itself (the fastest copy of the same bytes) and, in this process, the tree-hash\n"
	"ceiling on every CPU; and the wall time of the whole command. Ratios are\n"
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
		CMD_INT(0, "imports", &o->imports, LR_IMPORT_WARM + 1, LR_IMPORTBENCH_MAXREPS, "N",
			"imports of each command, the first two allocating the device's memory (default 4)"),
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
	o->imports = LR_IMPORT_WARM + 2;
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
