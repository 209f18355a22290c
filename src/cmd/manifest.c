#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/manifest.h"
#include "evidence/settings.h"

static const char usage[] =
	"usage: labrun manifest (--issue REF | --run ID) [-o DIR] [--license NAME] [--author NAME]\n"
	"                       [--publisher NAME] [--allow-findings]\n"
	"       labrun manifest --validate DIR\n"
	"\n"
	"Write an RO-Crate 1.2 (Process Run Crate profile) for a run or every run of an issue:\n"
	"DIR holds each run's run.json, logs, artifacts and (experiments) definition and\n"
	"repetitions, ro-crate-metadata.json with one CreateAction per run (failed runs too)\n"
	"and the software used, and manifest-sha256.txt. labrun validates every crate it\n"
	"writes against the REQUIRED rules of docs/manifest.md and refuses to leave an\n"
	"invalid one. --validate checks any crate the same way.\n"
	"\n"
	"  -o DIR           the crate directory, created (default labrun-crate-run-ID or -issue-REF)\n"
	"  --license NAME   the license entity's name (default: the store's manifest.license\n"
	"                   setting, else 'not declared', with a warning)\n"
	"  --author NAME, --publisher NAME   DataCite fields for the hub (default: the\n"
	"                   manifest.author and manifest.publisher settings; see labrun config)\n"
	"  --allow-findings write the crate even when 'labrun scan' has new findings in the runs\n"
	"                   (they are printed either way; without it the crate is refused)\n";

int cmd_manifest(const struct lr_global *g, int argc, char **argv)
{
	struct lr_crate_opts co = { 0 };
	struct lr_run_filter f = { .status = -1 };
	const char *run_ref = NULL, *validate = NULL, *out = NULL;
	struct lr_store *st = NULL;
	int64_t *ids = NULL;
	int n = 0;
	char issue[CMD_ISSUE_BUF] = "", deflt[320], title[400], name[280], *held[3] = { NULL, NULL, NULL };
	int rc = 0, entities = 0, placeholder = 0, allow = 0, first;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue),
		CMD_STRING(0, "run", &run_ref),
		CMD_STRING(0, "validate", &validate),
		CMD_STRING('o', "output", &out),
		CMD_STRING(0, "license", &co.license),
		CMD_STRING(0, "author", &co.author),
		CMD_STRING(0, "publisher", &co.publisher),
		CMD_BOOL(0, "allow-findings", &allow),
		CMD_END,
	};
	const struct cmd_parse p = { "manifest", usage, 0, 0, NULL, 0 };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc < 0 ? LR_EXIT_OK : rc;
	f.issue = issue[0] ? issue : NULL;
	if (!!f.issue + !!run_ref + !!validate != 1)
		return cmd_usage_error("manifest", "give exactly one of --issue, --run and --validate");

	if (validate) {
		if ((rc = lr_crate_validate(validate, &entities))) {
			cmd_fail(rc);
			return LR_EXIT_FAIL; /* the crate failed its checks */
		}
		printf("crate '%s' is valid: %d entities pass the REQUIRED checks\n", validate, entities);
		return LR_EXIT_OK;
	}
	if ((rc = cmd_open_store(&st, g)))
		return rc;
	if ((rc = cmd_evidence_runs(st, run_ref, f.issue, "write a crate for", &ids, &n, name, sizeof name)) ||
	    (rc = cmd_scan_runs(st, ids, n, allow, "write the crate")))
		goto done;
	snprintf(deflt, sizeof deflt, "labrun-crate-%s", name);
	if (run_ref)
		snprintf(title, sizeof title, "labrun evidence: run %lld", (long long)ids[0]);
	else
		snprintf(title, sizeof title, "labrun evidence for issue %s", f.issue);
	co.title = title;
	if ((rc = lr_crate_opts_settle(st, &co, held, &placeholder)) ||
	    (rc = lr_crate_write(st, ids, n, out ? out : deflt, &co)))
		goto done;
	if (placeholder)
		cmd_warn_license(co.license);
	if (!lr_crate_validate(out ? out : deflt, &entities))
		printf("crate '%s' written: %d run(s), %d entities, valid\n", out ? out : deflt, n, entities);
done:
	lr_crate_opts_release(held);
	free(ids);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
