#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "report/doc.h"
#include "report/report.h"
#include "experiment/report.h"
#include "serving/report.h"
#include "store/runs.h"

static const char usage[] =
	"usage: labrun report (--issue REF | --run ID | --experiment NAME) [--format md|csv|json|html|text] [-o FILE]\n"
	"\n"
	"Regenerate the comparison tables of experiment runs from the store alone: for every\n"
	"matching run (oldest first), one table per arm against the baseline with a row per\n"
	"condition (medians, the paired reduction, its 95% interval, blocks, flagged\n"
	"repetitions, verdict), parity counts with every failed or missing condition named,\n"
	"the exact command, source hashes, binding, geometry and tool versions; then the\n"
	"recorded runs (record, import), each with how it ended and the checks its command\n"
	"reported through $LABRUN_CHECKS. The same store gives the same bytes. Markdown is\n"
	"GitHub-flavoured, ready for an issue comment.\n";

/* The report in FORMAT to stdout, or to OUT replaced atomically (a temporary file, then rename). */
static int write_report(const char *out, enum lr_format format, const struct lr_report *rep,
			const struct lr_serving_report *sv, const struct lr_run *run, const char *title)
{
	FILE *f = stdout;
	char *tmp = NULL;
	int rc = 0;

	if (out && asprintf(&tmp, "%s.tmp-%ld", out, (long)getpid()) < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (out && !(f = fopen(tmp, "w"))) {
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
		free(tmp);
		return rc;
	}
	if (run->kind == LR_KIND_BENCH)
		rc = lr_render_bench_run(f, run, format);
	else
		rc = lr_render_report(f, format, rep, sv, title);
	if (out) {
		if (fclose(f) != 0 || (!rc && rename(tmp, out) != 0))
			rc = rc ? rc : lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
		if (rc)
			unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* --routes A,B,...: appended, so the option may be repeated. */
static int routes_opt(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	int rc;

	(void)p;
	return (rc = cmd_split_list(opt->value, arg)) ? cmd_fail(rc) : 0;
}

int cmd_report(const struct lr_global *g, int argc, char **argv)
{
	struct lr_run_filter flt = { .status = -1 };
	const char *out = NULL, *run_ref = NULL;
	struct lr_store *st = NULL;
	struct lr_report rep;
	struct lr_serving_report sv;
	struct lr_run run; /* with --run: the run, for its kind */
	struct lr_strlist routes = { 0 };
	char issue[CMD_ISSUE_BUF] = "", title[320];
	int64_t run_id = 0;
	int rc = 0, fmt = 0, first;
	enum lr_format format;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF",
			     "runs that are evidence for REF (270, owner/repo#827)"),
		CMD_STRING(0, "run", &run_ref, "ID",
			   "one run (an experiment, a run holding responses, or a bench run)"),
		CMD_STRING(0, "experiment", &flt.experiment, "NAME", "runs of one experiment"),
		CMD_CHOICE(
			0, "format", &fmt, lr_format_names, "F",
			"md (default), csv, json, html (one self-contained file with an\ninline SVG chart per condition), or text (for a terminal)"),
		CMD_STRING('o', "output", &out, "FILE",
			   "write to FILE (replaced atomically) instead of standard output"),
		CMD_CALLBACK(
			0, "routes", &routes, routes_opt, "A,B,...",
			"serving evidence: the route columns, in this order (default: all,\nin order of appearance)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "report", .usage = usage };

	memset(&rep, 0, sizeof rep);
	memset(&sv, 0, sizeof sv);
	lr_run_init(&run);
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lr_strlist_release(&routes);
		return rc;
	}
	format = (enum lr_format)fmt;
	flt.issue = issue[0] ? issue : NULL;
	if (!!flt.issue + !!run_ref + !!flt.experiment != 1) {
		lr_strlist_release(&routes);
		return cmd_usage_error("report", "give exactly one of --issue, --run and --experiment");
	}
	if ((rc = cmd_store(&st, g)))
		return rc;
	if (run_ref &&
	    ((rc = lr_store_run_resolve(st, run_ref, &run_id)) || (rc = lr_store_run_load(st, run_id, &run))))
		goto out;
	if (flt.issue)
		snprintf(title, sizeof title, "issue %s", flt.issue);
	else if (flt.experiment)
		snprintf(title, sizeof title, "experiment %s", flt.experiment);
	else
		snprintf(title, sizeof title, "run %lld", (long long)run_id);
	if (run.kind == LR_KIND_BENCH)
		; /* a benchmark run: its own tables, below */
	else if (!(rc = lr_report_build(st, &flt, run_id, &rep)))
		rc = lr_serving_report_build(st, rep.ids, rep.nids, (const char *const *)routes.v, (int)routes.n, &sv);
	if (run.kind != LR_KIND_BENCH && (rc == LR_ENOTFOUND || (!rc && !rep.nruns && !rep.nrecords && !sv.nrows))) {
		rc = lr_error_set(LR_ENOTFOUND,
				  "cannot report on %s: no experiment or recorded runs match, and no serving evidence",
				  title);
		lr_error_hint("'labrun list' shows the runs; reports cover runs of 'labrun run', 'labrun record' and "
			      "'labrun import', and ingested responses");
	}
	if (rc)
		goto out;
	rc = write_report(out, format, &rep, &sv, &run, title);
out:
	lr_report_release(&rep);
	lr_serving_report_release(&sv);
	lr_run_release(&run);
	lr_strlist_release(&routes);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
