/* labrun verify: a crate checked without a store, from its own files and the reviewer's trusted keys. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/dsse.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/progress.h"
#include "base/seal.h"
#include "base/trust.h"
#include "base/walk.h"
#include "evidence/attest.h"
#include "evidence/sigstore.h"
#include "evidence/verify.h"
#include "store/designreg.h"
#include "store/ledger.h"
#include "store/objects.h"
#include "store/remote.h"

/* One run of the crate, as its attestation and bundle give it. */
struct vrun {
	char dir[32]; /* "run-7" */
	json_t *pred; /* its attestation's predicate */
	struct lr_bundle b;
	int bundled;
};

struct vctx {
	const char *dir;
	const struct lr_trust *t;
	int allow;
	lr_verify_fn fn;
	void *arg;
	int *problems;
	struct lr_kvlist files;      /* every regular file found: relative name -> sha256 ("" until file_sha) */
	struct lr_progress *hashing; /* of the files signed */
	int64_t hashed;
	const char **pubs; /* public keys ledger.json carries: used only when their fingerprint is trusted */
	size_t npubs;
	json_t *ledger; /* ledger.json */
	struct vrun *runs;
	size_t nruns;
	struct lr_verified *v;
};

static void problem(struct vctx *c, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct vctx *c, const char *file, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	(*c->problems)++;
	va_start(ap, fmt);
	c->fn(c->arg, file, lr_vfmt_cut(msg, sizeof msg, fmt, ap));
	va_end(ap);
}

/*
 * An entry of the crate, as lr_walk finds it (no link followed): a regular
 * file is listed, not read (file_sha reads those a statement signs); a link
 * could lead out of the crate and a FIFO or device hang or never end, so
 * each is a problem, and nothing is opened through it.
 */
static int found_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct vctx *c = arg;

	(void)full;
	if (type == LR_WALK_LINK)
		problem(c, rel, "is a symbolic link: a crate holds files only, and verify follows no link out of it");
	else if (type == LR_WALK_SPECIAL)
		problem(c, rel, "is a FIFO, socket or device: a crate holds regular files only, and verify opens none");
	else if (type == LR_WALK_FILE)
		return lr_kvlist_add(&c->files, rel, "", NULL);
	return 0;
}

/* The sha256 of crate file 'rel', hashed the first time it is asked for; NULL when the crate has no such file. */
static const char *file_sha(struct vctx *c, const char *rel)
{
	struct lr_kv *kv = lr_kvlist_find(&c->files, rel);
	char full[PATH_MAX * 2], hex[LR_SHA256_HEX];
	char *sum;

	if (!kv || kv->value[0])
		return kv ? kv->value : NULL;
	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (lr_sha256_regular(full, hex, NULL)) { /* replaced since the walk: named once, never equal */
		problem(c, rel, "cannot be read: %s", lr_error_msg());
		lr_error_clear();
		snprintf(hex, sizeof hex, "unreadable");
	}
	if (!(sum = strdup(hex)))
		return NULL;
	free(kv->value);
	kv->value = sum;
	lr_progress_update(c->hashing, ++c->hashed);
	return kv->value;
}

/* Whether the crate holds the file 'rel' (listed, not read). */
static int has_file(const struct vctx *c, const char *rel)
{
	return lr_kvlist_find(&c->files, rel) != NULL;
}

/* The JSON of crate file 'rel', or NULL (a problem) when it is missing or not JSON. */
static json_t *read_json(struct vctx *c, const char *rel)
{
	char full[PATH_MAX * 2];
	json_error_t err;
	json_t *j;
	int fd;

	if (!has_file(c, rel)) {
		problem(c, rel, "is missing");
		return NULL;
	}
	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (lr_open_regular(full, &fd)) {
		problem(c, rel, "cannot be read: %s", lr_error_msg());
		lr_error_clear();
		return NULL;
	}
	if (!(j = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err))) /* a key twice: readers could differ */
		problem(c, rel, "is not JSON: %s (line %d)", err.text, err.line);
	close(fd);
	return j;
}

/*
 * The Statement in envelope file 'rel', of 'ptype': its signature held to
 * the trusted keys ('signer' gets the key's fingerprint, "" when none).
 */
static json_t *open_statement(struct vctx *c, const char *rel, const char *ptype, char signer[LR_SHA256_HEX],
			      char *principal, size_t plen)
{
	json_t *env = read_json(c, rel), *stmt = NULL;
	struct lr_dsse_opened o;
	int rc;

	signer[0] = 0;
	if (!env)
		return NULL;
	rc = lr_dsse_open(env, c->t, c->pubs, c->npubs, &o);
	if (rc == LR_EINVAL) {
		problem(c, rel, "%s", lr_error_msg());
		goto out;
	}
	if (rc && !c->allow)
		problem(c, rel, "is not signed by a key you trust: %s", lr_error_msg());
	if (signer == c->v->signer) /* the crate's own: --allow-unsigned names the key that did sign */
		snprintf(c->v->refused, sizeof c->v->refused, "%s", o.refused);
	snprintf(signer, LR_SHA256_HEX, "%s", o.signer);
	if (principal)
		snprintf(principal, plen, "%s", o.principal);
	if (strcmp(o.type, LR_INTOTO_PAYLOAD_TYPE) || !(stmt = json_loads(o.payload, 0, NULL)) ||
	    strcmp(json_string_value(json_object_get(stmt, "_type")) ?: "", LR_INTOTO_STATEMENT) ||
	    strcmp(json_string_value(json_object_get(stmt, "predicateType")) ?: "", ptype) ||
	    !json_is_array(json_object_get(stmt, "subject"))) {
		problem(c, rel, "is not an in-toto Statement v1 of %s", ptype);
		json_decref(stmt);
		stmt = NULL;
	}
	lr_dsse_opened_release(&o);
out:
	json_decref(env);
	return stmt;
}

/* Every subject of 'stmt' is a file of the crate with that digest. */
static void check_subjects(struct vctx *c, const char *rel, json_t *stmt)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(stmt, "subject"), i, s) {
		const char *name = json_string_value(json_object_get(s, "name")) ?: "",
			   *want = json_string_value(json_object_get(json_object_get(s, "digest"), "sha256")) ?: "",
			   *have = file_sha(c, name);

		if (!have)
			problem(c, name, "is signed in %s but not in the crate: removed", rel);
		else if (!strcmp(have, "unreadable"))
			continue;
		else if (strcmp(have, want))
			problem(c, name, "has sha256 %.16s..., %s signed %.16s...: changed after it was signed", have,
				rel, want);
		else
			c->v->files++;
	}
}

/* Whether 'name' is a subject of 'stmt'. */
static int is_subject(json_t *stmt, const char *name)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(stmt, "subject"), i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")) ?: "", name))
			return 1;
	return 0;
}

/* crate.intoto.json: every other file is one of its subjects, unchanged. */
static json_t *check_crate_statement(struct vctx *c)
{
	json_t *stmt = open_statement(c, LR_CRATE_STATEMENT, LR_CRATE_PREDICATE, c->v->signer, c->v->principal,
				      sizeof c->v->principal);
	size_t i;

	if (!stmt)
		return NULL;
	check_subjects(c, LR_CRATE_STATEMENT, stmt);
	for (i = 0; i < c->files.n; i++)
		if (strcmp(c->files.v[i].key, LR_CRATE_STATEMENT) && !is_subject(stmt, c->files.v[i].key)) {
			problem(c, c->files.v[i].key, "is not among the files %s signs: added after it was signed",
				LR_CRATE_STATEMENT);
			if (lr_strlist_add(&c->v->added, c->files.v[i].key))
				lr_error_clear(); /* out of memory: the site's check reads it, bounded, as before */
		}
	return stmt;
}

/* Each run-ID/run.intoto.json: its subjects are exactly the run's files. */
static int check_runs(struct vctx *c)
{
	char signer[LR_SHA256_HEX], prefix[40], bundle[64];
	size_t i, k;

	for (i = 0; i < c->files.n; i++) {
		const char *rel = c->files.v[i].key, *slash = strchr(rel, '/');
		struct vrun *r;
		json_t *stmt;

		if (!slash || strcmp(slash, "/run.intoto.json") || strncmp(rel, "run-", 4) ||
		    (size_t)(slash - rel) >= 30)
			continue;
		if (!(stmt = open_statement(c, rel, LR_RUN_PREDICATE, signer, NULL, 0)))
			continue;
		r = realloc(c->runs, (c->nruns + 1) * sizeof *r);
		if (!r) {
			json_decref(stmt);
			return lr_error_set(LR_ENOMEM, "out of memory");
		}
		c->runs = r;
		r = &c->runs[c->nruns++];
		memset(r, 0, sizeof *r);
		snprintf(r->dir, sizeof r->dir, "%.*s", (int)(slash - rel), rel);
		r->pred = json_incref(json_object_get(stmt, "predicate"));
		check_subjects(c, rel, stmt);
		snprintf(prefix, sizeof prefix, "%s/", r->dir);
		snprintf(bundle, sizeof bundle, "%s" LR_SIGSTORE_FILE, prefix); /* written after it, of its envelope */
		if (has_file(c, bundle) && lr_sigstore_check(c->dir, bundle, rel)) {
			problem(c, bundle, "%s", lr_error_msg());
			lr_error_clear();
		}
		for (k = 0; k < c->files.n; k++)
			if (!strncmp(c->files.v[k].key, prefix, strlen(prefix)) && strcmp(c->files.v[k].key, rel) &&
			    strcmp(c->files.v[k].key, bundle) && !is_subject(stmt, c->files.v[k].key))
				problem(c, c->files.v[k].key, "is not among the files %s signs", rel);
		json_decref(stmt);
	}
	c->v->runs = (int)c->nruns;
	if (!c->nruns)
		problem(c, "", "holds no run attestation (run-ID/run.intoto.json)");
	return 0;
}

/* The public keys ledger.json carries: candidates, trusted only by fingerprint. */
static int ledger_keys(struct vctx *c)
{
	json_t *e;
	size_t i;

	if (!(c->ledger = read_json(c, "ledger.json")) || !json_is_array(c->ledger))
		return 0;
	if (!(c->pubs = calloc(json_array_size(c->ledger) + 1, sizeof *c->pubs)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	json_array_foreach(c->ledger, i, e)
		if (json_string_value(json_object_get(e, "public_key")))
			c->pubs[c->npubs++] = json_string_value(json_object_get(e, "public_key"));
	return 0;
}

/* One entry of ledger.json: its digest recomputed, its signature by a trusted key, its place at the signed head. */
static void check_entry(struct vctx *c, json_t *e, json_t *head_entries)
{
	int64_t seq = json_integer_value(json_object_get(e, "seq"));
	const char *uuid = json_string_value(json_object_get(e, "run_uuid")),
		   *kind = json_string_value(json_object_get(e, "kind")),
		   *content = json_string_value(json_object_get(e, "content")),
		   *prev = json_string_value(json_object_get(e, "prev")),
		   *digest = json_string_value(json_object_get(e, "digest")),
		   *fpr = json_string_value(json_object_get(e, "key_fingerprint")),
		   *sig = json_string_value(json_object_get(e, "signature")),
		   *pub = json_string_value(json_object_get(e, "public_key"));
	const struct lr_trusted_key *k = fpr ? lr_trust_find(c->t, fpr) : NULL;
	char want[LR_SHA256_HEX];
	json_t *h;
	size_t i;

	if (!uuid || !kind || !content || !prev || !digest || lr_ledger_digest(seq, uuid, kind, content, prev, want) ||
	    strcmp(want, digest)) {
		problem(c, "ledger.json", "entry %lld (run %s) does not recompute from its fields", (long long)seq,
			uuid ? uuid : "?");
		return;
	}
	c->v->entries++;
	if (k && k->public_key[0])
		pub = k->public_key;
	/* an unsigned entry (from before the store's key) is vouched for by the crate's signature alone */
	if (sig && (!k || !pub || lr_verify(pub, digest, sig)) && !(c->allow && !k))
		problem(c, "ledger.json", "entry %lld (run %s) is %s", (long long)seq, uuid,
			!k ? "signed by a key you do not trust" : "signed, but the signature does not verify");
	json_array_foreach(head_entries, i, h)
		if (json_integer_value(json_object_get(h, "seq")) == seq) {
			if (strcmp(json_string_value(json_object_get(h, "digest")) ?: "", digest))
				problem(c, "ledger.json", "entry %lld (run %s) is not the entry the signed head lists",
					(long long)seq, uuid);
			return;
		}
	problem(c, "ledger.json", "entry %lld (run %s) is not chained to the signed head (%s)", (long long)seq, uuid,
		LR_HEAD_FILE);
}

/* How the crate's site was built (its statement says), and the entries it drew, for lr_verify_site. */
static void keep_site(struct vctx *c, json_t *site)
{
	if (!json_is_object(site))
		return;
	c->v->site = 1;
	snprintf(c->v->site_signer, sizeof c->v->site_signer, "%s",
		 json_string_value(json_object_get(site, "signer")) ?: "");
	c->v->ledger = json_incref(c->ledger);
}

/* How the crate's report.md was written (its statement says), for lr_verify_report. */
static void keep_report(struct vctx *c, json_t *report)
{
	json_t *max = json_object_get(report, "markdownMaxChars");

	if (!json_is_object(report))
		return;
	c->v->report_fit = 1;
	c->v->report_max_chars = json_is_integer(max) && json_integer_value(max) > 0 ? json_integer_value(max) : 0;
}

/* The signed head as the crate carries it, for the report rebuilt from its rows (lr_verify_report). */
static void keep_head(struct vctx *c, json_t *pred)
{
	char path[PATH_MAX * 2];
	size_t len;

	c->v->head.seq = json_integer_value(json_object_get(pred, "seq"));
	snprintf(c->v->head.digest, sizeof c->v->head.digest, "%s",
		 json_string_value(json_object_get(pred, "digest")) ?: "");
	snprintf(path, sizeof path, "%s/%s", c->dir, LR_HEAD_FILE);
	if (lr_read_regular_text(LR_HEAD_FILE, path, 1u << 26, &c->v->head_statement, &len))
		lr_error_clear(); /* read as JSON above, so there; a report without it is named then */
}

/* The ledger entries the crate carries, chained to its signed head, which must be the crate's. */
static void check_ledger(struct vctx *c, json_t *crate)
{
	char signer[LR_SHA256_HEX];
	json_t *head = open_statement(c, LR_HEAD_FILE, LR_HEAD_PREDICATE, signer, NULL, 0), *pred, *e;
	json_t *cp = json_object_get(crate, "predicate");
	size_t i;

	if (!head || !c->ledger)
		goto out;
	pred = json_object_get(head, "predicate");
	keep_head(c, pred);
	if (crate && (strcmp(json_string_value(json_object_get(pred, "storeId")) ?: "",
			     json_string_value(json_object_get(cp, "storeId")) ?: "-") ||
		      json_integer_value(json_object_get(pred, "seq")) !=
			      json_integer_value(json_object_get(json_object_get(cp, "head"), "seq"))))
		problem(c, LR_HEAD_FILE, "is not the head %s names (store and entry differ)", LR_CRATE_STATEMENT);
	json_array_foreach(c->ledger, i, e)
		check_entry(c, e, json_object_get(pred, "entries"));
out:
	json_decref(head);
}

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
	size_t cap = 0;
	json_t *e;
	FILE *f;
	int fd, rc;

	snprintf(rel, sizeof rel, "%s/bundle.json", r->dir);
	if (!seal) /* still running when the crate was written: no rows to give a seal */
		return 0;
	if (!(sha = file_sha(c, rel))) {
		problem(c, rel, "is missing: run %s cannot be recomputed", uuid);
		return 0;
	}
	if (bsha && strcmp(sha, bsha))
		problem(c, rel, "is not the bundle %s/run.intoto.json names", r->dir);
	snprintf(full, sizeof full, "%s/%s", c->dir, rel);
	if (!strcmp(sha, "unreadable")) /* named by file_sha */
		return 0;
	if ((rc = lr_open_regular(full, &fd)))
		return rc;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return lr_error_set(LR_EIO, "cannot read '%s': %s", full, strerror(errno));
	}
	rc = getdelim(&text, &cap, 0, f) < 0 ? lr_error_set(LR_EIO, "cannot read '%s'", full) : 0;
	fclose(f);
	if (!rc && lr_bundle_parse(&r->b, text, sha)) {
		problem(c, rel, "%s", lr_error_msg());
	} else if (!rc) {
		r->bundled = 1;
		if (strcmp(r->b.uuid, uuid) || strcmp(r->b.seal, seal))
			problem(c, rel, "is run %s with seal %.16s..., its attestation says run %s with seal %.16s...",
				r->b.uuid, r->b.seal, uuid, seal);
		e = newest_entry(c, uuid);
		if (!e || strcmp(json_string_value(json_object_get(e, "content")) ?: "", seal))
			problem(c, "ledger.json", "run %s: its newest entry does not hold its seal %.16s...", uuid,
				seal);
	}
	free(text);
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
	problem(c, "ledger.json",
		"run %s: its design differs from the design registered in its ledger entry %lld (digest %.12s..., "
		"its rows give %.12s...): the design was changed after it was registered",
		r->b.uuid, (long long)reg.seq, reg.content, now);
	return 0;
}

/* The crate's runs in a throwaway store, in the order they were recorded, each after the runs it points at. */
static int load_runs(struct vctx *c)
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
			c->runs[i].bundled = 0;
			done++;
		}
		left = 0;
		for (i = 0; i < c->nruns; i++)
			left += c->runs[i].bundled;
		if (left && !done) {
			for (i = 0; i < c->nruns; i++)
				if (c->runs[i].bundled)
					problem(c, c->runs[i].dir, "cannot be loaded: %s", lr_error_msg());
			break;
		}
	}
	lr_error_clear();
	return 0;
}

int lr_crate_verify(const char *dir, const struct lr_trust *t, int allow_unsigned, lr_verify_fn fn, void *arg,
		    int *problems, struct lr_verified *v)
{
	struct vctx c = {
		.dir = dir, .t = t, .allow = allow_unsigned, .fn = fn, .arg = arg, .problems = problems, .v = v
	};
	json_t *crate = NULL;
	char marker[PATH_MAX * 2];
	struct stat sb;
	size_t i;
	int rc;

	memset(v, 0, sizeof *v);
	snprintf(marker, sizeof marker, "%s/%s", dir, LR_CRATE_STATEMENT);
	if (stat(marker, &sb) != 0) {
		lr_error_set(LR_ENOTFOUND, "'%s' is not a crate labrun can verify: it has no %s", dir,
			     LR_CRATE_STATEMENT);
		lr_error_hint("'labrun manifest' and 'labrun archive' write crates that carry one");
		return LR_ENOTFOUND;
	}
	snprintf(marker, sizeof marker, "%s/",
		 dir); /* the crate itself may be reached through a link its reviewer gave */
	if ((rc = lr_walk(marker, found_entry, &c)) || (rc = ledger_keys(&c)))
		goto out;
	c.hashing = lr_progress_start("hashed", "files", -1);
	crate = check_crate_statement(&c);
	keep_site(&c, json_object_get(json_object_get(crate, "predicate"), "site"));
	keep_report(&c, json_object_get(json_object_get(crate, "predicate"), "report"));
	if ((rc = check_runs(&c)))
		goto out;
	check_ledger(&c, crate);
	for (i = 0; i < c.nruns && !rc; i++)
		rc = check_bundle(&c, &c.runs[i]);
	if (!rc)
		rc = load_runs(&c);
out:
	lr_progress_stop(&c.hashing);
	for (i = 0; i < c.nruns; i++) {
		json_decref(c.runs[i].pred);
		lr_bundle_release(&c.runs[i].b);
	}
	free(c.runs);
	free(c.pubs);
	json_decref(c.ledger);
	json_decref(crate);
	lr_kvlist_release(&c.files);
	return rc;
}

void lr_verified_release(struct lr_verified *v)
{
	lr_store_free(v->st);
	if (v->tmp)
		lr_remove_tree(v->tmp);
	free(v->tmp);
	free(v->ids);
	free(v->head_statement);
	json_decref(v->ledger);
	lr_strlist_release(&v->added);
	memset(v, 0, sizeof *v);
}
