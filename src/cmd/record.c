#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "record/record.h"

extern char **environ;

static const char usage[] =
	"usage: labrun record [OPTIONS] -- COMMAND [ARGS...]\n"
	"\n"
	"Run COMMAND (no shell: pass 'sh -c ...' for one) and record it: sources (git HEAD,\n"
	"dirty files, diff hash), environment (secrets redacted), host, CPU binding, logs and\n"
	"artifacts. Output is shown as it comes and streamed into the store. Exits with the\n"
	"command's status; 124 on --timeout, 125 when labrun itself failed or a declared\n"
	"artifact is missing, 126/127 when the command cannot run, 128+N for signal N.\n"
	"\n"
	"Options:\n"
	"  --experiment NAME     file the run under an experiment\n"
	"  --issue REF           issue it is evidence for: 270 or owner/repo#827 (repeatable)\n"
	"  --geometry K=V        compiled geometry: model, layers, kv_heads, head_dim, tokens,\n"
	"                        batch, tp, width... (repeatable)\n"
	"  --binding K=V         device binding: device=atom:0, backend=sim... (repeatable;\n"
	"                        cpu_affinity, numa_nodes and thread settings are observed)\n"
	"  --tool NAME=VERSION   a tool version the run depends on (repeatable)\n"
	"  --artifact PATH       output file or directory, stored after the run; missing\n"
	"                        fails the run (repeatable)\n"
	"  --log PATH            a log file the command writes, stored after the run\n"
	"  --input PATH          input file or directory, stored before the run\n"
	"  --reference PATH      reference output, stored before the run\n"
	"  --follow-links        store what symlinks in --artifact/--log/--input/--reference\n"
	"                        point to (recorded as followed); by default a link is stored\n"
	"                        as a link, with its target. FIFOs and devices are refused\n"
	"  --source PATH         extra file or directory to hash as a source (e.g. a\n"
	"                        compiled model outside git) (repeatable)\n"
	"  --note TEXT           free text kept with the run\n"
	"  --timeout DURATION    stop the command after DURATION (e.g. 90, 90s, 5m, 2h)\n"
	"  --kill-after DURATION after a timeout or Ctrl-C, SIGKILL this long after SIGTERM\n"
	"                        (default 10s)\n"
	"  -q, --quiet           do not copy the command's output to the terminal\n"
	"  -h, --help            show this help\n";

/* "90", "1.5", "90s", "5m", "2h" -> seconds; -1 when malformed. */
static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v <= 0)
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

enum {
	OPT_EXPERIMENT = 256, OPT_ISSUE, OPT_GEOMETRY, OPT_BINDING, OPT_TOOL, OPT_ARTIFACT, OPT_LOG,
	OPT_INPUT, OPT_REFERENCE, OPT_SOURCE, OPT_NOTE, OPT_TIMEOUT, OPT_KILL_AFTER, OPT_FOLLOW,
};

static int parse(struct lr_record_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "experiment", required_argument, NULL, OPT_EXPERIMENT },
		{ "issue", required_argument, NULL, OPT_ISSUE },
		{ "geometry", required_argument, NULL, OPT_GEOMETRY },
		{ "binding", required_argument, NULL, OPT_BINDING },
		{ "tool", required_argument, NULL, OPT_TOOL },
		{ "artifact", required_argument, NULL, OPT_ARTIFACT },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "reference", required_argument, NULL, OPT_REFERENCE },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "note", required_argument, NULL, OPT_NOTE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "kill-after", required_argument, NULL, OPT_KILL_AFTER },
		{ "follow-links", no_argument, NULL, OPT_FOLLOW },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char norm[256];
	int c, rc = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FOLLOW:
			o->follow_links = 1;
			break;
		case OPT_EXPERIMENT:
			if (!*optarg)
				return cmd_usage_error("record", "--experiment needs a non-empty name");
			o->experiment = optarg;
			break;
		case OPT_ISSUE:
			if (lr_issue_normalize(optarg, norm, sizeof norm))
				return cmd_fail(LR_EINVAL);
			rc = lr_strlist_add(&o->issues, optarg);
			break;
		case OPT_GEOMETRY:
			rc = lr_fact_parse(&o->geometry, "--geometry", optarg);
			break;
		case OPT_BINDING:
			rc = lr_fact_parse(&o->binding, "--binding", optarg);
			break;
		case OPT_TOOL:
			rc = lr_fact_parse(&o->tools, "--tool", optarg);
			break;
		case OPT_ARTIFACT:
			rc = lr_strlist_add(&o->outputs, optarg);
			break;
		case OPT_LOG:
			rc = lr_strlist_add(&o->logs, optarg);
			break;
		case OPT_INPUT:
			rc = lr_strlist_add(&o->inputs, optarg);
			break;
		case OPT_REFERENCE:
			rc = lr_strlist_add(&o->references, optarg);
			break;
		case OPT_SOURCE:
			rc = lr_strlist_add(&o->sources, optarg);
			break;
		case OPT_NOTE:
			o->note = optarg;
			break;
		case OPT_TIMEOUT:
		case OPT_KILL_AFTER: {
			double d = parse_duration(optarg);

			if (d < 0)
				return cmd_usage_error("record", "invalid %s '%s': expected a positive duration such as 90, 90s, 5m or 2h",
						       c == OPT_TIMEOUT ? "--timeout" : "--kill-after", optarg);
			if (c == OPT_TIMEOUT)
				o->timeout_s = d;
			else
				o->kill_after_s = d;
			break;
		}
		case 'q':
			o->tee_out = o->tee_err = 0;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cmd_bad_option("record", argv, c);
		}
		if (rc)
			return cmd_fail(rc);
	}
	if (optind >= argc)
		return cmd_usage_error("record", "no command to record");
	o->argv = argv + optind;
	return 0;
}

int cmd_record(const struct lr_global *g, int argc, char **argv)
{
	struct lr_record_opts o = { 0 };
	struct lr_store *st = NULL;
	struct lr_run run;
	struct lr_record_result res = { .exit_status = LR_EXIT_LABRUN };
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
		exit_status = rc < 0 ? LR_EXIT_OK : LR_EXIT_LABRUN;
		goto out;
	}
	if ((rc = cmd_open_store(&st, g, 1)))
		goto out;
	rc = lr_record(st, &o, &run, &res);
	exit_status = res.exit_status;
	if (rc) {
		cmd_fail(rc);
		exit_status = LR_EXIT_LABRUN;
		goto out;
	}
	if (run.status == LR_PASSED) {
		fprintf(stderr, "labrun: recorded run %lld (passed, %.2f s)\n", (long long)run.id, run.wall_s);
	} else if (res.exec_failed || res.artifacts_failed) {
		fprintf(stderr, "labrun: error: run %lld failed: %s\n", (long long)run.id, run.failure);
		fprintf(stderr, "hint: %s; 'labrun show %lld' has the details\n",
			res.exec_failed ? "check the command name and PATH"
					: "declared paths are relative to the working directory",
			(long long)run.id);
	} else {
		fprintf(stderr, "labrun: recorded run %lld (%s: %s)\n", (long long)run.id,
			lr_status_name(run.status), run.failure);
	}
out:
	lr_record_opts_release(&o);
	lr_run_release(&run);
	lr_store_free(st);
	return exit_status;
}
