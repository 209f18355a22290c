/* audit --head FILE: a signed ledger head read from a file, and checked entry by entry against the store's ledger. */
#include "config.h"
#include "base/system.h"

#include "base/dsse.h"
#include "base/error.h"
#include "base/strmap.h"
#include "evidence/audit.h"
#include "store/ledger.h"
#include "store/runs.h"

int lr_audit_problem(void *arg, int64_t seq, const char *run_uuid, const char *text)
{
	struct lr_audit_ctx *c = arg;

	(void)seq;
	(void)run_uuid;
	(*c->problems)++;
	c->fn(c->arg, 0, text);
	return 0;
}

/* Why 'path' (its text) holds no signed head, and what to give instead. */
static void no_head(const char *path, const char *text)
{
	lr_error_set(LR_EINVAL, "'%s' holds no signed ledger head%s", path,
		     strstr(text, "Ledger head: ") ? ": labrun writes a report's signed head beside it, as a file"
						   : "");
	lr_error_hint("give the file 'labrun report -o FILE' writes beside FILE, FILE.head.json (here '%s.head.json'), "
		      "a crate's ledger-head.intoto.json, a JSON report, or SEQ:DIGEST",
		      path);
}

int lr_head_load(const char *path, json_t **env)
{
	json_error_t jerr;
	json_t *doc = NULL;
	char *text = NULL, *block, *end;
	size_t len = 0;
	FILE *f = fopen(path, "re");
	int rc = 0;

	*env = NULL;
	if (!f)
		return lr_error_set(LR_ENOTFOUND, "cannot read signed head '%s': %s", path, strerror(errno));
	if (getdelim(&text, &len, 0, f) < 0 && ferror(f))
		rc = lr_error_set(LR_EIO, "cannot read signed head '%s'", path);
	fclose(f);
	if (rc || !text) {
		free(text);
		return rc ? rc : lr_error_set(LR_EINVAL, "signed head '%s' is empty", path);
	}
	if (!(doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr)) &&
	    json_error_code(&jerr) == json_error_duplicate_key)
		rc = lr_error_set(LR_EINVAL, "signed head '%s' names a key twice in one object: %s (line %d)", path,
				  jerr.text, jerr.line);
	else if (doc) {
		json_t *st = json_object_get(json_object_get(doc, "ledger_head"), "statement");

		*env = json_object_get(doc, "payloadType") ? json_incref(doc) : json_incref(st);
	} else if ((block = strstr(text, "The signed ledger head")) && (block = strstr(block, "```json\n")) &&
		   (end = strstr(block + 8, "\n```"))) {
		*end = 0;
		*env = json_loads(block + 8, JSON_REJECT_DUPLICATES, NULL);
	}
	json_decref(doc);
	if (!*env && !rc)
		no_head(path, text);
	free(text);
	return *env ? 0 : LR_EINVAL;
}

/* The store's ledger as (seq, run uuid, digest), oldest first; uuid's tag: the entry's rank among its run's. */
struct entries {
	struct lr_kvlist uuid, digest; /* key: the entry's seq in decimal */
	struct lr_strmap runs;         /* run uuid -> its entries so far */
};

/* The next entry of run 'uuid' counted in 'runs': its rank (1, 2, ...: a design, a final, amends) as text. */
static int next_rank(struct lr_strmap *runs, const char *uuid, char rank[24])
{
	intptr_t k = 0;

	k = lr_strmap_get(runs, uuid, &k) ? k + 1 : 1;
	snprintf(rank, 24, "%ld", (long)k);
	return lr_strmap_put(runs, uuid, k);
}

static int keep_entry(void *arg, const struct lr_ledger_entry *e)
{
	struct entries *x = arg;
	char seq[24], rank[24];
	int rc;

	snprintf(seq, sizeof seq, "%lld", (long long)e->seq);
	if (!(rc = next_rank(&x->runs, e->run_uuid, rank)) && !(rc = lr_kvlist_add(&x->uuid, seq, e->run_uuid, rank)))
		rc = lr_kvlist_add(&x->digest, seq, e->digest, NULL);
	return rc;
}

/* "run 3 (UUID)" or "run UUID" when it is not in the store. */
static void run_name(struct lr_store *st, const char *uuid, char *buf, size_t len)
{
	int64_t id = 0;

	if (!lr_store_run_resolve(st, uuid, &id))
		snprintf(buf, len, "run %lld (%s)", (long long)id, uuid);
	else
		snprintf(buf, len, "run %s", uuid);
	lr_error_clear();
}

/* Check one entry of the signed head, its run's 'rank'th, against the store's ledger. */
static void head_entry(struct lr_store *st, struct lr_audit_ctx *c, const struct entries *x, int64_t seq,
		       const char *uuid, const char *digest, const char *rank)
{
	char key[24], name[160], msg[512];
	const struct lr_kv *here;
	size_t i, j;

	snprintf(key, sizeof key, "%lld", (long long)seq);
	/* a ledger numbers its entries 1, 2, ...: look there first */
	if (seq >= 1 && (size_t)seq <= x->digest.n && !strcmp(x->digest.v[seq - 1].key, key))
		here = &x->digest.v[seq - 1];
	else
		here = lr_kvlist_find(&x->digest, key);
	if (here && !strcmp(here->value, digest))
		return;
	run_name(st, uuid, name, sizeof name);
	for (i = 0; i < x->digest.n; i++)
		if (!strcmp(x->digest.v[i].value, digest))
			break;
	if (i < x->digest.n) {
		snprintf(msg, sizeof msg,
			 "%s was entry %lld at the signed head and is entry %s now: the ledger was "
			 "reordered",
			 name, (long long)seq, x->digest.v[i].key);
		goto out;
	}
	/* the entry of the same run and rank now (its first: its design or its final; then amends) */
	for (j = 0; j < x->uuid.n && (strcmp(x->uuid.v[j].value, uuid) || strcmp(x->uuid.v[j].tag, rank)); j++)
		;
	if (j == x->uuid.n)
		snprintf(msg, sizeof msg, "%s, entry %lld at the signed head, is not in the ledger: deleted", name,
			 (long long)seq);
	else if (!strcmp(x->uuid.v[j].key, key))
		snprintf(msg, sizeof msg,
			 "%s, entry %lld at the signed head, was changed: its entry is not the one "
			 "signed",
			 name, (long long)seq);
	else
		snprintf(msg, sizeof msg,
			 "%s, entry %lld at the signed head, is entry %s now and changed: the ledger "
			 "was reordered and rewritten",
			 name, (long long)seq, x->uuid.v[j].key);
out:
	lr_audit_problem(c, seq, uuid, msg);
}

int lr_audit_signed_head(struct lr_store *st, const json_t *env, const struct lr_trust *t, lr_audit_fn fn,
			 lr_ledger_fn later, void *arg, int *problems, int64_t *seq)
{
	struct lr_audit_ctx c = { fn, arg, problems };
	struct entries x = { { 0 }, { 0 }, { 0 } };
	struct lr_strmap head_runs = { 0 };
	char rank[24];
	struct lr_dsse_opened o;
	char id[LR_STORE_ID_LEN], msg[512], digest[LR_SHA256_HEX];
	json_t *stmt = NULL, *pred, *e;
	const char *sid;
	size_t i;
	int rc;

	*seq = 0;
	rc = lr_dsse_open(env, t, NULL, 0, &o);
	if (rc && rc != LR_EREFUSED)
		return rc;
	if (rc) {
		snprintf(msg, sizeof msg, "the signed head is not signed by a key you trust: %s", lr_error_msg());
		lr_audit_problem(&c, 0, "", msg);
	}
	stmt = json_loads(o.payload, 0, NULL);
	pred = json_object_get(stmt, "predicate");
	sid = json_string_value(json_object_get(pred, "storeId"));
	*seq = json_integer_value(json_object_get(pred, "seq"));
	if (!sid || *seq < 1 ||
	    strcmp(json_string_value(json_object_get(stmt, "predicateType")) ?: "", LR_HEAD_PREDICATE) ||
	    !json_is_array(json_object_get(pred, "entries"))) {
		rc = lr_error_set(LR_EINVAL, "the signed head is not a labrun ledger head (%s)", LR_HEAD_PREDICATE);
		goto out;
	}
	if ((rc = lr_store_id(st, id)) || (rc = lr_store_ledger_entries(st, 0, keep_entry, &x)))
		goto out;
	rc = 0;
	if (strcmp(sid, id)) {
		snprintf(msg, sizeof msg, "the signed head is of store %s, this store is %s", sid, id);
		lr_audit_problem(&c, 0, "", msg);
	}
	json_array_foreach(json_object_get(pred, "entries"), i, e) {
		const char *u = json_string_value(json_object_get(e, "run_uuid")),
			   *d = json_string_value(json_object_get(e, "digest"));

		if (u && d && (rc = next_rank(&head_runs, u, rank)))
			goto out;
		if (u && d)
			head_entry(st, &c, &x, json_integer_value(json_object_get(e, "seq")), u, d, rank);
	}
	/* what was appended after the head: listed, not problems */
	if (!(rc = lr_store_ledger_after(st, *seq, digest, later, arg)))
		rc = 0;
out:
	lr_kvlist_release(&x.uuid);
	lr_kvlist_release(&x.digest);
	lr_strmap_release(&x.runs);
	lr_strmap_release(&head_runs);
	json_decref(stmt);
	lr_dsse_opened_release(&o);
	return rc;
}
