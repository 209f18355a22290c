/*
 * Checking a run bundle from another store before anything of it is written:
 * its sha256, format, host fingerprint, object columns, seal and ledger. A
 * bundle is data from another host; nothing in it is trusted until it holds.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/seal.h"
#include "base/sign.h"
#include "store/remote.h"
#include "store/store-int.h"

void lr_bundle_release(struct lr_bundle *b)
{
	free(b->text);
	free(b->kind);
	free(b->status);
	free(b->hostname);
	free(b->started_at);
	lr_strlist_release(&b->issues);
	lr_kvlist_release(&b->objects);
	lr_strlist_release(&b->needs);
	lr_kvlist_release(&b->signers);
	memset(b, 0, sizeof *b);
}

/* "run UUID: WHY" as an LR_EINVAL error, WHY printf-style. */
static int bad(const struct lr_bundle *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const struct lr_bundle *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_error_vset(LR_EINVAL, fmt, ap);
	va_end(ap);
	lr_error_wrap("run %s", b->uuid[0] ? b->uuid : "(unknown)");
	lr_error_hint("the bundle was changed after its run was sealed, or was damaged on the way");
	return LR_EINVAL;
}

/* Column 'name' of the first row of table 't' (borrowed), or NULL. */
static json_t *first_row_value(json_t *tables, const char *t, const char *name)
{
	json_t *tab = json_object_get(tables, t), *cols = json_object_get(tab, "columns"), *v;
	size_t i;

	json_array_foreach(cols, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return json_array_get(json_array_get(json_object_get(tab, "rows"), 0), i);
	return NULL;
}

static const char *first_row_str(json_t *tables, const char *t, const char *name)
{
	return json_string_value(first_row_value(tables, t, name));
}

/*
 * The host row's fingerprint is recomputed from its facts: hosts meet in a
 * store by fingerprint, so a forged one would merge another host's runs
 * with this one's, or give one host two names.
 */
static int check_host(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *cores = first_row_value(tables, "host", "cores"),
	       *memory = first_row_value(tables, "host", "memory_bytes");
	const char *fp = first_row_str(tables, "host", "fingerprint");
	struct lr_host h = {
		.hostname = (char *)first_row_str(tables, "host", "hostname"),
		.os = (char *)first_row_str(tables, "host", "os"),
		.kernel = (char *)first_row_str(tables, "host", "kernel"),
		.arch = (char *)first_row_str(tables, "host", "arch"),
		.cpu_model = (char *)first_row_str(tables, "host", "cpu_model"),
		.cpu_flags = (char *)first_row_str(tables, "host", "cpu_flags"),
		.cores = json_integer_value(cores),
		.memory_bytes = json_integer_value(memory),
	};
	char now[LR_SHA256_HEX];
	int rc;

	if (json_array_size(json_object_get(json_object_get(tables, "host"), "rows")) != 1 || !fp || !h.hostname ||
	    !h.kernel || !h.arch || !json_is_integer(cores) ||
	    (memory && !json_is_null(memory) && !json_is_integer(memory)))
		return bad(b, "its bundle does not hold exactly one complete host row");
	if ((rc = lr_host_fingerprint(&h, now)))
		return rc;
	if (strcmp(now, fp))
		return bad(b, "its host row's fingerprint %.12s... is not the sha256 of its facts (%.12s...)", fp, now);
	return 0;
}

/* The digest of table 'name's rows in the bundle (of no rows when absent), as seals.c computes it. */
static int table_digest(json_t *tables, const char *name, char hex[LR_SHA256_HEX])
{
	json_t *rows = json_object_get(json_object_get(tables, name), "rows"), *row, *v;
	struct lr_seal_table t;
	size_t i, c;
	int rc;

	if ((rc = lr_seal_table_init(&t)))
		return rc;
	json_array_foreach(rows, i, row) {
		json_array_foreach(row, c, v) {
			if (json_is_integer(v))
				lr_seal_int(&t, json_integer_value(v));
			else if (json_is_real(v))
				lr_seal_real(&t, json_real_value(v));
			else if (json_is_string(v))
				lr_seal_bytes(&t, LR_SEAL_TEXT, json_string_value(v), json_string_length(v));
			else
				lr_seal_null(&t);
		}
		lr_seal_row_end(&t);
	}
	lr_seal_table_final(&t, hex);
	return 0;
}

static int seal_changed(void *arg, const char *table)
{
	return bad(arg, "its rows of table '%s' do not give the seal they carry", table);
}

/* The bundle's rows still give its seal; every table it has is covered by the seal. */
static int check_seal(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *seal = json_object_get(doc, "seal"), *stored, *v;
	const char *digest = json_string_value(json_object_get(seal, "digest")),
		   *text = json_string_value(json_object_get(seal, "tables")), *name;
	struct lr_kvlist now = { 0 };
	char hex[LR_SHA256_HEX], *json = NULL;
	int rc = 0;

	if (!digest || !text || strlen(digest) != 64 || !(stored = json_loads(text, 0, NULL)))
		return bad(b, "its bundle has no readable seal");
	json_object_foreach(tables, name, v)
		if (!json_object_get(stored, name))
			rc = bad(b, "its rows of table '%s' are not covered by its seal", name);
	json_object_foreach(stored, name, v)
		if (!rc && !(rc = table_digest(tables, name, hex)))
			rc = lr_kvlist_add(&now, name, hex, NULL);
	if (!rc)
		rc = lr_seal_compare(text, &now, seal_changed, b);
	if (!rc && !(rc = lr_seal_digest(&now, &json, hex)) && strcmp(hex, digest))
		rc = bad(b, "its seal digest is not the digest of its tables");
	if (!rc)
		memcpy(b->seal, digest, LR_SHA256_HEX);
	free(json);
	json_decref(stored);
	lr_kvlist_release(&now);
	return rc;
}

/* Each ledger entry's digest holds, each signature verifies, and the last one is the seal's. */
static int check_ledger(struct lr_bundle *b, json_t *doc)
{
	json_t *entries = json_object_get(doc, "ledger"), *e;
	char want[LR_SHA256_HEX], fpr[LR_SHA256_HEX];
	const char *content = NULL;
	size_t i;
	int rc = 0;

	json_array_foreach(entries, i, e) {
		const char *kind = json_string_value(json_object_get(e, "kind")),
			   *prev = json_string_value(json_object_get(e, "prev")),
			   *digest = json_string_value(json_object_get(e, "digest")),
			   *pub = json_string_value(json_object_get(e, "public_key")),
			   *sig = json_string_value(json_object_get(e, "signature"));

		content = json_string_value(json_object_get(e, "content"));
		if (!kind || !prev || !digest || !content)
			return bad(b, "ledger entry in its bundle is incomplete");
		if ((rc = lr_ledger_digest(json_integer_value(json_object_get(e, "seq")), b->uuid, kind, content, prev,
					   want)))
			return rc;
		if (strcmp(want, digest))
			return bad(b, "a ledger entry of its bundle does not match its fields");
		if ((pub || sig) && (!pub || !sig || lr_key_fingerprint(pub, fpr) || lr_verify(pub, digest, sig)))
			return bad(b, "the signature of a ledger entry of its bundle does not verify");
		if (pub) {
			char seq[24];

			snprintf(seq, sizeof seq, "%lld", (long long)json_integer_value(json_object_get(e, "seq")));
			if ((rc = lr_kvlist_add(&b->signers, seq, pub, NULL)))
				return rc;
		}
	}
	if (!content || strcmp(content, b->seal))
		return bad(b, "its last ledger entry is not its seal");
	return 0;
}

/* The fields push and pull need: what the run is, its issues, objects and the runs it points at. */
static int bundle_fields(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *v, *row;
	const char *uuid = first_row_str(tables, "run", "uuid"), *key;
	json_t *issues = json_object_get(json_object_get(tables, "run_issue"), "rows");
	char size[32];
	size_t i;
	int rc = 0;

	if (json_integer_value(json_object_get(doc, "labrun_bundle")) != LR_BUNDLE_FORMAT) {
		lr_error_set(LR_EINVAL, "cannot read a run bundle of format %lld: this labrun reads format %d",
			     (long long)json_integer_value(json_object_get(doc, "labrun_bundle")), LR_BUNDLE_FORMAT);
		lr_error_hint("a newer labrun pushed it: upgrade labrun on this host");
		return LR_EINVAL;
	}
	if (!uuid || strlen(uuid) != 36 ||
	    json_array_size(json_object_get(json_object_get(tables, "run"), "rows")) != 1)
		return bad(b, "its bundle does not hold exactly one run row");
	snprintf(b->uuid, sizeof b->uuid, "%s", uuid);
	if (!(b->kind = lr_strdup0(first_row_str(tables, "run", "kind"))) ||
	    !(b->status = lr_strdup0(first_row_str(tables, "run", "status"))) ||
	    !(b->started_at = lr_strdup0(first_row_str(tables, "run", "started_at"))) ||
	    !(b->hostname = lr_strdup0(first_row_str(tables, "host", "hostname"))))
		return bad(b, "its bundle lacks its kind, status, start or host");
	if (!strcmp(b->status, "running"))
		return bad(b, "its bundle holds a run still running");
	json_array_foreach(issues, i, row)
		if (!rc && json_is_string(json_array_get(row, 1)))
			rc = lr_strlist_add(&b->issues, json_string_value(json_array_get(row, 1)));
	json_object_foreach(json_object_get(doc, "objects"), key, v) {
		if (rc || strlen(key) != 64 || strspn(key, "0123456789abcdef") != 64 || !json_is_integer(v))
			return rc ? rc : bad(b, "its bundle names an object that is not a sha256");
		snprintf(size, sizeof size, "%lld", (long long)json_integer_value(v));
		rc = lr_kvlist_add(&b->objects, key, size, NULL);
	}
	json_object_foreach(json_object_get(json_object_get(doc, "refs"), "run"), key, v)
		if (!rc && json_is_string(v) && !lr_strlist_contains(&b->needs, json_string_value(v)))
			rc = lr_strlist_add(&b->needs, json_string_value(v));
	json_object_foreach(json_object_get(json_object_get(doc, "refs"), "response_set"), key, v)
		if (!rc && json_is_string(json_array_get(v, 0)) &&
		    !lr_strlist_contains(&b->needs, json_string_value(json_array_get(v, 0))))
			rc = lr_strlist_add(&b->needs, json_string_value(json_array_get(v, 0)));
	return rc;
}

/* The columns whose values name objects in objects/ (docs/schema.md). */
static const struct {
	const char *table, *column;
} object_columns[] = {
	{ "artifact", "sha256" },         { "execution", "stdout_sha256" }, { "execution", "stderr_sha256" },
	{ "execution_output", "sha256" }, { "response_set", "raw_sha256" }, { "gate", "key_sha256" },
};

/*
 * Every value of a column that names an object is the sha256 of an object
 * the bundle carries: from another host, a path there ('/etc/shadow',
 * '../../x') would make fsck, scan and cat read any file here.
 */
static int check_objects(struct lr_bundle *b, json_t *doc)
{
	json_t *tables = json_object_get(doc, "tables"), *row;
	size_t k, i, c, n;

	for (k = 0; k < sizeof object_columns / sizeof object_columns[0]; k++) {
		json_t *t = json_object_get(tables, object_columns[k].table), *cols = json_object_get(t, "columns");
		const char *name;

		for (c = 0, n = json_array_size(cols); c < n; c++)
			if ((name = json_string_value(json_array_get(cols, c))) &&
			    !strcmp(name, object_columns[k].column))
				break;
		if (c == n)
			continue;
		json_array_foreach(json_object_get(t, "rows"), i, row) {
			json_t *v = json_array_get(row, c);
			const char *sha = json_string_value(v);

			if (json_is_null(v))
				continue;
			if (!sha || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
				return bad(
					b,
					"its table '%s', column '%s', row %zu, names an object by something that is not "
					"a sha256",
					object_columns[k].table, object_columns[k].column, i + 1);
			if (!lr_kvlist_find(&b->objects, sha))
				return bad(
					b,
					"its table '%s', column '%s', row %zu, names object %s, which the bundle does "
					"not carry",
					object_columns[k].table, object_columns[k].column, i + 1, sha);
		}
	}
	return 0;
}

int lr_bundle_parse(struct lr_bundle *b, const char *text, const char *sha256)
{
	char hex[LR_SHA256_HEX];
	json_error_t err;
	json_t *doc;
	int rc;

	memset(b, 0, sizeof *b);
	if ((rc = lr_sha256_buf(text, strlen(text), hex)))
		return rc;
	if (strcmp(hex, sha256)) {
		lr_error_set(LR_EINVAL,
			     "a run bundle does not match its sha256: %.12s... was expected, it has %.12s...", sha256,
			     hex);
		lr_error_hint("the bundle was changed or damaged on the way");
		return LR_EINVAL;
	}
	if (!(doc = json_loads(text, JSON_REJECT_DUPLICATES, &err))) {
		lr_error_set(LR_EINVAL, "cannot read a run bundle: %s (line %d)", err.text, err.line);
		return LR_EINVAL;
	}
	if (!(rc = bundle_fields(b, doc)) && !(rc = check_host(b, doc)) && !(rc = check_objects(b, doc)) &&
	    !(rc = check_seal(b, doc)) && !(rc = check_ledger(b, doc)) && !(b->text = strdup(text)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	if (!rc)
		memcpy(b->sha256, sha256, LR_SHA256_HEX);
	json_decref(doc);
	if (rc)
		lr_bundle_release(b);
	return rc;
}
