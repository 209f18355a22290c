#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/manifest.h"
#include "evidence/select.h"
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
	struct cmd_crate_files cf = { 0 };
	const char *validate = NULL, *out = NULL;
	struct lr_store *st = NULL;
	int64_t *ids = NULL, *all = NULL;
	int n = 0, nall = 0;
	char deflt[320], title[400], name[280], *held[3] = { NULL, NULL, NULL };
	int rc = 0, entities = 0, placeholder = 0, allow = 0, first;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF", "every run that is evidence for REF (repeatable)"),
		CMD_LIST(0, "run", &runs, "ID", "the run: a short id, uuid prefix or 'last' (repeatable)"),
		CMD_STRING(0, "validate", &validate, "DIR", "check the crate in DIR against docs/manifest.md"),
		CMD_STRING('o', "output", &out, "DIR", "the crate directory, created (default labrun-crate-run-ID or -issue-REF)"),
		CMD_STRING(0, "license", &co.license, "NAME", "the license entity's name (default: the store's manifest.license\nsetting, else 'not declared', with a warning)"),
		CMD_STRING(0, "author", &co.author, "NAME", "the DataCite creator for the hub (default: the manifest.author setting)"),
		CMD_STRING(0, "publisher", &co.publisher, "NAME", "the DataCite publisher (default: the manifest.publisher setting)"),
		CMD_BOOL(0, "allow-findings", &allow, "\n(they are printed either way; without it the crate is refused)"),
		CMD_END,
	};
	const struct cmd_parse p = { "manifest", usage, 0, 0, NULL, 0, NULL };

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
	if ((rc = cmd_open_store(&st, g)))
		goto done_opts;
	if ((rc = lr_evidence_select(st, &runs, &issues, "write a crate for", &ids, &n, name, sizeof name)) ||
	    (rc = lr_crate_runs(st, ids, n, &all, &nall)) || (rc = cmd_scan_runs(st, all, nall, allow, "write the crate")))
		goto done;
	snprintf(deflt, sizeof deflt, "labrun-crate-%s", name);
	if (runs.n == 1 && !issues.n)
		snprintf(title, sizeof title, "labrun evidence: run %lld", (long long)ids[0]);
	else if (issues.n == 1 && !runs.n)
		snprintf(title, sizeof title, "labrun evidence for issue %s", issues.v[0]);
	else
		snprintf(title, sizeof title, "labrun evidence: %d runs", n);
	co.title = title;
	if ((rc = cmd_crate_files(st, all, nall, title, &cf)))
		goto done;
	co.files = cf.files;
	co.nfiles = cf.n;
	if ((rc = lr_crate_opts_settle(st, &co, held, &placeholder)) ||
	    (rc = lr_crate_write(st, all, nall, out ? out : deflt, &co)))
		goto done;
	if (placeholder)
		cmd_warn_license(co.license);
	if (!lr_crate_validate(out ? out : deflt, &entities))
		printf("crate '%s' written: %d run(s), %d entities, valid\n", out ? out : deflt, nall, entities);
done:
	lr_crate_opts_release(held);
	cmd_crate_files_release(&cf);
	free(ids);
	free(all);
	lr_store_free(st);
	rc = rc ? cmd_fail(rc) : LR_EXIT_OK;
done_opts:
	lr_strlist_release(&runs);
	lr_strlist_release(&issues);
	return rc;
}
