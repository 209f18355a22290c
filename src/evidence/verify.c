/* labrun verify: a crate checked without a store, from its own files and the reviewer's trusted keys. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/dsse.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/seal.h"
#include "base/trust.h"
#include "evidence/attest.h"
#include "evidence/headcmp.h"
#include "evidence/sigstore.h"
#include "evidence/verify-int.h"
#include "store/ledger.h"

/*
 * The Statement in envelope file 'rel', of 'ptype': its signature held to
 * the trusted keys ('signer' gets the key's fingerprint, "" when none).
 */
static json_t *open_statement(struct vctx *c, const char *rel, const char *ptype, char signer[LR_SHA256_HEX],
			      char *principal, size_t plen)
{
	json_t *env = lr_verify_read_json(c, rel), *stmt = NULL;
	struct lr_dsse_opened o;
	int rc;

	signer[0] = 0;
	if (!env)
		return NULL;
	rc = lr_dsse_open(env, c->t, c->pubs, c->npubs, &o);
	if (rc == LR_EINVAL) {
		lr_verify_problem(c, rel, "%s", lr_error_msg());
		goto out;
	}
	if (rc && !c->allow)
		lr_verify_problem(c, rel, "is not signed by a key you trust: %s", lr_error_msg());
	if (signer == c->v->signer) /* the crate's own: --allow-unsigned names the key that did sign */
		snprintf(c->v->refused, sizeof c->v->refused, "%s", o.refused);
	snprintf(signer, LR_SHA256_HEX, "%s", o.signer);
	if (principal)
		snprintf(principal, plen, "%s", o.principal);
	if (strcmp(o.type, LR_INTOTO_PAYLOAD_TYPE) || !(stmt = json_loads(o.payload, 0, NULL)) ||
	    strcmp(json_string_value(json_object_get(stmt, "_type")) ?: "", LR_INTOTO_STATEMENT) ||
	    strcmp(json_string_value(json_object_get(stmt, "predicateType")) ?: "", ptype) ||
	    !json_is_array(json_object_get(stmt, "subject"))) {
		lr_verify_problem(c, rel, "is not an in-toto Statement v1 of %s", ptype);
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
			   *have = lr_verify_file_sha(c, name);

		if (!have)
			lr_verify_problem(c, name, "is signed in %s but not in the crate: removed", rel);
		else if (!strcmp(have, "unreadable"))
			continue;
		else if (strcmp(have, want))
			lr_verify_problem(c, name,
					  "has sha256 %.16s..., %s signed %.16s...: changed after it was signed", have,
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
			lr_verify_problem(c, c->files.v[i].key,
					  "is not among the files %s signs: added after it was signed",
					  LR_CRATE_STATEMENT);
			if (lr_strlist_add(&c->v->added, c->files.v[i].key))
				lr_error_clear(); /* out of memory: the site's check reads it, bounded, as before */
		}
	return stmt;
}

/* Whether 'rel' is under a run's directory: "run-" digits "/". */
static int in_run_dir(const char *rel)
{
	size_t n = strspn(rel + 4, "0123456789");

	return !strncmp(rel, "run-", 4) && n && rel[4 + n] == '/';
}

/*
 * Every file where labrun puts one: the crate's own at its top, each run's
 * under run-ID/, its site's under site/, which the statement says how to
 * build again (the first crates, whose statement has no "report", said
 * nothing of their site: it is checked on its digests). A file signed
 * again anywhere else, a "NOTES.md" or a "report.html", is named.
 */
static void check_layout(struct vctx *c, json_t *crate)
{
	static const char *const top[] = { LR_CRATE_STATEMENT,   LR_HEAD_FILE,  "ledger.json",
					   "report.md",          "report.json", "ro-crate-metadata.json",
					   "manifest-sha256.txt" };
	json_t *pred = json_object_get(crate, "predicate");
	int said = !crate || json_object_get(pred, "site") || !json_object_get(pred, "report");
	size_t i, k;

	for (i = 0; i < c->files.n; i++) {
		const char *rel = c->files.v[i].key;

		for (k = 0; k < sizeof top / sizeof *top && strcmp(rel, top[k]); k++)
			;
		if (k < sizeof top / sizeof *top || in_run_dir(rel) || lr_strlist_contains(&c->v->added, rel))
			continue;
		if (strncmp(rel, "site/", 5))
			lr_verify_problem(c, rel,
					  "is not a file labrun writes into a crate (its own files, run-ID/, site/)");
		else if (!said++)
			lr_verify_problem(c, "site/",
					  "holds files, but %s does not say how they were built: they cannot be "
					  "checked against the rows",
					  LR_CRATE_STATEMENT);
	}
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
		if (!lr_verify_has_file(c, bundle) && c->strict && signer[0])
			lr_verify_problem(c, bundle, "is missing: labrun writes one beside each signed %s", rel);
		else if (lr_verify_has_file(c, bundle) && lr_sigstore_check(c->dir, bundle, rel)) {
			lr_verify_problem(c, bundle, "%s", lr_error_msg());
			lr_error_clear();
		}
		for (k = 0; k < c->files.n; k++)
			if (!strncmp(c->files.v[k].key, prefix, strlen(prefix)) && strcmp(c->files.v[k].key, rel) &&
			    strcmp(c->files.v[k].key, bundle) && !is_subject(stmt, c->files.v[k].key))
				lr_verify_problem(c, c->files.v[k].key, "is not among the files %s signs", rel);
		json_decref(stmt);
	}
	c->v->runs = (int)c->nruns;
	if (!c->nruns)
		lr_verify_problem(c, "", "holds no run attestation (run-ID/run.intoto.json)");
	return 0;
}

/* The run of the crate whose attestation names 'uuid', or NULL. */
static const struct vrun *attested(const struct vctx *c, const char *uuid)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (!strcmp(json_string_value(json_object_get(c->runs[i].pred, "runUuid")) ?: "", uuid))
			return &c->runs[i];
	return NULL;
}

/* Every run-ID/ holding files has its run.intoto.json: a run's files are never vouched for by the crate alone. */
static void check_unattested(struct vctx *c)
{
	char dir[40], att[64];
	size_t i, len;

	for (i = 0; i < c->files.n; i++) {
		const char *rel = c->files.v[i].key, *slash = strchr(rel, '/');

		if (!slash || strncmp(rel, "run-", 4) || (len = (size_t)(slash - rel)) >= 30 ||
		    (i && !strncmp(c->files.v[i - 1].key, rel, len + 1)))
			continue; /* not a run's, or its directory already looked at */
		snprintf(dir, sizeof dir, "%.*s", (int)len, rel);
		snprintf(att, sizeof att, "%s/run.intoto.json", dir);
		if (!lr_verify_has_file(c, att))
			lr_verify_problem(c, att,
					  "is missing: the files of %s are attested by no run statement (removed, or "
					  "never written)",
					  dir);
	}
}

/* Whether the entries 'list' hold one of digest 'digest'. */
static int holds_entry(json_t *list, const char *digest)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "digest")) ?: "", digest))
			return 1;
	return 0;
}

/* ledger.json holds each run's entries, no more and no fewer, as the run's attestation signs them. */
static void check_run_entries(struct vctx *c)
{
	json_t *e;
	size_t i, k;

	json_array_foreach(c->ledger, i, e) {
		const char *uuid = json_string_value(json_object_get(e, "run_uuid")) ?: "",
			   *digest = json_string_value(json_object_get(e, "digest")) ?: "-";
		const struct vrun *r = attested(c, uuid);

		if (!r)
			lr_verify_problem(c, "ledger.json", "holds entry %lld of run %s, which the crate does not hold",
					  (long long)json_integer_value(json_object_get(e, "seq")), uuid);
		else if (!holds_entry(json_object_get(r->pred, "ledger"), digest))
			lr_verify_problem(c, "ledger.json", "entry %lld (run %s) is not among the entries %s signs",
					  (long long)json_integer_value(json_object_get(e, "seq")), uuid, r->dir);
	}
	for (i = 0; i < c->nruns && c->ledger; i++)
		json_array_foreach(json_object_get(c->runs[i].pred, "ledger"), k, e)
			if (!holds_entry(c->ledger, json_string_value(json_object_get(e, "digest")) ?: "-"))
				lr_verify_problem(c, "ledger.json",
						  "lacks entry %lld of run %s, which %s/run.intoto.json signs: removed",
						  (long long)json_integer_value(json_object_get(e, "seq")),
						  json_string_value(json_object_get(c->runs[i].pred, "runUuid")) ?: "?",
						  c->runs[i].dir);
}

/*
 * The runs the crate's statement lists are the runs the crate holds, each
 * with its attestation, and ledger.json holds each run's entries as its
 * attestation signs them: a run or an attestation left out, or a run's
 * entries changed, is named even when the crate was signed again.
 */
static void check_listed(struct vctx *c, json_t *crate)
{
	json_t *runs = json_object_get(json_object_get(crate, "predicate"), "runs"), *u;
	size_t i, k;

	check_unattested(c);
	json_array_foreach(runs, i, u) {
		for (k = 0; k < i && !json_equal(json_array_get(runs, k), u); k++)
			;
		if (k < i)
			lr_verify_problem(c, LR_CRATE_STATEMENT, "lists run %s twice", json_string_value(u) ?: "?");
	}
	json_array_foreach(runs, i, u)
		if (json_is_string(u) && !attested(c, json_string_value(u)))
			lr_verify_problem(c, LR_CRATE_STATEMENT, "lists run %s, which the crate does not hold: removed",
					  json_string_value(u));
	for (i = 0; json_is_array(runs) && i < c->nruns; i++) {
		const char *uuid = json_string_value(json_object_get(c->runs[i].pred, "runUuid")) ?: "";

		for (k = 0; k < json_array_size(runs) && strcmp(json_string_value(json_array_get(runs, k)) ?: "", uuid);
		     k++)
			;
		if (k == json_array_size(runs))
			lr_verify_problem(c, c->runs[i].dir, "(run %s) is not among the runs %s lists: added", uuid,
					  LR_CRATE_STATEMENT);
	}
	check_run_entries(c);
}

/* The public keys ledger.json carries: candidates, trusted only by fingerprint. */
static int ledger_keys(struct vctx *c)
{
	json_t *e;
	size_t i;

	if (!(c->ledger = lr_verify_read_json(c, "ledger.json")) || !json_is_array(c->ledger))
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
		lr_verify_problem(c, "ledger.json", "entry %lld (run %s) does not recompute from its fields",
				  (long long)seq, uuid ? uuid : "?");
		return;
	}
	c->v->entries++;
	if (k && k->public_key[0])
		pub = k->public_key;
	/* an unsigned entry (from before the store's key) is vouched for by the crate's signature alone */
	if (sig && (!k || !pub || lr_verify(pub, digest, sig)) && !(c->allow && !k))
		lr_verify_problem(c, "ledger.json", "entry %lld (run %s) is %s", (long long)seq, uuid,
				  !k ? "signed by a key you do not trust"
				     : "signed, but the signature does not verify");
	json_array_foreach(head_entries, i, h)
		if (json_integer_value(json_object_get(h, "seq")) == seq) {
			/* the head's entry of a run the crate holds: lr_head_compare names how it differs */
			if (strcmp(json_string_value(json_object_get(h, "digest")) ?: "", digest) &&
			    !attested(c, json_string_value(json_object_get(h, "run_uuid")) ?: ""))
				lr_verify_problem(
					c, "ledger.json",
					"entry %lld (run %s) is not the entry the signed head lists (of run %s)",
					(long long)seq, uuid, json_string_value(json_object_get(h, "run_uuid")) ?: "?");
			return;
		}
	lr_verify_problem(c, "ledger.json", "entry %lld (run %s) is not chained to the signed head (%s)",
			  (long long)seq, uuid, LR_HEAD_FILE);
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

/* ledger.json's entries as a ledger, for lr_head_compare. */
static int held_entries(struct vctx *c, struct lr_head_seen *x)
{
	struct lr_ledger_entry le = { 0 };
	json_t *e;
	size_t i;
	int rc = 0;

	json_array_foreach(c->ledger, i, e) {
		le.seq = json_integer_value(json_object_get(e, "seq"));
		le.run_uuid = json_string_value(json_object_get(e, "run_uuid"));
		le.digest = json_string_value(json_object_get(e, "digest"));
		if (le.run_uuid && le.digest && (rc = lr_head_seen_add(x, &le)))
			break;
	}
	return rc;
}

/* "run-3 (UUID)", or "run UUID" when the crate holds no attestation of it. */
static void run_name(void *arg, const char *uuid, char *buf, size_t len)
{
	const struct vrun *r = attested(arg, uuid);

	if (r)
		snprintf(buf, len, "%s (%s)", r->dir, uuid);
	else
		snprintf(buf, len, "run %s", uuid);
}

static void head_problem(void *arg, int64_t seq, const char *uuid, const char *text)
{
	(void)seq;
	(void)uuid;
	lr_verify_problem(arg, "ledger.json", "%s", text);
}

/* The ledger entries the crate carries, chained to its signed head, which must be the crate's. */
static void check_ledger(struct vctx *c, json_t *crate)
{
	char signer[LR_SHA256_HEX];
	json_t *head = open_statement(c, LR_HEAD_FILE, LR_HEAD_PREDICATE, signer, NULL, 0), *pred, *e;
	json_t *cp = json_object_get(crate, "predicate");
	struct lr_head_seen x = { { 0 }, { 0 }, { 0 } };
	size_t i;

	if (!head || !c->ledger)
		goto out;
	pred = json_object_get(head, "predicate");
	keep_head(c, pred);
	if (crate && (strcmp(json_string_value(json_object_get(pred, "storeId")) ?: "",
			     json_string_value(json_object_get(cp, "storeId")) ?: "-") ||
		      json_integer_value(json_object_get(pred, "seq")) !=
			      json_integer_value(json_object_get(json_object_get(cp, "head"), "seq"))))
		lr_verify_problem(c, LR_HEAD_FILE, "is not the head %s names (store and entry differ)",
				  LR_CRATE_STATEMENT);
	json_array_foreach(c->ledger, i, e)
		check_entry(c, e, json_object_get(pred, "entries"));
	if (held_entries(c, &x) || lr_head_compare(json_object_get(pred, "entries"), &x, 1, run_name, head_problem, c))
		lr_error_clear(); /* out of memory: what was named stands */
out:
	lr_head_seen_release(&x);
	json_decref(head);
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
	if ((rc = lr_walk(marker, lr_verify_found, &c)) || (rc = ledger_keys(&c)))
		goto out;
	c.hashing = lr_progress_start("hashed", "files", -1);
	crate = check_crate_statement(&c);
	keep_site(&c, json_object_get(json_object_get(crate, "predicate"), "site"));
	keep_report(&c, json_object_get(json_object_get(crate, "predicate"), "report"));
	c.strict = !crate || json_integer_value(json_object_get(json_object_get(crate, "predicate"), "runFiles")) == 1;
	if ((rc = check_runs(&c)))
		goto out;
	check_layout(&c, crate);
	check_listed(&c, crate);
	check_ledger(&c, crate);
	if (!(rc = lr_verify_bundles(&c)) && !(rc = lr_verify_load(&c)))
		rc = lr_verify_metadata(&c);
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
