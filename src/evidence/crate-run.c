/* The files of a run's directory in a crate, from its rows: what manifest writes and verify compares. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/csv.h"
#include "base/jsonbytes.h"
#include "evidence/crate-file.h"
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

/* The run as an RO-Crate CreateAction: what ran (the command line), when, and how it ended. */
json_t *lr_crate_action(const struct lr_run *r, const char *urn)
{
	json_t *argv = json_loads(r->argv_json, 0, NULL), *action;
	char *cmdline = NULL;
	size_t k, len = 0;
	FILE *f = open_memstream(&cmdline, &len);

	for (k = 0; f && argv && k < json_array_size(argv); k++)
		fprintf(f, "%s%s", k ? " " : "", lr_json_bytes_text(json_array_get(argv, k)));
	if (f)
		fclose(f);
	json_decref(argv);
	action = json_pack("{s:s, s:s, s:s, s:s, s:s}", "@id", urn, "@type", "CreateAction", "name",
			   lr_run_kind_name(r->kind), "startTime", r->started_at, "description",
			   cmdline ? cmdline : r->argv_json);
	free(cmdline);
	if (!action)
		return NULL;
	if (r->ended_at)
		json_object_set_new(action, "endTime", json_string(r->ended_at));
	json_object_set_new(action, "actionStatus",
			    lr_crate_ref(r->status == LR_PASSED ? "http://schema.org/CompletedActionStatus"
								: "http://schema.org/FailedActionStatus"));
	if (r->status != LR_PASSED)
		json_object_set_new(action, "error", json_string(r->failure ? r->failure : lr_status_name(r->status)));
	return action;
}

char *lr_crate_bag_text(json_t *graph)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (i = 0; i < json_array_size(graph); i++) {
		json_t *e = json_array_get(graph, i);

		if (!strcmp(json_string_value(json_object_get(e, "@type")) ?: "", "File"))
			fprintf(f, "%s  %s\n", json_string_value(json_object_get(e, "sha256")) ?: "",
				json_string_value(json_object_get(e, "@id")) ?: "");
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
