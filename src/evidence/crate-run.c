/* The files of a run's directory in a crate, from its rows: what manifest writes and verify compares. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/csv.h"
#include "base/safename.h"
#include "evidence/crate-run.h"
#include "record/runjson.h"
#include "store/experiments.h"
#include "store/ledger.h"

const char *lr_crate_artifact_path(char *buf, size_t len, int64_t run, const char *role, const char *name)
{
	char safe[PATH_MAX];

	/* "../x" or a name that is not UTF-8 must not escape the crate or break its JSON */
	if (!lr_safe_member(safe, sizeof safe, name))
		snprintf(safe, sizeof safe, "%s", "name-too-long");
	snprintf(buf, len, "run-%lld/%s/%s", (long long)run, role, safe);
	return buf;
}

/* The walk of lr_crate_run_files: where the files go, and the run's id for their names. */
struct walk {
	int64_t id;
	lr_run_file_fn fn;
	void *arg;
};

static int made(const struct walk *w, const char *name, const char *text, size_t len, int input)
{
	char rel[64];
	struct lr_run_file f = { rel, text, len, NULL, input };

	snprintf(rel, sizeof rel, "run-%lld/%s", (long long)w->id, name);
	return w->fn(w->arg, &f);
}

/* An execution's log or output, a responses file or an answer key, under run-ID/ by its safe name. */
static int evidence(void *arg, const char *name, const char *sha256, int input)
{
	const struct walk *w = arg;
	char safe[4096], rel[4200];
	struct lr_run_file f = { rel, NULL, 0, sha256, input };

	if (!lr_safe_member(safe, sizeof safe, name))
		return lr_error_set(LR_EINVAL, "run %lld: the evidence name '%s' is too long for a crate",
				    (long long)w->id, name);
	snprintf(rel, sizeof rel, "run-%lld/%s", (long long)w->id, safe);
	return w->fn(w->arg, &f);
}

static int csv_row(void *arg, const struct lr_sqlrow *row, int is_header)
{
	return lr_csv_write_row(arg, is_header ? row->names : row->values, row->ncol);
}

/* An experiment run's definition.ini and its repetitions as RFC 4180 CSV (repetitions.csv). */
static int experiment_files(struct lr_store *st, const struct walk *w)
{
	char *path = NULL, *text = NULL, *csv = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (lr_store_definition(st, w->id, &path, &text)) { /* a run of before definitions were kept */
		lr_error_clear();
		return 0;
	}
	if (!(rc = made(w, "definition.ini", text, strlen(text), 1))) {
		if (!(f = open_memstream(&csv, &len)))
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		else if (!(rc = lr_store_repetitions(st, w->id, csv_row, f)) && fclose(f))
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		else if (rc)
			fclose(f);
		if (!rc)
			rc = made(w, "repetitions.csv", csv, len, 0);
	}
	free(csv);
	free(path);
	free(text);
	return rc;
}

int lr_crate_run_files(struct lr_store *st, const struct lr_run *r, lr_run_file_fn fn, void *arg)
{
	struct walk w = { r->id, fn, arg };
	json_t *x = lr_run_json(r, 1);
	char *json = x ? json_dumps(x, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL, rel[4200];
	size_t i;
	int rc = json ? made(&w, "run.json", json, strlen(json), 0) : lr_error_set(LR_ENOMEM, "out of memory");

	json_decref(x);
	free(json);
	for (i = 0; !rc && i < r->nartifacts; i++) {
		const struct lr_artifact *a = &r->artifacts[i];
		struct lr_run_file f = { rel, NULL, 0, a->sha256,
					 !strcmp(a->role, "input") || !strcmp(a->role, "reference") };

		if (!a->present)
			continue;
		lr_crate_artifact_path(rel, sizeof rel, r->id, a->role, a->name);
		rc = fn(arg, &f);
	}
	if (!rc && r->kind == LR_KIND_EXPERIMENT)
		rc = experiment_files(st, &w);
	return rc ? rc : lr_store_run_evidence_objects(st, r->id, evidence, &w);
}
