/* labrun bench remote: push and pull of many runs and a GiB of objects, time and peak memory. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/options.h"
#include "experiment/remotebench.h"
#include "record/hostinfo.h"
#include "store/remote.h"

static const char usage[] =
	"usage: labrun bench remote [NAME] [--runs N] [--reps N] [--object-mib M] [--dir DIR]\n"
	"\n"
	"Fill a throwaway store with N synthetic experiment runs holding the given\n"
	"repetitions and MiB of objects between them, push them to remote NAME (the only\n"
	"remote when there is one) and pull them into a second throwaway store, as a user\n"
	"runs both commands. Prints each command's wall time, throughput and peak resident\n"
	"set size (measured). Each invocation makes new objects, so none is on the remote\n"
	"before. The runs stay on the remote; both stores are removed.\n"
	"Recorded as a run (kind bench).\n";

static int print(const struct lr_remotebench_opts *o, const struct lr_remotebench_result *r)
{
	struct lr_table t;
	int rc;

	lr_render_bench_remote_table(&t, r);
	if (!(rc = lr_table_error(&t)) && !(rc = lr_render_table_text(stdout, &t, 0, 0))) {
		printf("%d runs, %lld repetitions, %.0f MiB of objects (generated in %.2f s); measured, not modelled\n",
		       o->runs, (long long)o->reps, (double)r->bytes / (1 << 20), r->generate_s);
	}
	lr_table_release(&t);
	return rc;
}

int cmd_bench_remote(const struct lr_global *g, int argc, char **argv)
{
	struct lr_remotebench_opts o;
	struct lr_remotebench_result r;
	struct lr_bench_job job;
	struct lr_store *st = NULL;
	char self[4096], *name = NULL, *uri = NULL;
	int64_t mib = 1024;
	int rc, first, exit_code;
	const struct cmd_opt opts[] = {
		CMD_INT(0, "runs", &o.runs, 1, 1000000, "N", "runs (default 1000)"),
		CMD_I64(0, "reps", &o.reps, 0, 100000000, "N", "repetitions in all (default 10000)"),
		CMD_I64(0, "object-mib", &mib, 0, 1 << 20, "M", "MiB of objects in all, one object a run (default 1024)"),
		CMD_STRING(0, "dir", &o.dir, "DIR", "where the throwaway stores go (default: $TMPDIR, else /tmp)"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage, .max = 1, .operands = "at most the remote's NAME" };

	memset(&o, 0, sizeof o);
	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	o.runs = 1000;
	o.reps = 10000;
	o.argv = g->argv;
	o.envp = environ;
	o.seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid(); /* new objects every time: none is on the remote yet */
	if ((exit_code = cmd_parse_options(&p, opts, argc, argv, &first)) || (exit_code = cmd_bench_dir(&o.dir, "")) ||
	    (exit_code = cmd_bench_self(self, sizeof self)) || (exit_code = cmd_store(&st, g)))
		goto out;
	o.self = self;
	o.object_bytes = mib << 20;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_store_remote_get(st, first < argc ? argv[first] : NULL, &name, &uri)) ||
	    (rc = lr_remotebench_job_begin(&job, st, (o.remote = name, o.uri = uri, &o)))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	printf("labrun bench remote: %d runs, %lld repetitions, %lld MiB of objects, to remote '%s' and back\n", o.runs,
	       (long long)o.reps, (long long)mib, name);
	cmd_bench_host_line("");
	fflush(stdout);
	if (!(rc = lr_remotebench(&o, &r)))
		rc = lr_remotebench_job_add(&job, &r);
	if ((exit_code = cmd_bench_finish(&job, rc)))
		goto out;
	if ((rc = print(&o, &r))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	printf("recorded run %lld (passed); 'labrun report --run %lld' prints this table again\n", (long long)job.run.id,
	       (long long)job.run.id);
out:
	lr_bench_job_release(&job);
	free(name);
	free(uri);
	return exit_code;
}
