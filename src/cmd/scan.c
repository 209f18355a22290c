#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/walk.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/scan.h"
#include "evidence/select.h"
#include "record/checks.h"
#include "record/gitsrc.h"

static const char usage[] = "usage: labrun scan [PATH...] [--run ID | --issue REF | --changed REV] [OPTIONS]\n"
			    "\n"
			    "Look for what must not be published: private keys, provider access tokens (GitHub,\n"
			    "GitLab, AWS, Slack, Hugging Face, OpenAI, Google), passwords in URLs, credential files\n"
			    "by name (.netrc, .git-credentials, .pgpass, id_rsa, ...) and internal host/address\n"
			    "patterns. Each finding is printed as FILE:LINE: RULE FINGERPRINT, never with the\n"
			    "matched text. Fingerprints in the baseline are accepted and not printed. Exit 0 when\n"
			    "there is no new finding, 1 when there is. With no PATH, --run, --issue or --changed,\n"
			    "the working directory is scanned.\n";

struct scan_out {
	FILE *baseline; /* --write-baseline, or NULL */
	long shown;
};

static int print_finding(void *arg, const struct lr_finding *f)
{
	struct scan_out *o = arg;

	if (o->baseline)
		fprintf(o->baseline, "%s %s:%ld %s\n", f->fingerprint, f->file, f->line, f->rule);
	if (f->baselined)
		return 0;
	printf("%s:%ld: %s %s\n", f->file, f->line, f->rule, f->fingerprint);
	o->shown++;
	return 0;
}

/* The targets of --run/--issue, or every path given (or those changed against --changed). */
static int scan_targets(struct lr_scanner *s, struct lr_store *st, const char *run_ref, const char *issue,
			const struct lr_strlist *paths, struct scan_out *o)
{
	int64_t *ids = NULL;
	char name[64];
	size_t i;
	int n = 0, k, rc = 0;

	if (run_ref || issue) {
		struct lr_strlist runs = { 0 }, issues = { 0 };

		if ((run_ref && (rc = lr_strlist_add(&runs, run_ref))) ||
		    (issue && (rc = lr_strlist_add(&issues, issue))) ||
		    (rc = lr_evidence_select(st, &runs, &issues, "scan", &ids, &n, name, sizeof name))) {
			lr_strlist_release(&runs);
			lr_strlist_release(&issues);
			return rc;
		}
		lr_strlist_release(&runs);
		lr_strlist_release(&issues);
		for (k = 0; k < n && !rc; k++)
			rc = lr_scan_run(s, st, ids[k], print_finding, o);
		free(ids);
		return rc;
	}
	for (i = 0; i < paths->n && !rc; i++)
		rc = lr_scan_path(s, paths->v[i], print_finding, o);
	return rc;
}

/*
 * Under 'labrun record' ($LABRUN_CHECKS set): what the scan found, as a check
 * of the recorded run, its scope in its name so two scans of one run differ.
 */
static int append_check(const struct lr_scanner *s, const char *run_ref, const char *issue, const char *changed,
			const struct lr_strlist *paths)
{
	const char *file = getenv(LR_CHECKS_ENV);
	struct lr_buf scope = LR_BUF_INIT;
	struct lr_check c;
	json_t *utf8;
	int rc;

	if (!file || !*file)
		return 0;
	if (run_ref || issue || changed)
		lr_buf_addf(&scope, "%s %.60s",
			    run_ref ? "run"
			    : issue ? "issue"
				    : "changed against",
			    run_ref ? run_ref
			    : issue ? issue
				    : changed);
	for (size_t i = 0; i < paths->n && !changed && !(paths->n == 1 && !strcmp(paths->v[0], ".")); i++)
		lr_buf_addf(&scope, "%s%s", i ? ", " : "", paths->v[i]);
	utf8 = json_string(scope.len ? scope.buf : "");
	if (!utf8 || (!changed && scope.len > 60)) { /* a long list, or names that are not text: how many */
		lr_buf_reset(&scope);
		lr_buf_addf(&scope, "%zu paths", paths->n);
	}
	json_decref(utf8);
	if ((rc = lr_buf_error(&scope)) || (rc = lr_scan_check(s, scope.len ? scope.buf : NULL, &c))) {
		lr_buf_release(&scope);
		return rc;
	}
	rc = lr_checks_append(file, &c);
	lr_check_release(&c);
	lr_buf_release(&scope);
	return rc;
}

int cmd_scan(const struct lr_global *g, int argc, char **argv)
{
	const char *run_ref = NULL, *issue = NULL, *changed = NULL, *baseline = NULL, *write = NULL;
	struct lr_strlist internal = { 0 }, paths = { 0 };
	struct scan_out o = { NULL, 0 };
	struct lr_scanner s = { 0 };
	struct lr_store *st = NULL;
	struct lr_global local;
	char cwd[4096], norm[CMD_ISSUE_BUF] = "";
	int rc = 0, modes, first;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref, "ID",
			   "a stored run as it would be published (run.json, logs, artifacts)"),
		CMD_CALLBACK(0, "issue", norm, cmd_opt_issue, "REF", "every run of an issue"),
		CMD_STRING(0, "changed", &changed, "REV",
			   "only the files changed against git revision REV (and untracked ones)"),
		CMD_STRING(
			0, "baseline", &baseline, "FILE",
			"accepted fingerprints (default: the 'scan.baseline' setting, else\n.labrun-scan-baseline when it exists here)"),
		CMD_LIST(0, "internal", &internal, "REGEX",
			 "an internal host/address pattern (repeatable; also 'scan.internal')"),
		CMD_STRING(0, "write-baseline", &write, "FILE",
			   "write every finding's fingerprint to FILE, to accept them"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "scan", .usage = usage, .max = -1 };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		lr_strlist_release(&internal);
		return rc;
	}
	issue = norm[0] ? norm : NULL;
	modes = !!run_ref + !!issue + !!changed;
	if (modes > 1 || (modes && first < argc)) {
		lr_strlist_release(&internal);
		return cmd_usage_error("scan", "give PATHs, or one of --run, --issue and --changed");
	}

	/* a scan of paths reads the store's settings when there is one; it needs none */
	local = *g;
	if (!run_ref && !issue)
		local.mode = CMD_MAY_READ;
	if ((rc = cmd_store(&st, &local)))
		goto out;
	for (; first < argc && !rc; first++)
		rc = lr_strlist_add(&paths, argv[first]);
	if (!rc && changed)
		rc = getcwd(cwd, sizeof cwd) ? lr_git_changed(&paths, cwd, changed)
					     : lr_error_set(LR_EIO, "cannot read the working directory");
	else if (!rc && !modes && !paths.n)
		rc = lr_strlist_add(&paths, ".");
	if (rc || (rc = lr_scanner_settle(&s, st, &internal, baseline)))
		goto fail;
	if (write && ((rc = lr_output_replaceable(write)) || !(o.baseline = fopen(write, "w")))) {
		rc = rc ? rc : lr_error_set(LR_EIO, "cannot write baseline '%s': %s", write, strerror(errno));
		goto fail;
	}
	rc = scan_targets(&s, st, run_ref, issue, &paths, &o);
	if (o.baseline && fclose(o.baseline) && !rc)
		rc = lr_error_set(LR_EIO, "cannot write baseline '%s'", write);
	if (rc || (rc = append_check(&s, run_ref, issue, changed, &paths)))
		goto fail;
	fprintf(stderr,
		"scan: %ld file(s), %ld skipped (binary, link or special); %ld finding(s): %ld new, %ld baselined\n",
		s.files, s.skipped, s.found, s.found - s.baselined, s.baselined);
	rc = s.found > s.baselined && !write ? LR_EXIT_FAIL : LR_EXIT_OK;
	goto out;
fail:
	rc = cmd_fail(rc);
out:
	lr_scanner_release(&s);
	lr_strlist_release(&internal);
	lr_strlist_release(&paths);
	return rc;
}
