#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/seal.h"

/* The digest of a table with no rows: sha256 of nothing. */
#define EMPTY_TABLE "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

int lr_seal_table_init(struct lr_seal_table *t)
{
	t->n = 0;
	return lr_sha256_init(&t->h);
}

/* Append to the table's byte stream (the digest is of the stream, however it is cut). */
static void put(struct lr_seal_table *t, const void *p, size_t len)
{
	if (t->n + len > sizeof t->buf) {
		lr_sha256_update(&t->h, t->buf, t->n);
		t->n = 0;
		if (len > sizeof t->buf) {
			lr_sha256_update(&t->h, p, len);
			return;
		}
	}
	memcpy(t->buf + t->n, p, len);
	t->n += len;
}

static void type_byte(struct lr_seal_table *t, enum lr_seal_type type)
{
	unsigned char b = (unsigned char)type;

	put(t, &b, 1);
}

static void bits_le(struct lr_seal_table *t, uint64_t bits)
{
	unsigned char le[9];
	int b;

	for (b = 0; b < 8; b++)
		le[b] = (unsigned char)(bits >> (8 * b));
	le[8] = 0x1f;
	put(t, le, 9);
}

void lr_seal_int(struct lr_seal_table *t, int64_t v)
{
	type_byte(t, LR_SEAL_INTEGER);
	bits_le(t, (uint64_t)v);
}

void lr_seal_real(struct lr_seal_table *t, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	type_byte(t, LR_SEAL_FLOAT);
	bits_le(t, bits);
}

void lr_seal_bytes(struct lr_seal_table *t, enum lr_seal_type type, const void *p, size_t len)
{
	type_byte(t, type);
	if (p)
		put(t, p, len);
	put(t, "\x1f", 1);
}

void lr_seal_null(struct lr_seal_table *t)
{
	type_byte(t, LR_SEAL_NULL);
	put(t, "\x1f", 1);
}

void lr_seal_row_end(struct lr_seal_table *t)
{
	put(t, "\x1e", 1);
}

void lr_seal_table_final(struct lr_seal_table *t, char hex[LR_SHA256_HEX])
{
	lr_sha256_update(&t->h, t->buf, t->n);
	t->n = 0;
	lr_sha256_final(&t->h, hex);
}

int lr_seal_digest(const struct lr_kvlist *tables, char **json, char digest[LR_SHA256_HEX])
{
	json_t *o = json_object();
	size_t i;
	int rc = 0;

	*json = NULL;
	for (i = 0; o && i < tables->n && !rc; i++)
		if (json_object_set_new(o, tables->v[i].key, json_string(tables->v[i].value)))
			rc = LR_ENOMEM;
	if (o && !rc)
		*json = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (!*json)
		return lr_error_set(LR_ENOMEM, "out of memory");
	return lr_sha256_buf(*json, strlen(*json), digest);
}

int lr_seal_digest_as_sealed(const struct lr_kvlist *now, const char *stored, char digest[LR_SHA256_HEX])
{
	json_t *a = stored ? json_loads(stored, 0, NULL) : NULL;
	struct lr_kvlist kept = { 0 };
	char *json = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < now->n && !rc; i++)
		if (!a || json_object_get(a, now->v[i].key) || strcmp(now->v[i].value, EMPTY_TABLE))
			rc = lr_kvlist_add(&kept, now->v[i].key, now->v[i].value, NULL);
	if (!rc)
		rc = lr_seal_digest(&kept, &json, digest);
	free(json);
	lr_kvlist_release(&kept);
	json_decref(a);
	return rc;
}

int lr_ledger_digest(int64_t seq, const char *run_uuid, const char *kind, const char *content, const char *prev,
		     char digest[LR_SHA256_HEX])
{
	char *text;
	int n, rc;

	n = asprintf(&text, "labrun-ledger-1\n%lld\n%s\n%s\n%s\n%s\n", (long long)seq, run_uuid, kind, content, prev);
	if (n < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_sha256_buf(text, (size_t)n, digest);
	free(text);
	return rc;
}

int lr_seal_compare(const char *stored, const struct lr_kvlist *now, int (*changed)(void *arg, const char *table),
		    void *arg)
{
	json_t *a = json_loads(stored, 0, NULL);
	size_t i;
	int rc = 0;

	if (!a || !json_is_object(a)) {
		json_decref(a);
		return changed(arg, "run_seal");
	}
	for (i = 0; i < now->n && !rc; i++) {
		const char *was = json_string_value(json_object_get(a, now->v[i].key));

		if (!was && !strcmp(now->v[i].value, EMPTY_TABLE))
			continue; /* a table newer than the seal, still empty for this run */
		if (!was || strcmp(was, now->v[i].value))
			rc = changed(arg, now->v[i].key);
	}
	json_decref(a);
	return rc;
}
