#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "base/walk.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "report/doc.h"
#include "report/report.h"
#include "experiment/report.h"
#include "serving/report.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun report (--issue REF | --run ID | --experiment NAME) [--metric NAME|all]...\n"
			    "                     [--format md|csv|json|html|text|tidy] [-o FILE] [--max-chars N]\n"
			    "\n"
			    "Regenerate the comparison tables of experiment runs from the store alone: for every\n"
			    "matching run (oldest first), one table per arm against the baseline with a row per\n"
			    "condition (medians, the paired reduction, its 95% interval, blocks, flagged\n"
			    "repetitions, verdict), parity counts with every failed or missing condition named,\n"
			    "the exact command, source hashes, binding, geometry and tool versions; a table\n"
			    "per further metric a harness wrote (--metric, [report] metrics), marked exploratory;\n"
			    "and the recorded runs (record, import), each with how it ended and the checks its\n"
			    "command reported through $LABRUN_CHECKS. The same store gives the same bytes.\n"
			    "Markdown is GitHub-flavoured, ready for an issue comment: a summary, then the detail\n"
			    "in folded sections, within --max-chars characters (the sections that do not fit are\n"
			    "left out whole, and named). With -o, the signed ledger head goes beside FILE as\n"
			    "FILE.head.json, for 'labrun audit --head FILE.head.json'.\n";

/* What write_body writes. */
struct body {
	enum lr_format format;
	const struct lr_report *rep;
	const struct lr_serving_report *sv;
	const struct lr_run *run;
	const char *title;
	size_t max_chars;
};

static int write_body(FILE *f, const void *arg)
{
	const struct body *b = arg;

	if (b->run->kind == LR_KIND_BENCH)
		return lr_render_bench_run(f, b->run, b->format);
	return lr_render_report_max(f, b->format, b->rep, b->sv, b->title, b->max_chars);
}

/* The signed ledger head (the envelope, one line). */
static int write_head(FILE *f, const void *arg)
{
	fprintf(f, "%s\n", (const char *)arg);
	return ferror(f) ? lr_error_set(LR_EIO, "cannot write the signed ledger head: %s", strerror(errno)) : 0;
}

/* What 'fn' writes, to stdout (out NULL), or to OUT replaced atomically (a temporary file, then rename). */
static int write_to(const char *out, int (*fn)(FILE *, const void *), const void *arg)
{
	FILE *f = stdout;
	char *tmp = NULL;
	int rc = 0;

	if (out && (rc = lr_output_replaceable(out)))
		return rc;
	if (out && asprintf(&tmp, "%s.tmp-%ld", out, (long)getpid()) < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (out && !(f = fopen(tmp, "w"))) {
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
		free(tmp);
		return rc;
	}
	rc = fn(f, arg);
	if (out) {
		if (fclose(f) != 0 || (!rc && rename(tmp, out) != 0))
			rc = rc ? rc : lr_error_set(LR_EIO, "cannot write '%s': %s", out, strerror(errno));
		if (rc)
			unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* The report to stdout or OUT; with OUT, the signed head beside it as OUT.head.json (a store with a ledger). */
static int write_report(const char *out, const struct body *b)
{
	char *head = NULL;
	int rc = write_to(out, write_body, b);

	if (rc || !out || b->run->kind == LR_KIND_BENCH || !b->rep->head_statement)
		return rc;
	if (asprintf(&head, "%s.head.json", out) < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = write_to(head, write_head, b->rep->head_statement);
	free(head);
	return rc;
}

/* --routes A,B,... and --metric NAME: appended, so the option may be repeated. */
static int routes_opt(const struct cmd_parse *p, const struct cmd_opt *opt, const char *arg)
{
	int rc;

	(void)p;
	return (rc = cmd_split_list(opt->value, arg)) ? cmd_fail(rc) : 0;
}

/* --routes and --metric, as given. */
struct lists {
	struct lr_strlist routes, metrics;
};

static void lists_release(struct lists *l)
{
	lr_strlist_release(&l->routes);
	lr_strlist_release(&l->metrics);
}

/* The report's rows: an experiment report with its serving evidence (a benchmark run has tables of its own). */
static int gather(struct lr_store *st, const struct lr_run_filter *flt, const struct lr_run *run, int64_t run_id,
		  const struct lists *l, const char *title, struct lr_report *rep, struct lr_serving_report *sv)
{
	int rc;

	if (run->kind == LR_KIND_BENCH && l->metrics.n) {
		rc = lr_error_set(LR_EINVAL, "cannot report metric '%s' of run %lld: it is a benchmark run",
				  l->metrics.v[0], (long long)run_id);
		lr_error_hint("--metric is for experiment runs, whose executions write metrics");
		return rc;
	}
	if (run->kind == LR_KIND_BENCH)
		return 0;
	if (!(rc = lr_report_build_asked(
		      st, flt, run_id, &(struct lr_report_ask){ (const char *const *)l->metrics.v, (int)l->metrics.n },
		      rep)))
		rc = lr_serving_report_build(st, rep->ids, rep->nids, (const char *const *)l->routes.v,
					     (int)l->routes.n, sv);
	if (rc == LR_ENOTFOUND || (!rc && !rep->nruns && !rep->nrecords && !sv->nrows)) {
		rc = lr_error_set(LR_ENOTFOUND,
				  "cannot report on %s: no experiment or recorded runs match, and no serving evidence",
				  title);
		lr_error_hint("'labrun list' shows the runs; reports cover runs of 'labrun run', 'labrun record' and "
			      "'labrun import', and ingested responses");
	}
	return rc;
}

/* "issue 270", "experiment NAME" or "run 7". */
static void report_title(char *title, size_t len, const struct lr_run_filter *flt, int64_t run_id)
{
	if (flt->issue)
		snprintf(title, len, "issue %s", flt->issue);
	else if (flt->experiment)
		snprintf(title, len, "experiment %s", flt->experiment);
	else
		snprintf(title, len, "run %lld", (long long)run_id);
}

int cmd_report(const struct lr_global *g, int argc, char **argv)
{
	struct lr_run_filter flt = { .status = -1 };
	const char *out = NULL, *run_ref = NULL;
	struct lr_store *st = NULL;
	struct lr_report rep;
	struct lr_serving_report sv;
	struct lr_run run; /* with --run: the run, for its kind */
	struct lists l = { { 0 }, { 0 } };
	char issue[CMD_ISSUE_BUF] = "", title[320];
	int64_t run_id = 0, max_chars = LR_REPORT_MAX_CHARS;
	int rc = 0, fmt = 0, first;
	enum lr_format format;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF",
			     "runs that are evidence for REF (270, owner/repo#827)"),
		CMD_STRING(0, "run", &run_ref, "ID",
			   "one run (an experiment, a run holding responses, or a bench run)"),
		CMD_STRING(0, "experiment", &flt.experiment, "NAME", "runs of one experiment"),
		CMD_CALLBACK(
			0, "metric", &l.metrics, routes_opt, "NAME",
			"also a table per arm pair of this metric its executions wrote,\nmarked exploratory (repeatable; all: every one)"),
		CMD_CHOICE(
			0, "format", &fmt, lr_format_names, "F",
			"md (default), csv, json, html (one self-contained file with an\ninline SVG chart per condition), text (for a terminal), or tidy (every\ntable cell as one long CSV table)"),
		CMD_STRING(
			'o', "output", &out, "FILE",
			"write to FILE (replaced atomically) instead of standard output, and\nthe signed ledger head to FILE.head.json"),
		CMD_I64(0, "max-chars", &max_chars, 0, INT64_MAX, "N",
			"Markdown: at most N characters (default 65536, an issue comment's\nlimit; 0: no limit; else at least 1024)"),
		CMD_CALLBACK(
			0, "routes", &l.routes, routes_opt, "A,B,...",
			"serving evidence: the route columns, in this order (default: all,\nin order of appearance)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "report", .usage = usage };

	memset(&rep, 0, sizeof rep);
	memset(&sv, 0, sizeof sv);
	lr_run_init(&run);
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lists_release(&l);
		return rc;
	}
	format = (enum lr_format)fmt;
	flt.issue = issue[0] ? issue : NULL;
	if (!!flt.issue + !!run_ref + !!flt.experiment != 1 || (max_chars && max_chars < LR_DOC_FIT_MIN)) {
		lists_release(&l);
		return cmd_usage_error(
			"report", "%s",
			max_chars && max_chars < LR_DOC_FIT_MIN
				? "--max-chars is 0 (no limit) or at least 1024, room for the closing line"
				: "give exactly one of --issue, --run and --experiment");
	}
	if ((rc = cmd_store(&st, g)))
		return rc;
	if (run_ref &&
	    ((rc = lr_store_run_resolve(st, run_ref, &run_id)) || (rc = lr_store_run_load(st, run_id, &run))))
		goto out;
	report_title(title, sizeof title, &flt, run_id);
	if ((rc = gather(st, &flt, &run, run_id, &l, title, &rep, &sv)))
		goto out;
	rc = write_report(out, &(struct body){ format, &rep, &sv, &run, title, (size_t)max_chars });
out:
	lr_report_release(&rep);
	lr_serving_report_release(&sv);
	lr_run_release(&run);
	lists_release(&l);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
