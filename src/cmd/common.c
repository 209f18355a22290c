/* What the evidence commands (manifest, archive, scan, audit, verify, pull) share. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/progress.h"
#include "evidence/manifest.h"
#include "evidence/publish.h"
#include "evidence/scan.h"
#include "evidence/select.h"
#include "evidence/verify-path.h"
#include "report/text.h"
#include "store/runs.h"

static int print_new_finding(void *arg, const struct lr_finding *f)
{
	(void)arg;
	if (!f->baselined)
		fprintf(stderr, "%s:%ld: %s %s\n", f->file, f->line, f->rule, f->fingerprint);
	return 0;
}

/*
 * Scan runs[0..n) as they would be published (lr_scan_run) with the store's
 * scan settings; new findings are printed to stderr and, unless 'allow',
 * refuse the publication (LR_EREFUSED). 'what' names it ("write the crate").
 */
static int scan_runs(struct lr_store *st, const int64_t *runs, int n, int allow, const char *what)
{
	struct lr_scanner s;
	int i, rc;

	if ((rc = lr_scanner_settle(&s, st, NULL, NULL)))
		return rc;
	for (i = 0; i < n && !rc; i++)
		rc = lr_scan_run(&s, st, runs[i], print_new_finding, NULL);
	if (!rc && s.found > s.baselined) {
		if (allow) {
			fprintf(stderr, "labrun: warning: %ld new scan finding(s) published (--allow-findings)\n",
				s.found - s.baselined);
		} else {
			rc = lr_error_set(LR_EREFUSED, "refusing to %s: the scan has %ld new finding(s), listed above",
					  what, s.found - s.baselined);
			lr_error_hint(
				"remove them, accept them in the baseline (labrun scan --run ID --write-baseline " LR_SCAN_BASELINE
				"), or pass --allow-findings");
		}
	}
	lr_scanner_release(&s);
	return rc;
}

int cmd_trust_load(struct lr_trust *t, const struct lr_strlist *files, const char *only)
{
	size_t i;
	int rc;

	memset(t, 0, sizeof *t);
	rc = only ? lr_trust_add_file(t, only) : lr_trust_load(t);
	for (i = 0; !rc && files && i < files->n; i++)
		rc = lr_trust_add_file(t, files->v[i]);
	return rc;
}

int cmd_crate_job_open(struct cmd_crate_job *j, const struct lr_global *g, const struct lr_strlist *runs,
		       const struct lr_strlist *issues, int allow, const char *select_verb, const char *scan_verb)
{
	int rc;

	memset(j, 0, sizeof *j);
	if ((rc = cmd_store(&j->st, g)))
		return rc;
	if ((rc = lr_store_snapshot_begin(j->st)))
		return cmd_fail(rc);
	j->snapshot = 1;
	if ((rc = lr_evidence_select(j->st, runs, issues, select_verb, &j->ids, &j->n, j->name, sizeof j->name)) ||
	    (rc = lr_crate_runs(j->st, j->ids, j->n, &j->all, &j->nall)) ||
	    (rc = scan_runs(j->st, j->all, j->nall, allow, scan_verb)))
		return cmd_fail(rc);
	if (runs->n == 1 && !issues->n)
		snprintf(j->title, sizeof j->title, "labrun evidence: run %lld", (long long)j->ids[0]);
	else if (issues->n == 1 && !runs->n)
		snprintf(j->title, sizeof j->title, "labrun evidence for issue %s", issues->v[0]);
	else
		snprintf(j->title, sizeof j->title, "labrun evidence: %d runs", j->n);
	return 0;
}

void cmd_crate_job_end_snapshot(struct cmd_crate_job *j)
{
	if (j->snapshot)
		lr_store_snapshot_end(j->st);
	j->snapshot = 0;
}

void cmd_crate_job_release(struct cmd_crate_job *j)
{
	cmd_crate_job_end_snapshot(j);
	free(j->ids);
	free(j->all);
	memset(j, 0, sizeof *j);
}

void cmd_json_print(json_t *o)
{
	json_dumpf(o, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(o);
}

void cmd_print_problem(void *arg, const char *file, const char *problem)
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
static int verify_fail(int rc)
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

/*
 * An archive's copy, read back from its bucket ('uri') or fetched by a reviewer with the statement
 * beside it ('path' and 'statement'), into 'f': its digest and signed statement checked.
 */
static int check_copy(const char *cmd, const char *path, const char *statement, const struct lr_trust *t, int allow,
		      struct lr_fetched *f, int *problems)
{
	int rc, remote = !strncmp(path, "s3://", 5);

	if ((rc = remote ? lr_archive_fetch(cmd, path, f) : lr_fetched_local(path, statement, f)))
		return rc;
	printf("copy '%s': %lld bytes %s, sha256 %s\n", f->key, (long long)f->size, remote ? "read back" : "here",
	       f->sha256);
	return cmd_judge_copy(f, t, allow, problems);
}

int cmd_judge_copy(const struct lr_fetched *f, const struct lr_trust *t, int allow, int *problems)
{
	char principal[128], why[512], what[400];
	int rc;

	snprintf(what, sizeof what, "copy %s", f->key);
	if ((rc = lr_fetched_check(f, t, principal, why)) && rc != LR_EREFUSED)
		return rc;
	if (rc || (!principal[0] && !allow)) {
		cmd_print_problem(NULL, what, rc ? why : "its statement is not signed by a key you trust");
		if (!rc)
			printf("  (%s)\n", why);
		++*problems;
	} else if (principal[0]) {
		printf("copy '%s': its statement names these bytes, signed by %s\n", f->key, principal);
	} else {
		printf("labrun: warning: the statement beside the copy is not signed by a key you trust (%s) "
		       "(--allow-unsigned)\n",
		       why);
	}
	return 0;
}

int cmd_verify_path(const char *cmd, const char *path, const char *statement, const struct lr_strlist *files,
		    const char *only, int allow, int progress)
{
	struct lr_trust t = { 0 };
	struct lr_verified v = { 0 };
	struct lr_fetched f = { 0 };
	int rc, problems = 0, members = 0;

	if ((rc = cmd_trust_load(&t, files, only)))
		goto out;
	cmd_progress_begin(cmd, progress, 0);
	if (!strncmp(path, "s3://", 5) || statement) { /* a copy: its statement checked, then the archive */
		rc = check_copy(cmd, path, statement, &t, allow, &f, &problems);
		if (rc || problems) { /* what its own statement does not vouch for is not unpacked */
			cmd_progress_end();
			if (!rc)
				printf("verify: the archive was not unpacked: its copy does not hold; %d problem(s)\n",
				       problems);
			goto out;
		}
		path = f.path;
	}
	rc = lr_verify_path(path, &t, allow, cmd_print_problem, NULL, &problems, &members, &v);
	cmd_progress_end();
	if (rc)
		goto out;
	if (members) {
		fputs("archive '", stdout);
		lr_term_name(stdout, path);
		printf("': %d member(s) match SHA256SUMS (a list no one signs: the crate's statements are checked too)\n",
		       members);
	}
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
	lr_fetched_release(&f);
	lr_verified_release(&v);
	lr_trust_release(&t);
	if (rc)
		return verify_fail(rc);
	return problems ? LR_EXIT_FAIL : LR_EXIT_OK;
}

/* The runs 'cmd' takes: those of --issue, or each --run, or every run; oldest first (a replay after the run it
 * replays). */
int cmd_select_runs(struct lr_store *st, const char *cmd, const char *issue, const struct lr_strlist *refs,
		    int64_t **ids, int *n)
{
	struct lr_run_filter f = { .issue = *issue ? issue : NULL, .status = -1 };
	size_t i;
	int rc = 0;

	if (!refs->n) {
		if (!(rc = lr_store_run_ids(st, &f, ids, n)) && !*n && f.issue) {
			rc = lr_error_set(LR_ENOTFOUND, "cannot %s issue %s: no runs reference it", cmd, issue);
			lr_error_hint("'labrun list --issue %s' shows what the store has", issue);
		}
		return rc;
	}
	if (!(*ids = calloc(refs->n, sizeof **ids)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < refs->n && !rc; i++)
		rc = lr_store_run_resolve(st, refs->v[i], &(*ids)[(*n)++]);
	return rc;
}
