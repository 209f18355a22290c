#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/manifest.h"
#include "evidence/settings.h"

static const char usage[] =
	"usage: labrun manifest (--issue REF | --run ID)... [-o DIR] [--license NAME] [--author NAME]\n"
	"                       [--publisher NAME] [--allow-findings]\n"
	"       labrun manifest --validate DIR\n"
	"\n"
	"Write an RO-Crate 1.2 (Process Run Crate profile) for a run or every run of an issue:\n"
	"DIR holds each run's run.json, logs, artifacts and (experiments) definition and\n"
	"repetitions, ro-crate-metadata.json with one CreateAction per run (failed runs too)\n"
	"and the software used, and manifest-sha256.txt. labrun validates every crate it\n"
	"writes against the REQUIRED rules of docs/manifest.md and refuses to leave an\n"
	"invalid one. --validate checks any crate the same way. --run and --issue may be given\n"
	"several times; the crate also holds the runs theirs point at (a replay's original)\n"
	"and the A/A runs their reports name as noise floor, each run's rows (bundle.json) and\n"
	"a signed in-toto attestation (run.intoto.json), the report (report.md, report.json),\n"
	"the signed ledger head and crate.intoto.json: 'labrun verify DIR' checks it all.\n";

int cmd_manifest(const struct lr_global *g, int argc, char **argv)
{
	struct lr_crate_opts co = { 0 };
	struct lr_strlist runs = { 0 }, issues = { 0 };
	struct cmd_crate_job j = { 0 };
	const char *validate = NULL, *out = NULL;
	char deflt[320], *held[3] = { NULL, NULL, NULL };
	int rc = 0, entities = 0, placeholder = 0, allow = 0, with_site = 0, first;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF",
			     "every run that is evidence for REF (repeatable)"),
		CMD_LIST(0, "run", &runs, "ID", "the run: a short id, uuid prefix, 'last' or 'last~N' (repeatable)"),
		CMD_STRING(0, "validate", &validate, "DIR", "check the crate in DIR against docs/manifest.md"),
		CMD_STRING('o', "output", &out, "DIR",
			   "the crate directory, created (default labrun-crate-run-ID or -issue-REF)"),
		CMD_STRING(
			0, "license", &co.license, "NAME",
			"the license entity's name (default: the store's manifest.license\nsetting, else 'not declared', with a warning)"),
		CMD_STRING(0, "author", &co.author, "NAME",
			   "the DataCite creator for the hub (default: the manifest.author setting)"),
		CMD_STRING(0, "publisher", &co.publisher, "NAME",
			   "the DataCite publisher (default: the manifest.publisher setting)"),
		CMD_BOOL(
			0, "site", &with_site,
			"put the static site of the crate's runs ('labrun site') into site/,\neach file a File entity and a subject of the signed statement"),
		CMD_BOOL(0, "allow-findings", &allow,
			 "\n(they are printed either way; without it the crate is refused)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "manifest", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		goto done_opts;
	if (!!(runs.n || issues.n) + !!validate != 1) {
		rc = cmd_usage_error("manifest", "give --issue or --run (each as often as you like), or --validate");
		goto done_opts;
	}

	if (validate) {
		if ((rc = lr_crate_validate(validate, &entities))) {
			cmd_fail(rc);
			return LR_EXIT_FAIL; /* the crate failed its checks */
		}
		printf("crate '%s' is valid: %d entities pass the REQUIRED checks\n", validate, entities);
		return LR_EXIT_OK;
	}
	if ((rc = cmd_crate_job_open(&j, g, &runs, &issues, allow, "write a crate for", "write the crate")))
		goto done;
	snprintf(deflt, sizeof deflt, "labrun-crate-%s", j.name);
	co.title = j.title;
	co.site = with_site;
	if ((rc = lr_crate_opts_settle(j.st, &co, held, &placeholder)) ||
	    (rc = lr_crate_write(j.st, j.all, j.nall, out ? out : deflt, &co))) {
		rc = cmd_fail(rc);
		goto done;
	}
	if (placeholder)
		cmd_warn_license(co.license);
	if (!lr_crate_validate(out ? out : deflt, &entities))
		printf("crate '%s' written: %d run(s), %d entities, valid\n", out ? out : deflt, j.nall, entities);
done:
	lr_crate_opts_release(held);
	cmd_crate_job_release(&j);
done_opts:
	lr_strlist_release(&runs);
	lr_strlist_release(&issues);
	return rc;
}
