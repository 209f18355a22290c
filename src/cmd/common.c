/* What the evidence commands (manifest, archive, scan, audit, verify, pull) share. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "evidence/manifest.h"
#include "evidence/scan.h"
#include "evidence/select.h"

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
	for (i = 0; !rc && i < files->n; i++)
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
