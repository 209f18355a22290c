/* labrun bench ingest: storing a responses file beside Python reading it. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/ingestbench.h"

static const char usage[] =
	"usage: labrun bench ingest [--responses N] [--tokens N] [--reps N] [--python PATH] [--dir DIR] [--json]\n"
	"\n"
	"Time 'labrun ingest responses' as a user runs it, into a fresh run of a throwaway\n"
	"store (fsyncs and sealing included), beside Python's\n"
	"'for line in f: json.loads(line)' over the same file, warm in the page cache; the two\n"
	"alternate, who goes first swapping every repetition, the first repetition dropped.\n"
	"Each repetition also ingests the file again as a second route and times 'labrun\n"
	"compare' of the two sets. Wall time of every process. Measured, not modelled.\n"
	"Recorded as a run (kind bench).\n";

int cmd_bench_ingest(const struct lr_global *g, int argc, char **argv)
{
	struct lr_ingestbench_opts o = { .responses = 100000, .tokens = 256, .reps = 3, .python = "/usr/bin/python3" };
	struct lr_ingestbench_result *r = malloc(sizeof *r);
	struct lr_bench_job job;
	struct lr_store *st = NULL;
	struct lr_table t;
	char self[4096];
	int rc, json = 0, exit_code, first;
	const struct cmd_opt opts[] = {
		CMD_I64(0, "responses", &o.responses, 1, 10000000, "N", "responses in the file (default 100000)"),
		CMD_I64(0, "tokens", &o.tokens, 1, 1 << 20, "N", "token ids a response (default 256)"),
		CMD_INT(0, "reps", &o.reps, 2, LR_INGESTBENCH_MAXREPS, "N", "repetitions of each, the first dropped (default 3)"),
		CMD_NONEMPTY(0, "python", &o.python, "PATH", "the peer's interpreter (default /usr/bin/python3)"),
		CMD_STRING(0, "dir", &o.dir, "DIR", "where the file and the throwaway store go (default: $TMPDIR, else /tmp)"),
		CMD_BOOL(0, "json", &json, "one JSON object at the end instead of the table"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };

	memset(&t, 0, sizeof t);
	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	o.argv = g->argv;
	o.envp = environ;
	if (!r)
		return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
	if ((exit_code = cmd_parse_options(&p, opts, argc, argv, &first)) ||
	    (exit_code = cmd_bench_dir(&o.dir, "; the responses file and a throwaway store go there")) ||
	    (exit_code = cmd_bench_self(self, sizeof self)) || (exit_code = cmd_store(&st, g)))
		goto out;
	o.self = self;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_ingestbench_peer(&o)) || (rc = lr_ingestbench_job_begin(&job, st, &o))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (!json) {
		printf("labrun bench ingest: %lld responses of %lld tokens, %d repetitions (first dropped); peer: %s, "
		       "'for line in f: json.loads(line)'\n", (long long)o.responses, (long long)o.tokens, o.reps, o.python);
		cmd_bench_host_line("");
		fflush(stdout);
	}
	rc = lr_ingestbench(&o, r);
	if (!rc)
		rc = lr_ingestbench_job_add(&job, r);
	if ((exit_code = cmd_bench_finish(&job, rc)))
		goto out;
	lr_render_bench_ingest_table(&t, r);
	if ((rc = lr_table_error(&t))) {
		exit_code = cmd_fail(rc);
	} else if (json) {
		json_t *root = json_pack("{s:I, s:I, s:I, s:i, s:I, s:s, s:s, s:b, s:o}", "run", (json_int_t)job.run.id,
					 "responses", (json_int_t)o.responses, "tokens", (json_int_t)o.tokens, "reps", o.reps,
					 "bytes", (json_int_t)r->bytes, "python", o.python, "labrun", PACKAGE_VERSION,
					 "modelled", 0, "commands", lr_render_table_json(&t));

		cmd_json_print(root);
	} else if ((rc = lr_render_table_text(stdout, &t, 2, 0))) {
		exit_code = cmd_fail(rc);
	} else {
		printf("the file: %.1f MB; x python: ingest's wall time over the peer's, repetition by repetition, their\n"
		       "median; wall time of each whole process; measured, not modelled\n"
		       "recorded run %lld (passed); 'labrun report --run %lld' prints this table again\n",
		       (double)r->bytes / 1e6, (long long)job.run.id, (long long)job.run.id);
	}
out:
	lr_table_release(&t);
	lr_bench_job_release(&job);
	free(r);
	return exit_code;
}
