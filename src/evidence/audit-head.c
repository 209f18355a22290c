/* audit --head FILE: a signed ledger head read from a file, and checked entry by entry against the store's ledger. */
#include "config.h"
#include "base/system.h"

#include "base/dsse.h"
#include "base/error.h"
#include "base/strmap.h"
#include "base/walk.h"
#include "evidence/audit.h"
#include "evidence/headcmp.h"
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
	FILE *f = NULL;
	int rc;

	*env = NULL;
	/* a file the user names: regular, bounded, never a FIFO waited on; unreadable is not absent */
	if ((rc = lr_fopen_input("signed head", path, (size_t)16 << 20, &f)))
		return rc;
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

/* The store whose runs are named, and where problems go. */
struct named {
	struct lr_store *st;
	struct lr_audit_ctx *c;
};

/* "run 3 (UUID)" or "run UUID" when it is not in the store. */
static void run_name(void *arg, const char *uuid, char *buf, size_t len)
{
	const struct named *n = arg;
	int64_t id = 0;

	if (!lr_store_run_resolve(n->st, uuid, &id))
		snprintf(buf, len, "run %lld (%s)", (long long)id, uuid);
	else
		snprintf(buf, len, "run %s", uuid);
	lr_error_clear();
}

static void head_problem(void *arg, int64_t seq, const char *uuid, const char *text)
{
	lr_audit_problem(((struct named *)arg)->c, seq, uuid, text);
}

int lr_audit_signed_head(struct lr_store *st, const json_t *env, const struct lr_trust *t, lr_audit_fn fn,
			 lr_ledger_fn later, void *arg, int *problems, int64_t *seq)
{
	struct lr_audit_ctx c = { fn, arg, problems };
	struct lr_head_seen x = { { 0 }, { 0 }, { 0 } };
	struct named n = { st, &c };
	struct lr_dsse_opened o;
	char id[LR_STORE_ID_LEN], msg[512], digest[LR_SHA256_HEX];
	json_t *stmt = NULL, *pred;
	const char *sid;
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
	if ((rc = lr_store_id(st, id)) || (rc = lr_store_ledger_entries(st, 0, lr_head_seen_add, &x)))
		goto out;
	rc = 0;
	if (strcmp(sid, id)) {
		snprintf(msg, sizeof msg, "the signed head is of store %s, this store is %s", sid, id);
		lr_audit_problem(&c, 0, "", msg);
	}
	if ((rc = lr_head_compare(json_object_get(pred, "entries"), &x, 0, run_name, head_problem, &n)))
		goto out;
	/* what was appended after the head: listed, not problems */
	if (!(rc = lr_store_ledger_after(st, *seq, digest, later, arg)))
		rc = 0;
out:
	lr_head_seen_release(&x);
	json_decref(stmt);
	lr_dsse_opened_release(&o);
	return rc;
}
