/* What the evidence commands (manifest, archive, scan, audit, verify, pull) share. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "evidence/scan.h"

static int print_new_finding(void *arg, const struct lr_finding *f)
{
	(void)arg;
	if (!f->baselined)
		fprintf(stderr, "%s:%ld: %s %s\n", f->file, f->line, f->rule, f->fingerprint);
	return 0;
}

int cmd_scan_runs(struct lr_store *st, const int64_t *runs, int n, int allow, const char *what)
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
			lr_error_hint("remove them, accept them in the baseline (labrun scan --run ID --write-baseline "
				      LR_SCAN_BASELINE "), or pass --allow-findings");
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
