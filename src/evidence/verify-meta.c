/* labrun verify: the RO-Crate metadata against the crate's files and each run's rows, and manifest-sha256.txt its list. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/lines.h"
#include "evidence/crate-run.h"
#include "evidence/verify-int.h"
#include "store/runs.h"

#define META "ro-crate-metadata.json"
#define BAG  "manifest-sha256.txt"

/* Each File entity: a file of the crate, with its sha256 and size. */
static void check_files(struct vctx *c, json_t *graph)
{
	char full[PATH_MAX * 2], size[32];
	struct stat sb;
	json_t *e;
	size_t i;

	json_array_foreach(graph, i, e) {
		const char *id = json_string_value(json_object_get(e, "@id")) ?: "",
			   *sha = json_string_value(json_object_get(e, "sha256")) ?: "", *have;

		if (strcmp(json_string_value(json_object_get(e, "@type")) ?: "", "File"))
			continue;
		if (!(have = lr_verify_file_sha(c, id))) {
			lr_verify_problem(c, META, "describes the file '%s', which the crate does not hold", id);
			continue;
		}
		snprintf(full, sizeof full, "%s/%s", c->dir, id);
		snprintf(size, sizeof size, "%lld", lstat(full, &sb) ? -1LL : (long long)sb.st_size);
		if (strcmp(have, "unreadable") && strcmp(have, sha))
			lr_verify_problem(c, META, "gives '%s' sha256 %.16s..., the file's is %.16s...", id, sha, have);
		else if (strcmp(json_string_value(json_object_get(e, "contentSize")) ?: "", size))
			lr_verify_problem(c, META, "gives '%s' %s bytes, the file has %s", id,
					  json_string_value(json_object_get(e, "contentSize")) ?: "no size", size);
	}
}

/* manifest-sha256.txt: the list of the File entities, as manifest writes it. */
static void check_bag(struct vctx *c, json_t *graph)
{
	char full[PATH_MAX * 2], *want = lr_crate_bag_text(graph), *have = NULL;
	struct lr_buf m = LR_BUF_INIT;
	size_t len = 0;

	snprintf(full, sizeof full, "%s/%s", c->dir, BAG);
	if (!lr_verify_has_file(c, BAG))
		lr_verify_problem(c, BAG, "is missing");
	else if (!want || lr_read_regular_text(BAG, full, 1u << 26, &have, &len))
		lr_verify_problem(c, BAG, "cannot be read: %s", want ? lr_error_msg() : "out of memory");
	else if (lr_verify_apart(&m, BAG, have, len, want, strlen(want), 1))
		lr_verify_problem(c, BAG, "is not the list of the files %s describes: %s", META, m.buf);
	lr_error_clear();
	lr_buf_release(&m);
	free(have);
	free(want);
}

/* The CreateAction of 'urn' in 'graph', or NULL. */
static json_t *action_of(json_t *graph, const char *urn)
{
	json_t *e;
	size_t i;

	json_array_foreach(graph, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "@type")) ?: "", "CreateAction") &&
		    !strcmp(json_string_value(json_object_get(e, "@id")) ?: "", urn))
			return e;
	return NULL;
}

/* A loaded run's CreateAction says what its rows say: what ran, when, and how it ended. */
static int check_action(struct vctx *c, json_t *graph, const struct vrun *r)
{
	json_t *have, *want = NULL;
	struct lr_buf m = LR_BUF_INIT;
	struct lr_run run;
	char urn[64];
	int rc;

	lr_run_init(&run);
	if ((rc = lr_store_run_load(c->v->st, r->id, &run)))
		goto out;
	snprintf(urn, sizeof urn, "urn:uuid:%s", run.uuid);
	if (!(have = action_of(graph, urn))) {
		lr_verify_problem(c, META, "describes no action of %s (%s)", r->dir, run.uuid);
		goto out;
	}
	if (!(want = lr_crate_action(&run, urn)) || !(have = json_deep_copy(have))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	json_object_del(have, "instrument"); /* the files and software: described apart, each checked above */
	json_object_del(have, "object");
	json_object_del(have, "result");
	if (lr_verify_json_apart(&m, have, want))
		lr_verify_problem(c, META, "the action of %s: %s", r->dir, m.buf);
	json_decref(have);
out:
	json_decref(want);
	lr_buf_release(&m);
	lr_run_release(&run);
	return rc;
}

int lr_verify_metadata(struct vctx *c)
{
	json_t *meta = lr_verify_read_json(c, META), *graph = json_object_get(meta, "@graph");
	size_t i;
	int rc = 0;

	if (meta && !json_is_array(graph))
		lr_verify_problem(c, META, "has no @graph");
	if (json_is_array(graph)) {
		check_files(c, graph);
		check_bag(c, graph);
		for (i = 0; i < c->nruns && !rc; i++)
			if (c->runs[i].id)
				rc = check_action(c, graph, &c->runs[i]);
	}
	json_decref(meta);
	return rc;
}
