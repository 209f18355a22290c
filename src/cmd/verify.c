#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/trust.h"
#include "base/walk.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/archive.h"
#include "evidence/verify.h"
#include "report/text.h"

static const char usage[] = "usage: labrun verify [--trust FILE]... [--key FILE] [--allow-unsigned] [--progress] PATH\n"
			    "\n"
			    "Check a crate (a directory 'labrun manifest' wrote) or an archive ('labrun archive')\n"
			    "as a reviewer with no store: every file against the signed subjects of\n"
			    "crate.intoto.json and of each run's run.intoto.json, every signature against the keys\n"
			    "you trust (never a key because the crate carries it), the ledger entries the crate\n"
			    "carries recomputed and chained to its signed head, each run's rows giving its seal,\n"
			    "and its report and site rebuilt from its rows with the code 'labrun report' and\n"
			    "'labrun site' use and compared block by block, cell by cell, page by page and word\n"
			    "by word. Every mismatch is named. Creates no store: the rows\n"
			    "are loaded into a throwaway one under $TMPDIR. Exit 0 when all holds, 1 on any\n"
			    "problem, 2 on a usage error.\n";

static void print_problem(void *arg, const char *file, const char *problem)
{
	(void)arg;
	cmd_progress_clear();
	/* names come from the crate: escaped, so none can end the line or forge another */
	fputs("PROBLEM ", stdout);
	lr_term_name(stdout, file);
	fputs(*file ? ": " : "", stdout);
	lr_term_name(stdout, problem);
	putchar('\n');
}

/* An error of verify as cmd_fail says it, but escaped: it may name a file of the crate. */
static int fail(int rc)
{
	char *msg = NULL, *hint = NULL;
	size_t len;
	FILE *m = open_memstream(&msg, &len);

	if (m) {
		lr_term_name(m, lr_error_msg());
		fclose(m);
	}
	if (msg && (hint = strdup(lr_error_hint_msg() ?: ""))) {
		lr_error_set(rc, "%s", msg);
		if (*hint)
			lr_error_hint("%s", hint);
	}
	free(hint);
	free(msg);
	return cmd_fail(rc);
}

/* An archive: its sums checked, then extracted into a new directory under $TMPDIR (*tmp, to remove). */
static int unpack(const char *path, char **tmp, char *dir, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");
	char sums[PATH_MAX + 16];
	int members = 0, rc;

	if (asprintf(tmp, "%s/labrun-verify-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (!mkdtemp(*tmp))
		return lr_error_set(LR_EIO, "cannot create a temporary directory: %s", strerror(errno));
	if ((rc = lr_archive_verify(path, &members)))
		return rc;
	snprintf(dir, len, "%s", *tmp);
	if ((rc = lr_archive_extract(path, dir, &members)))
		return rc;
	/* the archive's own list, checked above; the crate's files are what remains */
	snprintf(sums, sizeof sums, "%s/SHA256SUMS", dir);
	unlink(sums);
	return 0;
}

int cmd_verify(const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist trust_files = { 0 };
	struct lr_trust trust = { 0 };
	struct lr_verified v = { 0 };
	const char *key = NULL;
	char dir[PATH_MAX], *tmp = NULL;
	struct stat sb;
	int rc, allow = 0, problems = 0, progress = 0, first;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "trust", &trust_files, "FILE",
			 "also trust the keys of FILE (a PEM public key or trusted-keys lines)"),
		CMD_STRING(0, "key", &key, "FILE", "trust only this key (a PEM public key), not your configuration's"),
		CMD_BOOL(0, "allow-unsigned", &allow, "check a crate no trusted key signed all the same (and say so)"),
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
	if ((rc = cmd_trust_load(&trust, &trust_files, key)))
		goto out;
	if (stat(argv[first], &sb) != 0) {
		rc = lr_error_set(LR_ENOTFOUND, "cannot verify '%s': %s", argv[first], strerror(errno));
		goto out;
	}
	if (S_ISDIR(sb.st_mode))
		snprintf(dir, sizeof dir, "%s", argv[first]);
	else if ((rc = unpack(argv[first], &tmp, dir, sizeof dir)))
		goto out;
	cmd_progress_begin("labrun verify", progress, 0);
	rc = lr_crate_verify(dir, &trust, allow, print_problem, NULL, &problems, &v);
	cmd_progress_end();
	if (rc)
		goto out;
	if (v.st && ((rc = lr_verify_report(dir, &v, print_problem, NULL, &problems)) ||
		     (rc = lr_verify_site(dir, &v, print_problem, NULL, &problems))))
		goto out;
	if (!v.signer[0])
		printf("labrun: warning: no key you trust signed this crate%s%s%s%s\n", v.refused[0] ? " (" : "",
		       v.refused, v.refused[0] ? ")" : "",
		       allow ? " (--allow-unsigned): its files agree with each other, nothing more" : "");
	printf("verify: %d file(s) against their signed digests, %d run(s), %d ledger entr%s, %d run file(s) against "
	       "their sealed rows; signed by %s%s%s%s; %d problem(s)\n",
	       v.files, v.runs, v.entries, v.entries == 1 ? "y" : "ies", v.held,
	       v.signer[0] ? v.principal : "no trusted key", v.signer[0] ? " (" : "", v.signer[0] ? v.signer : "",
	       v.signer[0] ? ")" : "", problems);
out:
	lr_verified_release(&v);
	if (tmp) {
		lr_remove_tree(tmp);
		free(tmp);
	}
	lr_trust_release(&trust);
	lr_strlist_release(&trust_files);
	if (rc)
		return fail(rc);
	return problems ? LR_EXIT_FAIL : LR_EXIT_OK;
}
