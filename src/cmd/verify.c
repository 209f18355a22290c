#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"

static const char usage[] = "usage: labrun verify [--trust FILE]... [--key FILE] [--allow-unsigned] [--progress] PATH\n"
			    "       labrun verify [options] s3://BUCKET/PREFIX/archives/SHA256.tar.zst?...\n"
			    "       labrun verify [options] --statement SHA256.intoto.json ARCHIVE\n"
			    "\n"
			    "Check a crate (a directory 'labrun manifest' wrote) or an archive ('labrun archive')\n"
			    "as a reviewer with no store: every file against the signed subjects of\n"
			    "crate.intoto.json and of each run's run.intoto.json, every signature against the keys\n"
			    "you trust (never a key because the crate carries it), the ledger entries the crate\n"
			    "carries recomputed and chained to its signed head, each run's rows giving its seal,\n"
			    "every file of the run (run.json, logs, definition.ini, repetitions.csv) and its\n"
			    "RO-Crate action, and the report and site rebuilt from the rows with the code\n"
			    "'labrun report' and 'labrun site' use and compared block by block, cell by cell,\n"
			    "page by page and word by word. Every mismatch is named. Creates no store: the rows\n"
			    "are loaded into a throwaway one under $TMPDIR. Exit 0 when all holds, 1 on any\n"
			    "problem, 2 on a usage error. Given an archive's copy in a bucket ('labrun archive\n"
			    "--to'), it is read back and checked the same way, and also against its name and the\n"
			    "signed statement beside it; --statement does that for an archive and statement\n"
			    "fetched with the URLs 'labrun share URI' prints.\n";

int cmd_verify(const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist trust_files = { 0 };
	const char *key = NULL, *statement = NULL;
	int rc, allow = 0, progress = 0, first;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "trust", &trust_files, "FILE",
			 "also trust the keys of FILE (a PEM public key or trusted-keys lines)"),
		CMD_STRING(0, "key", &key, "FILE", "trust only this key (a PEM public key), not your configuration's"),
		CMD_BOOL(0, "allow-unsigned", &allow, "check a crate no trusted key signed all the same (and say so)"),
		CMD_STRING(0, "statement", &statement, "FILE",
			   "the archive's copy statement (SHA256.intoto.json), fetched beside it"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "verify", .usage = usage, .min = 1, .max = 1, .operands = "the crate directory or archive"
	};

	(void)g;
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lr_strlist_release(&trust_files);
		return rc;
	}
	if (statement && !strncmp(argv[first], "s3://", 5))
		rc = cmd_usage_error("verify",
				     "--statement goes with an archive on this host: a copy's is read beside it");
	else
		rc = cmd_verify_path("labrun verify", argv[first], statement, &trust_files, key, allow, progress);
	lr_strlist_release(&trust_files);
	return rc;
}
