#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/storebench.h"
#include "record/hostinfo.h"

static const char usage[] =
	"usage: labrun bench store [--scale N ...] [--reps N] [--dir DIR] [--json]\n"
	"\n"
	"Time labrun on stores of N repetitions, as a user runs it: 'record -q -- true',\n"
	"'report --issue 270' and 'audit'. For each N a throwaway store in DIR is filled\n"
	"with N synthetic repetitions (experiment runs of 100,000 repetitions at most,\n"
	"stored, sealed and chained as 'labrun run' stores them; their times generated,\n"
	"not measured), then the three commands run on it in turn, forward and reversed,\n"
	"the first repetition dropped as warm-up; the store is removed at the end. The\n"
	"benchmark is recorded as a run (kind bench) in the store labrun finds as usual.\n";

struct store_args {
	struct lr_storebench_opts o;
	long long scale[16];
	int nscales, json;
	char self[4096];
};

static int parse(struct store_args *a, int argc, char **argv)
{
	static const char *const defaults[] = { "1000", "10000", "100000", "1000000" };
	struct lr_strlist scales = { 0 };
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "scale", &scales, "N", "repetitions in the store (repeatable; default 1000, 10000, 100000,\n1000000)"),
		CMD_INT(0, "reps", &a->o.reps, 2, LR_STOREBENCH_MAXREPS, "N", "runs of each command per scale, the first dropped (default 5)"),
		CMD_STRING(0, "dir", &a->o.dir, "DIR", "where the throwaway stores go (default: $TMPDIR, else /tmp)"),
		CMD_BOOL(0, "json", &a->json, "one JSON object at the end instead of the table"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	size_t i;
	int rc, first;

	a->o.reps = 5;
	a->o.seed = 1;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lr_strlist_release(&scales);
		return rc;
	}
	for (i = 0; i < (scales.n ? scales.n : 4) && !rc; i++) {
		const char *text = scales.n ? scales.v[i] : defaults[i];
		char *end;

		if (a->nscales == 16)
			rc = cmd_usage_error("bench", "at most 16 --scale options");
		else if ((a->scale[a->nscales++] = strtoll(text, &end, 10)) < 8 || *end || a->scale[a->nscales - 1] > 100000000)
			rc = cmd_usage_error("bench", "invalid --scale '%s': a number of repetitions from 8 to 100,000,000", text);
	}
	lr_strlist_release(&scales);
	if (rc)
		return rc;
	if ((rc = cmd_bench_dir(&a->o.dir, "")) || (rc = cmd_bench_self(a->self, sizeof a->self)))
		return rc;
	a->o.self = a->self;
	return 0;
}

int cmd_bench_store(const struct lr_global *g, int argc, char **argv)
{
	struct store_args a;
	struct lr_bench_job job;
	struct lr_storebench_row *row = malloc(sizeof *row);
	struct lr_store *st = NULL;
	struct lr_table t;
	int rc = 0, exit_code, i;

	memset(&a, 0, sizeof a);
	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	lr_render_bench_store_table(&t);
	a.o.argv = g->argv;
	a.o.envp = environ;
	if (!row)
		return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
	if ((exit_code = parse(&a, argc, argv)) || (exit_code = cmd_store(&st, g)))
		goto out;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_storebench_job_begin(&job, st, &a.o))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (!a.json) {
		printf("labrun bench store: %d runs of each command per scale (first dropped), stores in %s\n"
		       "record: record -q -- true; report: report --issue 270; audit: audit\n", a.o.reps, a.o.dir);
		cmd_bench_host_line("");
	}
	for (i = 0; !rc && i < a.nscales; i++) {
		rc = lr_storebench_scale(&a.o, a.scale[i], row); /* its meter shows the repetitions */
		cmd_progress_clear();
		if (rc || (rc = lr_storebench_job_add(&job, a.o.reps, row)))
			break;
		lr_render_bench_store_row(&t, row);
		if ((rc = lr_table_error(&t)))
			break;
		if (!a.json && (rc = lr_render_table_text(stdout, &t, 2, t.nrows - 1)))
			break;
		fflush(stdout);
	}
	if ((exit_code = cmd_bench_finish(&job, rc)))
		goto out;
	if (a.json) {
		json_t *root = json_pack("{s:I, s:i, s:s, s:s, s:b, s:o}", "run", (json_int_t)job.run.id, "reps", a.o.reps,
					 "dir", a.o.dir, "labrun", PACKAGE_VERSION, "modelled", 0, "scales", lr_render_table_json(&t));

		cmd_json_print(root);
	} else {
		printf("times are medians, measured; the stored repetitions are synthetic\n"
		       "recorded run %lld (passed); 'labrun report --run %lld' prints this table again\n",
		       (long long)job.run.id, (long long)job.run.id);
	}
out:
	lr_table_release(&t);
	lr_bench_job_release(&job);
	free(row);
	return exit_code;
}
