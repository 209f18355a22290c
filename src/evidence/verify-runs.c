/* labrun verify: a crate's runs from their rows: each bundle gives its seal, and loaded, every file of the run. */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/strmap.h"
#include "evidence/crate-run.h"
#include "evidence/sigstore.h"
#include "evidence/verify-int.h"
#include "store/designreg.h"
#include "store/objects.h"
#include "store/runs.h"

/* The newest entry ledger.json holds for run 'uuid', or NULL. */
static json_t *newest_entry(struct vctx *c, const char *uuid)
{
	json_t *e, *best = NULL;
	size_t i;

	json_array_foreach(c->ledger, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "run_uuid")) ?: "", uuid))
			best = e;
	return best;
}

/* A run's rows: bundle.json gives its seal, which its attestation and its newest ledger entry name. */
static int check_bundle(struct vctx *c, struct vrun *r)
{
	const char *uuid = json_string_value(json_object_get(r->pred, "runUuid")) ?: "",
		   *seal = json_string_value(json_object_get(r->pred, "sealDigest")),
		   *bsha = json_string_value(json_object_get(r->pred, "bundleSha256")), *sha;
	char rel[64], full[PATH_MAX * 2], *text = NULL;
	size_t len = 0;
	json_t *e;
	int rc = 0;

	snprintf(rel, sizeof rel, "%s/bundle.json", r->dir);
	if (!seal) /* still running when the crate was written: no rows to give a seal */
		return 0;
	if (!(sha = lr_verify_file_sha(c, rel))) {
		lr_verify_problem(c, rel, "is missing: run %s cannot be recomputed", uuid);
		return 0;
	}
	if (bsha && strcmp(sha, bsha))
		lr_verify_problem(c, rel, "is not the bundle %s/run.intoto.json names", r->dir);
	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (!strcmp(sha, "unreadable")) /* named by file_sha */
		return 0;
	if (lr_read_regular_text(rel, full, LR_CRATE_JSON_MAX, &text, &len)) { /* bounded: a crate is anyone's */
		lr_verify_problem(c, rel, "cannot be read: %s", lr_error_msg());
		lr_error_clear();
		return 0;
	}
	if (!rc && lr_bundle_parse(&r->b, text, sha)) {
		lr_verify_problem(c, rel, "%s", lr_error_msg());
	} else if (!rc) {
		r->bundled = 1;
		if (strcmp(r->b.uuid, uuid) || strcmp(r->b.seal, seal))
			lr_verify_problem(
				c, rel, "is run %s with seal %.16s..., its attestation says run %s with seal %.16s...",
				r->b.uuid, r->b.seal, uuid, seal);
		e = newest_entry(c, uuid);
		if (!e || strcmp(json_string_value(json_object_get(e, "content")) ?: "", seal))
			lr_verify_problem(c, "ledger.json", "run %s: its newest entry does not hold its seal %.16s...",
					  uuid, seal);
	}
	free(text);
	return rc;
}

int lr_verify_bundles(struct vctx *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < c->nruns && !rc; i++)
		rc = check_bundle(c, &c->runs[i]);
	return rc;
}

static int by_run_id(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(((const struct vrun *)a)->pred, "runId")),
		   y = json_integer_value(json_object_get(((const struct vrun *)b)->pred, "runId"));

	return x < y ? -1 : x > y;
}

/* The files a statement signs (hashed, so regular when looked at) into the throwaway store's objects; no other. */
static int put_objects(struct vctx *c)
{
	char full[PATH_MAX * 2], hex[LR_SHA256_HEX];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->files.n; i++) {
		const char *sum = c->files.v[i].value;

		if (!sum[0] || !strcmp(sum, "unreadable"))
			continue;
		snprintf(full, sizeof full, "%s/%s", c->dir, c->files.v[i].key);
		rc = lr_obj_put_file(c->v->tmp, full, hex, NULL, NULL, NULL);
	}
	return rc;
}

/* A run loaded from its bundle as 'id': its rows give the design its design entry registered before its blocks. */
static int check_design(struct vctx *c, const struct vrun *r, int64_t id)
{
	struct lr_design_reg reg;
	char now[LR_SHA256_HEX];
	int rc;

	if ((rc = lr_store_design_reg(c->v->st, id, &reg)) || !reg.seq ||
	    (rc = lr_store_design_digest(c->v->st, id, now, NULL)) || !strcmp(now, reg.content))
		return rc;
	lr_verify_problem(
		c, "ledger.json",
		"run %s: its design differs from the design registered in its ledger entry %lld (digest %.12s..., "
		"its rows give %.12s...): the design was changed after it was registered",
		r->b.uuid, (long long)reg.seq, reg.content, now);
	return 0;
}

/* The crate's runs in a throwaway store, in the order they were recorded, each after the runs it points at. */
/* A run's files as its sealed rows give them (lr_crate_run_files), against the crate's. */
struct held {
	struct vctx *c;
	const struct vrun *r;
	struct lr_strmap seen; /* the files the rows give */
};

/* One file the rows give: the crate holds it, with the bytes (or the object) the rows give. */
static int held_file(void *arg, const struct lr_run_file *f)
{
	struct held *h = arg;
	struct lr_buf m = LR_BUF_INIT;
	char want[LR_SHA256_HEX], full[PATH_MAX * 2], *text = NULL;
	const char *have;
	size_t len = 0;
	int rc;

	if ((rc = lr_strmap_put(&h->seen, f->rel, 1)))
		return rc;
	if (!f->text)
		snprintf(want, sizeof want, "%s", f->sha256);
	else if ((rc = lr_sha256_buf(f->text, f->len, want)))
		return rc;
	if (!(have = lr_verify_file_sha(h->c, f->rel))) {
		lr_verify_problem(h->c, f->rel, "is missing: %s's sealed rows hold it (sha256 %.16s...)", h->r->dir,
				  want);
		return 0;
	}
	h->c->v->held += !strcmp(have, want);
	if (!strcmp(have, want) || !strcmp(have, "unreadable"))
		return 0;
	snprintf(full, sizeof full, "%s/%s", h->c->dir, f->rel);
	if (f->text && !lr_read_regular_text(f->rel, full, 1u << 26, &text, &len) &&
	    !lr_verify_apart(&m, f->rel, text, len, f->text, f->len, h->c->strict))
		h->c->v->held++; /* an older labrun's layout of the same values */
	else
		lr_verify_problem(h->c, f->rel,
				  "%s%shas sha256 %.16s..., %s's sealed rows give %.16s...: changed after the run was "
				  "sealed",
				  m.len ? m.buf : "", m.len ? "; it " : "", have, h->r->dir, want);
	lr_error_clear();
	free(text);
	lr_buf_release(&m);
	return 0;
}

/*
 * Every file of loaded run 'r' against the bytes its sealed rows give (its
 * logs and artifacts by the digests the rows hold): a file changed, removed
 * or added under run-ID/ is named even when every statement was signed
 * again, by whoever holds the key.
 */
static int check_files(struct vctx *c, const struct vrun *r)
{
	struct held h = { c, r, { 0 } };
	intptr_t one;
	char prefix[40];
	struct lr_run run;
	size_t i;
	int rc;

	lr_run_init(&run);
	if (!(rc = lr_store_run_load(c->v->st, r->id, &run))) {
		run.id = json_integer_value(json_object_get(r->pred, "runId")); /* as the crate's store numbered it */
		rc = lr_crate_run_files(c->v->st, &run, held_file, &h);
	}
	snprintf(prefix, sizeof prefix, "%s/", r->dir);
	for (i = 0; !rc && i < c->files.n; i++) {
		const char *rel = c->files.v[i].key, *base = rel + strlen(prefix);

		if (strncmp(rel, prefix, strlen(prefix)) || !strcmp(base, "bundle.json") ||
		    !strcmp(base, "run.intoto.json") || !strcmp(base, LR_SIGSTORE_FILE) ||
		    lr_strmap_get(&h.seen, rel, &one))
			continue;
		lr_verify_problem(c, rel, "is not a file of %s's sealed rows: added", r->dir);
	}
	lr_strmap_release(&h.seen);
	lr_run_release(&run);
	return rc;
}

int lr_verify_load(struct vctx *c)
{
	char tmpl[PATH_MAX];
	struct lr_pull_origin origin = { "crate", NULL, NULL, 1, 1 };
	size_t i, left, done;
	int rc;

	if ((rc = lr_temp_dir(tmpl, sizeof tmpl, "labrun-verify")))
		return rc;
	if (!(c->v->tmp = strdup(tmpl)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_store_open(&c->v->st, c->v->tmp, LR_STORE_CREATE)) || (rc = put_objects(c)))
		return rc;
	if (!(c->v->ids = calloc(c->nruns + 1, sizeof *c->v->ids)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	qsort(c->runs, c->nruns, sizeof *c->runs, by_run_id);
	for (left = c->nruns; left;) {
		for (i = 0, done = 0; i < c->nruns; i++) {
			int64_t id;

			if (!c->runs[i].bundled)
				continue;
			rc = lr_store_run_adopt(c->v->st, &c->runs[i].b, &origin, &id);
			if (rc == LR_EINVAL) /* it points at a run not loaded yet */
				continue;
			if (rc || (rc = check_design(c, &c->runs[i], id)))
				return rc;
			c->v->ids[c->v->nids++] = id;
			c->runs[i].id = id;
			c->runs[i].bundled = 0;
			done++;
		}
		left = 0;
		for (i = 0; i < c->nruns; i++)
			left += c->runs[i].bundled;
		if (left && !done) {
			for (i = 0; i < c->nruns; i++)
				if (c->runs[i].bundled)
					lr_verify_problem(c, c->runs[i].dir, "cannot be loaded: %s", lr_error_msg());
			break;
		}
	}
	lr_error_clear(); /* a run that cannot be loaded is named above */
	for (i = 0, rc = 0; i < c->nruns && !rc; i++)
		if (c->runs[i].id)
			rc = check_files(c, &c->runs[i]);
	return rc;
}
