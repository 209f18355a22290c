/* Which runs a piece of evidence holds (evidence/select.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "evidence/select.h"
#include "store/runs.h"

/* Add the ids of every run of 'issue' to *ids (grown), or fail naming the issue when it has none. */
static int issue_runs(struct lr_store *st, const char *issue, const char *what, int64_t **ids, int *n)
{
	struct lr_run_filter f = { .status = -1, .issue = issue };
	int64_t *more = NULL, *v;
	int k = 0, rc;

	if ((rc = lr_store_run_ids(st, &f, &more, &k)))
		return rc;
	if (!k) {
		free(more);
		lr_error_set(LR_ENOTFOUND, "cannot %s issue %s: no runs reference it", what, issue);
		lr_error_hint("'labrun list --issue %s' shows the runs that do", issue);
		return LR_ENOTFOUND;
	}
	if (!(v = realloc(*ids, (size_t)(*n + k) * sizeof *v))) {
		free(more);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	memcpy(v + *n, more, (size_t)k * sizeof *v);
	*ids = v;
	*n += k;
	free(more);
	return 0;
}

int lr_evidence_select(struct lr_store *st, const struct lr_strlist *runs, const struct lr_strlist *issues,
		       const char *what, int64_t **ids, int *n, char *name, size_t len)
{
	size_t i, k;
	int rc = 0;

	*ids = NULL;
	*n = 0;
	if (runs->n && !(*ids = malloc(runs->n * sizeof **ids)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < runs->n && !rc; i++)
		if (!(rc = lr_store_run_resolve(st, runs->v[i], *ids + *n)))
			(*n)++;
	for (i = 0; i < issues->n && !rc; i++)
		rc = issue_runs(st, issues->v[i], what, ids, n);
	if (rc) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return rc;
	}
	lr_ids_sort_unique(*ids, n); /* oldest first, each once */
	if (runs->n == 1 && !issues->n)
		snprintf(name, len, "run-%lld", (long long)(*ids)[0]);
	else if (issues->n == 1 && !runs->n)
		snprintf(name, len, "issue-%s", issues->v[0]);
	else
		snprintf(name, len, "runs-%lld-to-%lld", (long long)(*ids)[0], (long long)(*ids)[*n - 1]);
	for (k = 0; name[k]; k++)
		if (name[k] == '/' || name[k] == '#')
			name[k] = '-';
	return 0;
}
