/* in-toto Statements in DSSE envelopes, written into crates. */
#include "config.h"
#include "base/system.h"

#include "base/dsse.h"
#include "base/error.h"
#include "base/sha256.h"
#include "evidence/attest.h"
#include "evidence/manifest.h"
#include "experiment/report.h"
#include "store/remote.h"
#include "store/runs.h"

int lr_attest_subject(json_t *subjects, const char *dir, const char *rel)
{
	char full[PATH_MAX * 2], hex[LR_SHA256_HEX];
	int rc;

	snprintf(full, sizeof full, "%s/%s", dir, rel);
	if ((rc = lr_sha256_file(full, hex, NULL)))
		return rc;
	if (json_array_append_new(subjects, json_pack("{s:s, s:{s:s}}", "name", rel, "digest", "sha256", hex)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

int lr_attest_text(const struct lr_signer *s, json_t *subjects, const char *predicate_type, json_t *predicate,
		   char **text)
{
	json_t *stmt = json_pack("{s:s, s:O, s:s, s:O}", "_type", LR_INTOTO_STATEMENT, "subject", subjects,
				 "predicateType", predicate_type, "predicate", predicate),
	       *env = NULL;
	char *payload = NULL;
	int rc = 0;

	*text = NULL;
	if (!stmt || !(payload = json_dumps(stmt, JSON_COMPACT | JSON_SORT_KEYS)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if (!(rc = lr_dsse_sign(s, LR_INTOTO_PAYLOAD_TYPE, payload, strlen(payload), &env)) &&
		 !(*text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	json_decref(stmt);
	json_decref(env);
	free(payload);
	return rc;
}

int lr_attest_write(const struct lr_signer *s, const char *dir, const char *rel, json_t *subjects,
		    const char *predicate_type, json_t *predicate)
{
	char *text = NULL, full[PATH_MAX * 2];
	FILE *f = NULL;
	int rc;

	if ((rc = lr_attest_text(s, subjects, predicate_type, predicate, &text)))
		return rc;
	snprintf(full, sizeof full, "%s/%s", dir, rel);
	if (!(f = fopen(full, "wx")) || fputs(text, f) == EOF || fputc('\n', f) == EOF)
		rc = lr_error_set(LR_EIO, "cannot write '%s'", full);
	if (f && fclose(f) != 0 && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s'", full);
	free(text);
	return rc;
}

/* Add 'id' to the set v[0..*n) unless it is there; *added says it was new. */
static int add_run(int64_t **v, int *n, int *cap, int64_t id, int *added)
{
	int i;

	*added = 0;
	for (i = 0; i < *n; i++)
		if ((*v)[i] == id)
			return 0;
	if (*n == *cap) {
		int64_t *w = realloc(*v, (size_t)(*cap ? 2 * *cap : 16) * sizeof *w);

		if (!w)
			return lr_error_set(LR_ENOMEM, "out of memory");
		*v = w;
		*cap = *cap ? 2 * *cap : 16;
	}
	(*v)[(*n)++] = id;
	*added = 1;
	return 0;
}

/* The runs run 'id''s rows point at, and the A/A run and earlier design its report names, added to the set. */
static int run_needs(struct lr_store *st, int64_t id, int64_t **v, int *n, int *cap)
{
	struct lr_report rep;
	struct lr_bundle b;
	int64_t other;
	size_t i;
	int rc, added, k;

	memset(&b, 0, sizeof b);
	if (!(rc = lr_store_run_bundle(st, id, &b)))
		for (i = 0; i < b.needs.n && !rc; i++)
			if (!(rc = lr_store_run_resolve(st, b.needs.v[i], &other)))
				rc = add_run(v, n, cap, other, &added);
	lr_bundle_release(&b);
	if (rc == LR_EINVAL) /* still running: no bundle, nothing it points at yet */
		rc = 0;
	if (rc || (rc = lr_report_build_runs(st, &id, 1, &rep)))
		return rc == LR_ENOTFOUND ? 0 : rc;
	for (k = 0; k < rep.nruns && !rc; k++)
		if (rep.runs[k].aa_run)
			rc = add_run(v, n, cap, rep.runs[k].aa_run, &added);
	for (k = 0; k < rep.nruns && !rc; k++) /* the earlier run a changed design is named against */
		if (rep.runs[k].prereg.earlier)
			rc = add_run(v, n, cap, rep.runs[k].prereg.earlier, &added);
	lr_report_release(&rep);
	return rc;
}

int lr_crate_runs(struct lr_store *st, const int64_t *runs, int n, int64_t **out, int *nout)
{
	int64_t *v = NULL;
	int cap = 0, k = 0, i, added, rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = add_run(&v, &k, &cap, runs[i], &added);
	for (i = 0; i < k && !rc; i++) /* the set grows while it is walked: what is added is walked too */
		rc = run_needs(st, v[i], &v, &k, &cap);
	if (rc) {
		free(v);
		return rc;
	}
	lr_ids_sort_unique(v, &k);
	*out = v;
	*nout = k;
	return 0;
}
