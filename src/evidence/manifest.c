#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/csv.h"
#include "base/error.h"
#include "base/jsonbytes.h"
#include "base/safename.h"
#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/attest.h"
#include "evidence/crate-file.h"
#include "evidence/crate-run.h"
#include "evidence/manifest.h"
#include "evidence/object.h"
#include "evidence/sigstore.h"
#include "record/runjson.h"
#include "report/report.h"
#include "store/experiments.h"
#include "store/ledger.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/runs.h"

/* ---- writing -------------------------------------------------------------------- */

/* "built by CC CFLAGS; configure: OPTIONS" of the binary that recorded a run. */
static const char *build_text(const struct lr_kv *cc, const struct lr_kv *flags, const struct lr_kv *conf, char *buf,
			      size_t len)
{
	snprintf(buf, len, "built by %s %s; configure options: %s", cc ? cc->value : "?", flags ? flags->value : "",
		 conf && conf->value[0] ? conf->value : "none");
	return buf;
}

/* A run's instruments: labrun, and each recorded tool version (added to the graph once per crate). */
static json_t *instruments(const struct lr_run *r, json_t *graph, json_t *tools_seen)
{
	json_t *list = json_array();
	const struct lr_kv *sha;
	char desc[1024];
	size_t i;

	json_array_append_new(list, lr_crate_ref("#labrun"));
	if ((sha = lr_kvlist_find(&r->recorder, "binary_sha256"))) { /* the very binary, as LoadGen's fingerprint */
		char bid[96], ident[80];

		snprintf(bid, sizeof bid, "#labrun-binary-%s", sha->value);
		if (!json_object_get(tools_seen, bid)) {
			const struct lr_kv *cc = lr_kvlist_find(&r->recorder, "cc"),
					   *fl = lr_kvlist_find(&r->recorder, "cflags"),
					   *conf = lr_kvlist_find(&r->recorder, "configure");

			/* 'identifier', not 'sha256': an entity with a sha256 is a file of the crate */
			snprintf(ident, sizeof ident, "sha256:%s", sha->value);
			json_object_set_new(tools_seen, bid, json_true());
			json_array_append_new(graph,
					      json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "@id", bid, "@type",
							"SoftwareApplication", "name", "labrun binary", "version",
							r->labrun_version, "identifier", ident, "description",
							build_text(cc, fl, conf, desc, sizeof desc)));
		}
		json_array_append_new(list, lr_crate_ref(bid));
	}
	for (i = 0; i < r->tools.n; i++) {
		char tid[320];

		snprintf(tid, sizeof tid, "#tool-%s-%s", r->tools.v[i].key, r->tools.v[i].value);
		if (!json_object_get(tools_seen, tid)) {
			json_object_set_new(tools_seen, tid, json_true());
			json_array_append_new(graph, json_pack("{s:s, s:s, s:s, s:s}", "@id", tid, "@type",
							       "SoftwareApplication", "name", r->tools.v[i].key,
							       "version", r->tools.v[i].value));
		}
		json_array_append_new(list, lr_crate_ref(tid));
	}
	return list;
}

/* One run: copy its files in, and describe it as a CreateAction. */
/* Where a run's files go: the crate's directory, and its graph's File entities for the run's action. */
struct run_sink {
	struct lr_store *st;
	const char *dir;
	json_t *graph, *parts, *objects, *results;
};

/* One file of the run (lr_crate_run_files): written or copied from the store, then a File of the action. */
static int put_run_file(void *arg, const struct lr_run_file *f)
{
	struct run_sink *s = arg;
	char full[PATH_MAX * 2];
	int rc;

	snprintf(full, sizeof full, "%s/%s", s->dir, f->rel);
	rc = f->text ? lr_crate_write_text(full, f->text, f->len) : lr_object_save(s->st, f->sha256, full);
	if (!rc)
		json_array_append_new(f->input ? s->objects : s->results,
				      lr_crate_add_file(s->dir, f->rel, s->graph, s->parts));
	return rc;
}

static int crate_run(struct lr_store *st, int64_t id, const char *dir, json_t *graph, json_t *parts, json_t *mentions,
		     json_t *tools_seen, char *latest, size_t latest_len)
{
	struct run_sink s = { st, dir, graph, parts, json_array(), json_array() };
	json_t *action;
	char urn[64];
	struct lr_run r;
	int rc;

	lr_run_init(&r);
	if ((rc = lr_store_run_load(st, id, &r)))
		goto out;
	/* the crate is dated by its evidence, not by the clock: the same runs give the same bytes */
	if (strcmp(r.ended_at ? r.ended_at : r.started_at, latest) > 0)
		snprintf(latest, latest_len, "%s", r.ended_at ? r.ended_at : r.started_at);
	if ((rc = lr_crate_run_files(st, &r, put_run_file, &s)))
		goto out;
	/* the software used: labrun itself, and each recorded tool version */
	snprintf(urn, sizeof urn, "urn:uuid:%s", r.uuid);
	if (!(action = lr_crate_action(&r, urn))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	json_object_set_new(action, "instrument", instruments(&r, graph, tools_seen));
	json_object_set_new(action, "object", s.objects);
	json_object_set_new(action, "result", s.results);
	s.objects = s.results = NULL;
	json_array_append_new(graph, action);
	json_array_append_new(mentions, lr_crate_ref(urn));
out:
	json_decref(s.objects);
	json_decref(s.results);
	lr_run_release(&r);
	return rc;
}

int lr_crate_ledger_entry(void *arg, const struct lr_ledger_entry *e)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s}", "seq", (json_int_t)e->seq, "run_uuid", e->run_uuid,
			      "kind", e->kind, "content", e->content, "prev", e->prev, "digest", e->digest,
			      "appended_at", e->appended_at);

	if (!o)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (e->signature) {
		json_object_set_new(o, "key_fingerprint", json_string(e->key_fingerprint));
		json_object_set_new(o, "signature", json_string(e->signature));
		json_object_set_new(o, "public_key", e->public_key ? json_string(e->public_key) : json_null());
	}
	return json_array_append_new(arg, o) ? lr_error_set(LR_ENOMEM, "out of memory") : 0;
}

/*
 * ledger.json: the ledger entries of the crate's runs, with their
 * signatures and the public keys that verify them, so a reader can check
 * them without the store (docs/schema.md gives the forms).
 */
static int write_ledger(struct lr_store *st, const int64_t *runs, int n, const char *dir)
{
	json_t *entries = json_array();
	char path[PATH_MAX], *text = NULL;
	int i, rc = entries ? 0 : lr_error_set(LR_ENOMEM, "out of memory");

	for (i = 0; i < n && !rc; i++)
		rc = lr_store_ledger_entries(st, runs[i], lr_crate_ledger_entry, entries);
	if (!rc && !(text = json_dumps(entries, JSON_INDENT(2))))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	snprintf(path, sizeof path, "%s/ledger.json", dir);
	if (!rc)
		rc = lr_crate_write_text(path, text, strlen(text));
	free(text);
	json_decref(entries);
	return rc;
}

/* The subjects of the File entities of 'graph' whose @id starts with 'prefix' ("" for all). */
static json_t *file_subjects(json_t *graph, const char *prefix)
{
	json_t *subjects = json_array(), *e;
	size_t i;

	json_array_foreach(graph, i, e) {
		const char *id = json_string_value(json_object_get(e, "@id"));

		if (strcmp(json_string_value(json_object_get(e, "@type")) ?: "", "File") ||
		    strncmp(id, prefix, strlen(prefix)))
			continue;
		json_array_append_new(subjects, json_pack("{s:s, s:{s:O}}", "name", id, "digest", "sha256",
							  json_object_get(e, "sha256")));
	}
	return subjects;
}

/* The seal the newest of a run's ledger entries holds (a run whose rows cannot travel as a bundle), or null. */
static json_t *seal_of(json_t *ledger)
{
	json_t *c = json_object_get(json_array_get(ledger, json_array_size(ledger) - 1), "content");

	return c ? json_incref(c) : json_null();
}

/*
 * What a run adds for a reader who checks it alone: run-ID/bundle.json,
 * every row its seal covers (docs/remote.md, "Run bundles"), and
 * run-ID/run.intoto.json, the signed Statement of every file of the run.
 */
static int crate_run_attest(struct lr_store *st, int64_t id, const char *dir, json_t *graph, json_t *parts)
{
	char rel[64], prefix[40], full[PATH_MAX * 2];
	json_t *pred = NULL, *ledger = json_array(), *subjects = NULL;
	struct lr_bundle b;
	struct lr_run r;
	int rc, bundled;

	memset(&b, 0, sizeof b);
	lr_run_init(&r);
	if ((rc = lr_store_run_load(st, id, &r)))
		goto out;
	/* a run still running has no seal and no bundle: its record is attested all the same */
	bundled = !(rc = lr_store_run_bundle_here(st, id, &b)); /* a pulled run's too: the crate's ids */
	if (rc && rc != LR_EINVAL)
		goto out;
	if (bundled) {
		snprintf(rel, sizeof rel, "run-%lld/bundle.json", (long long)id);
		snprintf(full, sizeof full, "%s/%s", dir, rel);
		if ((rc = lr_crate_write_text(full, b.text, strlen(b.text))))
			goto out;
		json_decref(lr_crate_add_file(dir, rel, graph, parts));
	}
	if ((rc = lr_store_ledger_entries(st, id, lr_crate_ledger_entry, ledger)))
		goto out;
	pred = json_pack("{s:s, s:I, s:s, s:s, s:o, s:o, s:O}", "runUuid", r.uuid, "runId", (json_int_t)id, "kind",
			 lr_run_kind_name(r.kind), "status", lr_status_name(r.status), "sealDigest",
			 bundled ? json_string(b.seal) : seal_of(ledger), "bundleSha256",
			 bundled ? json_string(b.sha256) : json_null(), "ledger", ledger);
	snprintf(prefix, sizeof prefix, "run-%lld/", (long long)id);
	subjects = file_subjects(graph, prefix);
	snprintf(rel, sizeof rel, "run-%lld/run.intoto.json", (long long)id);
	if (!pred || !subjects)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if (!(rc = lr_attest_write(lr_store_signer(st), dir, rel, subjects, LR_RUN_PREDICATE, pred)))
		json_decref(lr_crate_add_file(dir, rel, graph, parts));
	if (!rc && !(rc = lr_sigstore_write(dir, rel, full, sizeof full)) && full[0]) /* its envelope, for Sigstore */
		json_decref(lr_crate_add_file(dir, full, graph, parts));
out:
	rc = rc == LR_EINVAL && !bundled ? 0 : rc;
	json_decref(pred);
	json_decref(ledger);
	json_decref(subjects);
	lr_bundle_release(&b);
	lr_run_release(&r);
	return rc;
}

/* crate.intoto.json, written last: every other file of the crate, signed. */
static int crate_statement(struct lr_store *st, const char *dir, json_t *graph, json_t *mentions,
			   const struct lr_ledger_head *head, int site)
{
	const struct lr_signer *signer = lr_store_signer(st);
	json_t *subjects = file_subjects(graph, ""), *pred = NULL, *runs = json_array(), *m;
	char id[LR_STORE_ID_LEN];
	size_t i;
	int rc;

	json_array_foreach(mentions, i, m)
		json_array_append_new(runs,
				      json_string(json_string_value(json_object_get(m, "@id")) + strlen("urn:uuid:")));
	if ((rc = lr_store_id(st, id)) || (rc = lr_attest_subject(subjects, dir, "ro-crate-metadata.json")) ||
	    (rc = lr_attest_subject(subjects, dir, "manifest-sha256.txt")))
		goto out;
	/* runFiles: each run's files are the bytes its rows give (evidence/crate-run.c), byte for byte */
	pred = json_pack("{s:s, s:{s:I, s:s?}, s:O, s:s, s:i}", "storeId", id, "head", "seq", (json_int_t)head->seq,
			 "digest", head->seq ? head->digest : NULL, "runs", runs, "labrunVersion", PACKAGE_VERSION,
			 "runFiles", 1);
	/* how its report.md was written, so a reviewer can write it again: cut to fit in so many characters */
	if (pred)
		json_object_set_new(pred, "report",
				    json_pack("{s:I}", "markdownMaxChars", (json_int_t)LR_REPORT_MAX_CHARS));
	/* how its site was built, so a reviewer can build it again: the ledger's signers held to this key */
	if (pred && site)
		json_object_set_new(pred, "site",
				    json_pack("{s:s?}", "signer", signer ? lr_signer_fingerprint(signer) : NULL));
	rc = pred ? lr_attest_write(signer, dir, LR_CRATE_STATEMENT, subjects, LR_CRATE_PREDICATE, pred)
		  : lr_error_set(LR_ENOMEM, "out of memory");
out:
	json_decref(subjects);
	json_decref(pred);
	json_decref(runs);
	return rc;
}

static int tree_file(void *arg, const char *full, const char *rel)
{
	(void)full;
	return lr_strlist_add(arg, rel);
}

void lr_crate_site_trust(struct lr_trust *t, struct lr_trusted_key *k, const char *fpr)
{
	memset(t, 0, sizeof *t);
	memset(k, 0, sizeof *k);
	if (!fpr || !*fpr)
		return;
	snprintf(k->principal, sizeof k->principal, "%s", LR_CRATE_SIGNER);
	snprintf(k->fingerprint, sizeof k->fingerprint, "%s", fpr);
	t->keys = k;
	t->nkeys = 1;
}

/* site/: the static site of the runs, each of its files a File entity, in name order. */
static int crate_site(struct lr_store *st, const int64_t *runs, int n, const char *dir, json_t *graph, json_t *parts)
{
	const struct lr_signer *signer = lr_store_signer(st);
	struct lr_strlist files = { 0 };
	char full[PATH_MAX * 2], rel[PATH_MAX * 2];
	struct lr_trusted_key k;
	struct lr_trust t;
	int rc;

	lr_crate_site_trust(&t, &k, signer ? lr_signer_fingerprint(signer) : NULL);
	if ((rc = lr_path(full, sizeof full, "%s/site", dir)))
		return rc;
	if (mkdir(full, 0777) != 0)
		return lr_error_set(LR_EIO, "cannot create '%s': %s", full, strerror(errno));
	if (!(rc = lr_render_site_with(st, &(struct lr_site_opts){ &t, NULL, NULL, lr_object_save }, runs, n, full)))
		rc = lr_walk_files(full, tree_file, &files);
	for (size_t i = 0; i < files.n && !rc; i++)
		if (!(rc = lr_path(rel, sizeof rel, "site/%s", files.v[i])))
			json_decref(lr_crate_add_file(dir, rel, graph, parts));
	lr_strlist_release(&files);
	return rc;
}

/* A file at the crate's root, given whole, as a File entity. */
static int root_file(const char *dir, const char *name, const char *text, json_t *graph, json_t *parts)
{
	char full[PATH_MAX * 2];
	int rc;

	if ((rc = lr_path(full, sizeof full, "%s/%s", dir, name)) ||
	    (rc = lr_crate_write_text(full, text, strlen(text))))
		return rc;
	json_decref(lr_crate_add_file(dir, name, graph, parts));
	return 0;
}

/* The report (when the runs give one), the site when asked, and the signed head. */
static int crate_root_files(struct lr_store *st, const int64_t *runs, int n, const char *dir,
			    const struct lr_crate_opts *o, json_t *graph, json_t *parts)
{
	struct lr_crate_report rep;
	char full[PATH_MAX * 2], *head = NULL;
	int rc;

	if ((rc = lr_render_crate_files(st, runs, n, o->report_title ? o->report_title : o->title, &rep)))
		return rc;
	if (rep.md && !(rc = root_file(dir, "report.md", rep.md, graph, parts)))
		rc = root_file(dir, "report.json", rep.json, graph, parts);
	lr_render_crate_files_release(&rep);
	if (!rc && o->site)
		rc = crate_site(st, runs, n, dir, graph, parts);
	if (rc || (rc = lr_store_head_statement(st, &head)) || !head)
		goto out;
	snprintf(full, sizeof full, "%s/%s", dir, LR_HEAD_FILE);
	if (!(rc = lr_crate_write_text(full, head, strlen(head))))
		json_decref(lr_crate_add_file(dir, LR_HEAD_FILE, graph, parts));
out:
	free(head);
	return rc;
}

/* manifest-sha256.txt: BagIt-style "hex  path" for every File entity. */
static int write_bag_manifest(const char *dir, json_t *graph)
{
	char *text = lr_crate_bag_text(graph), path[PATH_MAX * 2];
	int rc;

	if (!text)
		return lr_error_set(LR_ENOMEM, "out of memory");
	snprintf(path, sizeof path, "%s/manifest-sha256.txt", dir);
	rc = lr_crate_write_text(path, text, strlen(text));
	free(text);
	return rc;
}

/* The crate's own entities: the metadata file, the dataset (returned; the graph holds it), licence, profile, labrun. */
static json_t *crate_entities(json_t *graph, const struct lr_crate_opts *o)
{
	json_t *dataset;

	json_array_append_new(graph, json_pack("{s:s, s:s, s:o, s:o}", "@id", "ro-crate-metadata.json", "@type",
					       "CreativeWork", "conformsTo", lr_crate_ref(LR_RO_CRATE), "about",
					       lr_crate_ref("./")));
	dataset = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "@id", "./", "@type", "Dataset", "name", o->title, "description",
		"Evidence recorded by labrun: commands, sources, binding, logs and measurements", "datePublished", "",
		"license", lr_crate_ref("#license"), "conformsTo", lr_crate_ref(LR_PROCESS_PROFILE));
	if (o->author)
		json_object_set_new(dataset, "author", json_string(o->author));
	if (o->publisher)
		json_object_set_new(dataset, "publisher", json_string(o->publisher));
	json_array_append_new(graph, dataset);
	json_array_append_new(
		graph, json_pack("{s:s, s:s, s:s}", "@id", "#license", "@type", "CreativeWork", "name", o->license));
	json_array_append_new(graph, json_pack("{s:s, s:s, s:s, s:s}", "@id", LR_PROCESS_PROFILE, "@type",
					       "CreativeWork", "name", "Process Run Crate", "version", "0.5"));
	json_array_append_new(graph,
			      json_pack("{s:s, s:s, s:s, s:s, s:s}", "@id", "#labrun", "@type", "SoftwareApplication",
					"name", "labrun", "version", PACKAGE_VERSION, "url", "#labrun"));
	return dataset;
}

int lr_crate_write(struct lr_store *st, const int64_t *runs, int n, const char *dir, const struct lr_crate_opts *o)
{
	json_t *root = json_object(), *graph = json_array(), *parts = json_array(), *mentions = json_array();
	json_t *tools = json_object(), *dataset, *ids = json_array();
	char path[PATH_MAX * 2], *text = NULL, latest[64] = "";
	struct lr_ledger_head head;
	int rc = 0, i, entities = 0;

	/* every file of the crate from one state of the store, whatever other processes commit meanwhile */
	if ((rc = lr_store_snapshot_begin(st)))
		goto free;
	if (mkdir(dir, 0777) != 0) {
		rc = lr_error_set(LR_EIO, "cannot create crate '%s': %s", dir, strerror(errno));
		if (errno == EEXIST)
			lr_error_hint("pick a new -o directory; a crate is written once");
		goto free;
	}
	dataset = crate_entities(graph, o);
	for (i = 0; i < n && !rc; i++)
		if (!(rc = crate_run(st, runs[i], dir, graph, parts, mentions, tools, latest, sizeof latest)))
			rc = crate_run_attest(st, runs[i], dir, graph, parts);
	if (rc || (rc = write_ledger(st, runs, n, dir)) || (rc = crate_root_files(st, runs, n, dir, o, graph, parts)))
		goto fail;
	json_decref(lr_crate_add_file(dir, "ledger.json", graph, parts));
	json_object_set_new(dataset, "datePublished", json_string(latest));
	for (i = 0; (size_t)i < json_array_size(mentions); i++)
		json_array_append(ids, json_object_get(json_array_get(mentions, i), "@id"));
	/* the ledger head the crate was written at: 'labrun audit --head' checks a store against it */
	if ((rc = lr_store_ledger_head(st, &head)))
		goto fail;
	if (head.seq) {
		snprintf(path, sizeof path, "labrun-ledger-head:%lld:%s", (long long)head.seq, head.digest);
		json_array_append_new(ids, json_string(path));
	}
	json_object_set(dataset, "hasPart", parts);
	json_object_set(dataset, "mentions", mentions);
	json_object_set(dataset, "identifier", ids);
	json_object_set_new(root, "@context", json_string(LR_RO_CONTEXT));
	json_object_set(root, "@graph", graph);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	snprintf(path, sizeof path, "%s/ro-crate-metadata.json", dir);
	if (!text) {
		rc = lr_error_set(LR_ENOMEM, "cannot serialise the crate metadata");
		goto fail;
	}
	if ((rc = lr_crate_write_text(path, text, strlen(text))) || (rc = write_bag_manifest(dir, graph)) ||
	    (rc = crate_statement(st, dir, graph, mentions, &head, o->site)))
		goto fail;
	/* labrun never leaves a crate its own validator rejects */
	if ((rc = lr_crate_validate(dir, &entities))) {
		lr_error_wrap("refusing to emit an invalid crate");
		goto fail;
	}
	goto free;
fail:
	lr_remove_tree(dir);
free:
	lr_store_snapshot_end(st);
	free(text);
	json_decref(root);
	json_decref(graph);
	json_decref(parts);
	json_decref(mentions);
	json_decref(tools);
	json_decref(ids);
	return rc;
}
