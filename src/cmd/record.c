#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "base/size.h"
#include "base/clock.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "record/record.h"

extern char **environ;

static const char usage[] = "usage: labrun record [OPTIONS] -- COMMAND [ARGS...]\n"
			    "\n"
			    "Run COMMAND (no shell: pass 'sh -c ...' for one) and record it: sources (git HEAD,\n"
			    "dirty files, diff hash), environment (secrets redacted), host, CPU binding, logs and\n"
			    "artifacts. Output is shown as it comes and streamed into the store. The command may\n"
			    "append checks to the file $LABRUN_CHECKS names, a JSON object a line:\n"
			    "{\"name\": \"exactness\", \"passed\": 65536, \"total\": 65536}. Exits with the\n"
			    "command's status; 124 on --timeout, 125 when labrun itself failed, a declared\n"
			    "artifact is missing or a check line is bad, 126/127 when the command cannot run,\n"
			    "128+N for signal N.\n"
			    "\n"
			    "Options:\n";

/* --timeout, --kill-after DURATION into the double at opt->value. */
static int duration_opt(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	double d = lr_duration_parse(arg);

	if (d < 0)
		return cmd_usage_error(p->cmd,
				       "invalid --%s '%s': expected a positive duration such as 90, 90s, 5m or 2h",
				       opt->long_name, arg);
	*(double *)opt->value = d;
	return 0;
}

/* --max-output SIZE into the int64_t at opt->value. */
static int size_opt(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	int64_t v = lr_size_parse(arg);

	if (v <= 0)
		return cmd_usage_error(p->cmd, "invalid --%s '%s': expected a size such as 1048576, 64M or 2G",
				       opt->long_name, arg);
	*(int64_t *)opt->value = v;
	return 0;
}

static int parse(struct lr_record_opts *o, int argc, char **argv)
{
	int quiet = 0, rc, first;
	const struct cmd_opt opts[] = {
		CMD_NONEMPTY(0, "experiment", &o->experiment, "NAME", "file the run under an experiment"),
		CMD_CALLBACK(0, "issue", &o->issues, cmd_opt_issues, "REF",
			     "issue it is evidence for: 270 or owner/repo#827 (repeatable)"),
		CMD_FACT_OPTS(&o->facts, cmd_opt_fact),
		CMD_LIST(0, "artifact", &o->outputs, "PATH",
			 "output file or directory, stored after the run; missing\nfails the run (repeatable)"),
		CMD_LIST(0, "log", &o->logs, "PATH", "a log file the command writes, stored after the run"),
		CMD_LIST(0, "input", &o->inputs, "PATH", "input file or directory, stored before the run"),
		CMD_LIST(0, "reference", &o->references, "PATH", "reference output, stored before the run"),
		CMD_CALLBACK(0, "timeout", &o->timeout_s, duration_opt, "DURATION",
			     "stop the command after DURATION (e.g. 90, 90s, 5m, 2h)"),
		CMD_CALLBACK(0, "kill-after", &o->kill_after_s, duration_opt, "DURATION",
			     "after a timeout or Ctrl-C, SIGKILL this long after SIGTERM\n(default 10s)"),
		CMD_BOOL(
			0, "follow-links", &o->follow_links,
			"store what symlinks in --artifact/--log/--input/--reference\npoint to (recorded as followed); by default a link is stored\nas a link, with its target. FIFOs and devices are refused"),
		CMD_CALLBACK(
			0, "max-output", &o->max_output, size_opt, "SIZE",
			"keep at most SIZE bytes of each log (e.g. 64M, 2G); the\nterminal still sees everything, the run says what was cut\n(default: all: a run's logs are its evidence)"),
		CMD_BOOL('q', "quiet", &quiet, "do not copy the command's output to the terminal"),
		CMD_END,
	};
	/* options end at the command: its own options are never taken for labrun's */
	const struct cmd_parse p = { .cmd = "record", .usage = usage, .max = -1, .stop_at_operand = 1 };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (quiet)
		o->tee_out = o->tee_err = 0;
	if (first >= argc)
		return cmd_usage_error("record", "no command to record");
	o->argv = argv + first;
	return 0;
}

/* ", 2 checks, 1 failing" of a run whose command reported checks; "" when it reported none. */
static const char *checks_said(const struct lr_run *r, char *buf, size_t len)
{
	size_t failing = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->nchecks; i++)
		failing += r->checks[i].passed < r->checks[i].total;
	if (r->nchecks)
		snprintf(buf, len, ", %zu check%s, %zu failing", r->nchecks, r->nchecks == 1 ? "" : "s", failing);
	return buf;
}

int cmd_record(const struct lr_global *g, int argc, char **argv)
{
	struct lr_record_opts o = { 0 };
	struct lr_store *st = NULL;
	struct lr_run run;
	struct lr_record_result res = { .exit_status = LR_EXIT_LABRUN };
	char checks[64];
	int rc, exit_status = LR_EXIT_LABRUN;

	lr_run_init(&run);
	o.tee_out = STDOUT_FILENO;
	o.tee_err = STDERR_FILENO;
	o.kill_after_s = 10;
	o.envp = environ;
	/*
	 * record exits with the command's status, so its own failures, usage
	 * errors and an unusable store included, are 125 (as timeout(1) and
	 * env(1) do): a command that exits 2 or 3 must not look like labrun's.
	 */
	rc = parse(&o, argc, argv);
	if (rc) {
		exit_status = rc == CMD_HELP_SHOWN ? LR_EXIT_OK : LR_EXIT_LABRUN;
		goto out;
	}
	if ((rc = cmd_store(&st, g)))
		goto out;
	rc = lr_record(st, &o, &run, &res);
	exit_status = res.exit_status;
	if (rc) {
		cmd_fail(rc);
		exit_status = LR_EXIT_LABRUN;
		goto out;
	}
	for (int i = 0; i < 2; i++)
		if (run.dropped[i])
			fprintf(stderr,
				"labrun: warning: %s passed --max-output %lld: %lld byte(s) after the first %lld "
				"were not kept\n",
				i ? "stderr" : "stdout", (long long)run.output_cap, (long long)run.dropped[i],
				(long long)run.output_cap);
	if (run.status == LR_PASSED) {
		fprintf(stderr, "labrun: recorded run %lld (passed, %.2f s%s)\n", (long long)run.id, run.wall_s,
			checks_said(&run, checks, sizeof checks));
	} else if (res.exec_failed || res.artifacts_failed || res.checks_failed) {
		fprintf(stderr, "labrun: error: run %lld failed: %s\n", (long long)run.id, run.failure);
		fprintf(stderr, "hint: %s; 'labrun show %lld' has the details\n",
			res.exec_failed     ? "check the command name and PATH"
			: res.checks_failed ? "each line of $LABRUN_CHECKS is one JSON object, {\"name\": \"...\", "
					      "\"passed\": N, \"total\": N}, with 0 <= passed <= total"
					    : "declared paths are relative to the working directory",
			(long long)run.id);
	} else {
		fprintf(stderr, "labrun: recorded run %lld (%s: %s)\n", (long long)run.id, lr_status_name(run.status),
			run.failure);
	}
out:
	lr_record_opts_release(&o);
	lr_run_release(&run);
	return exit_status;
}
