#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/archive.h"
#include "evidence/pack.h"
#include "evidence/settings.h"

static const char usage[] =
	"usage: labrun archive (--run ID | --issue REF) [-o FILE] [--prune] [--allow-findings]\n"
	"       labrun archive --verify FILE\n"
	"       labrun archive --extract FILE DIR\n"
	"\n"
	"Pack the evidence of a run, or of every run of an issue, into one .tar.zst: the runs'\n"
	"RO-Crate (per run run.json, logs, artifacts, and for experiment runs the definition\n"
	"and every repetition as CSV; ro-crate-metadata.json; manifest-sha256.txt) plus\n"
	"SHA256SUMS listing each member, so an extracted archive is a valid crate. --verify\n"
	"re-hashes every member; --extract checks every entry first and refuses absolute paths,\n"
	"'..', links and device files, writing nothing when one is found.\n"
	"\n"
	"  --run ID       the run (a short id, uuid prefix or 'last')\n"
	"  --issue REF    every run that is evidence for REF\n"
	"  -o FILE        the archive (default labrun-run-ID.tar.zst or labrun-issue-REF.tar.zst)\n"
	"  --prune        then remove from the store the logs only these runs use; 'labrun cat',\n"
	"                 audit and fsck read them from the archive from then on\n"
	"  --allow-findings  archive even when 'labrun scan' has new findings in the runs\n"
	"                 (they are printed either way; without it the archive is refused)\n";

int cmd_archive(const struct lr_global *g, int argc, char **argv)
{
	const char *run_ref = NULL, *verify = NULL, *extract = NULL, *out = NULL;
	struct lr_run_filter f = { .status = -1 };
	struct lr_store *st = NULL;
	int64_t *ids = NULL;
	int n = 0;
	char issue[CMD_ISSUE_BUF] = "", deflt[320], name[280];
	int rc = 0, members = 0, prune = 0, placeholder = 0, allow = 0, first;
	size_t pruned = 0;
	long long bytes = 0;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref),
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue),
		CMD_STRING(0, "verify", &verify),
		CMD_STRING(0, "extract", &extract),
		CMD_STRING('o', "output", &out),
		CMD_BOOL(0, "prune", &prune),
		CMD_BOOL(0, "allow-findings", &allow),
		CMD_END,
	};
	const struct cmd_parse p = { "archive", usage, 0, 1, NULL, 0 };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc < 0 ? LR_EXIT_OK : rc;
	f.issue = issue[0] ? issue : NULL;
	if (!!run_ref + !!f.issue + !!verify + !!extract != 1)
		return cmd_usage_error("archive", "give exactly one of --run, --issue, --verify and --extract");

	if (verify) {
		if (first < argc)
			return cmd_usage_error("archive", "unexpected argument '%s'", argv[first]);
		if ((rc = lr_archive_verify(verify, &members)))
			return cmd_fail(rc);
		printf("archive '%s': %d member(s) match SHA256SUMS\n", verify, members);
		return LR_EXIT_OK;
	}
	if (extract) {
		if (first + 1 != argc)
			return cmd_usage_error("archive", "--extract takes the archive and a target directory");
		if ((rc = lr_archive_extract(extract, argv[first], &members)))
			return cmd_fail(rc);
		printf("extracted %d file(s) from '%s' into '%s'\n", members, extract, argv[first]);
		return LR_EXIT_OK;
	}
	if (first < argc)
		return cmd_usage_error("archive", "unexpected argument '%s'", argv[first]);
	if ((rc = cmd_open_store(&st, g)))
		return rc;
	if ((rc = cmd_evidence_runs(st, run_ref, f.issue, "archive", &ids, &n, name, sizeof name)) ||
	    (rc = cmd_scan_runs(st, ids, n, allow, "archive")))
		goto done;
	snprintf(deflt, sizeof deflt, "labrun-%s.tar.zst", name);
	if ((rc = lr_evidence_archive(st, ids, n, out ? out : deflt, deflt, &placeholder)))
		goto done;
	if (placeholder)
		cmd_warn_license(LR_CRATE_NO_LICENSE);
	printf("archived %d run(s) into '%s'\n", n, out ? out : deflt);
	if (prune && !(rc = lr_evidence_prune(st, ids, n, out ? out : deflt, &pruned, &bytes)))
		printf("pruned %zu log object(s), %lld bytes, from the store; 'labrun cat' reads them from the archive\n",
		       pruned, bytes);
done:
	free(ids);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
