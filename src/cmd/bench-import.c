#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/parallel.h"
#include "base/treehash.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/importbench.h"
#include "record/hostinfo.h"

static const char usage[] =
	"usage: labrun bench import [--model M] [--tokens T] [--reps N] [--threads N] [--dir DIR] [--json]\n"
	"\n"
	"Time 'labrun import' as a user runs it, on the simulated device, in each mode (whole,\n"
	"stream) and layout (strided, copy), alternating forward and reversed, into a\n"
	"throwaway store in DIR. From each run: the import total and the copy ceiling the\n"
	"command measured itself (memcpy of the same bytes), and the wall time of the whole\n"
	"command (synthetic source, lease, import, readback check, recording). Ratios are\n"
	"taken run by run, then their median; the first run of each variant is dropped as\n"
	"warm-up. Measured, not modelled. Recorded as a run (kind bench).\n";

static int parse(struct lr_importbench_opts *o, int *json, char *self, size_t selflen, int argc, char **argv)
{
	static const char *const models[] = { "qwen3-0.6b", "qwen3-4b", "gemma3-1b", "koni-8b", NULL };
	int model = 1, rc, first;
	const struct cmd_opt opts[] = {
		CMD_CHOICE(0, "model", &model, models, "M", "a preset (default qwen3-4b)"),
		CMD_I64(0, "tokens", &o->tokens, 1, 1 << 20, "T", "tokens of the synthetic export (default 8192)"),
		CMD_INT(0, "reps", &o->reps, 2, LR_IMPORTBENCH_MAXREPS, "N", "runs of each variant, the first dropped (default 5)"),
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
	if ((rc = cmd_bench_dir(&o->dir, "")) || (rc = cmd_bench_self(self, selflen)))
		return rc;
	o->self = self;
	return 0;
}

int cmd_bench_import(const struct lr_global *g, int argc, char **argv)
{
	struct lr_importbench_opts o;
	struct lr_importbench_result *r = malloc(sizeof *r);
	struct lr_bench_job job;
	struct lr_store *st = NULL;
	struct lr_table t;
	char self[4096];
	int rc, json = 0, exit_code;

	memset(&t, 0, sizeof t);
	memset(&o, 0, sizeof o);
	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	o.argv = g->argv;
	o.envp = environ;
	if (!r)
		return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
	if ((exit_code = parse(&o, &json, self, sizeof self, argc, argv)) || (exit_code = cmd_store(&st, g)))
		goto out;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_importbench_job_begin(&job, st, &o))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (!json) {
		printf("labrun bench import: %s, %lld tokens, sim, %d runs of each variant (first dropped), %d encoder "
		       "thread%s\n", o.model, (long long)o.tokens, o.reps, o.threads, o.threads == 1 ? "" : "s");
		cmd_bench_host_line("");
		fflush(stdout);
	}
	rc = lr_importbench(&o, r);
	if (!rc)
		rc = lr_importbench_job_add(&job, o.reps, r);
	if ((exit_code = cmd_bench_finish(&job, rc)))
		goto out;
	lr_render_bench_import_table(&t, r);
	if ((rc = lr_table_error(&t))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (json) {
		json_t *root = json_pack("{s:I, s:s, s:I, s:i, s:i, s:s, s:b, s:o}", "run", (json_int_t)job.run.id, "model",
					 o.model, "tokens", (json_int_t)o.tokens, "reps", o.reps, "threads", o.threads,
					 "labrun", PACKAGE_VERSION, "modelled", 0, "variants", lr_render_table_json(&t));

		cmd_json_print(root);
	} else if ((rc = lr_render_table_text(stdout, &t, 2, 0))) {
		exit_code = cmd_fail(rc);
	} else {
		printf("x ceiling: the run's own import total (or whole command) over the copy ceiling it measured;\n"
		       "tree hash: the device state's digest of as many bytes in memory, on %d CPU(s), right after\n"
		       "each run; x (copy + tree hash): the whole command over both; medians over runs; measured,\n"
		       "not modelled\n", lr_parallel_cpus());
		printf("recorded run %lld (passed); 'labrun report --run %lld' prints this table again\n",
		       (long long)job.run.id, (long long)job.run.id);
	}
out:
	lr_table_release(&t);
	lr_bench_job_release(&job);
	free(r);
	return exit_code;
}
