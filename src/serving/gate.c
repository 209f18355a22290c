#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include <jansson.h>

#include "base/error.h"
#include "base/list.h"
#include "base/lines.h"
#include "base/strmap.h"
#include "serving/serving.h"
#include "store/objects.h"
#include "store/serving.h"

/* One line of an answer key. */
struct key_case {
	char *case_id;
	json_t *answer;
	json_t *keys; /* array of strings */
	int seen;     /* a response was scored for it */
	struct lr_gate_case result;
};

struct key {
	struct key_case *v;
	size_t n, cap;
	struct lr_strmap index; /* case_id -> position + 1 */
};

static void key_release(struct key *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->v[i].case_id);
		json_decref(k->v[i].answer);
		json_decref(k->v[i].keys);
	}
	free(k->v);
	lr_strmap_release(&k->index);
}

static int bad(const char *path, long long line, const char *why)
{
	lr_error_set(LR_EDATA, "%s:%lld: %s", path, line, why);
	lr_error_hint("one JSON object a line: {\"case_id\": ..., \"answer\": ..., \"keys\": [...]} (docs/serving.md); "
		      "nothing was stored");
	return LR_EDATA;
}

/* Check one key line and append it. */
static int key_line(struct key *k, const char *path, long long n, const char *buf, size_t len)
{
	json_t *o, *id, *keys;
	json_error_t err;
	intptr_t first;
	char why[300];
	size_t i, j;
	int rc;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (!len)
		return bad(path, n, "empty line");
	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!o || !json_is_object(o)) {
		snprintf(why, sizeof why, "not a JSON object%s%s", o ? "" : ": ", o ? "" : err.text);
		json_decref(o);
		return bad(path, n, why);
	}
	id = json_object_get(o, "case_id");
	keys = json_object_get(o, "keys");
	rc = 0;
	if (!json_is_string(id) || !json_string_length(id))
		rc = bad(path, n, "'case_id' must be a non-empty string");
	else if (!json_object_get(o, "answer"))
		rc = bad(path, n, "'answer' is missing (any JSON value, null included)");
	else if (!json_is_array(keys))
		rc = bad(path, n, "'keys' must be an array of member names");
	for (i = 0; !rc && i < json_array_size(keys); i++) {
		if (!json_is_string(json_array_get(keys, i)))
			rc = bad(path, n, "'keys' must hold strings only");
		for (j = 0; !rc && j < i; j++)
			if (json_equal(json_array_get(keys, i), json_array_get(keys, j)))
				rc = bad(path, n, "'keys' names a member twice");
	}
	if (!rc && lr_strmap_get(&k->index, json_string_value(id), &first)) {
		snprintf(why, sizeof why, "duplicate case_id: first at line %lld", (long long)first);
		rc = bad(path, n, why);
	}
	if (!rc)
		rc = LR_ALLOC_GROW(k->v, k->n + 1, k->cap);
	if (!rc) {
		struct key_case *c = &k->v[k->n];

		memset(c, 0, sizeof *c);
		c->case_id = strdup(json_string_value(id));
		c->answer = json_incref(json_object_get(o, "answer"));
		c->keys = json_incref(keys);
		k->n++;
		rc = c->case_id ? lr_strmap_put(&k->index, c->case_id, (intptr_t)n)
				: lr_error_set(LR_ENOMEM, "out of memory");
	}
	json_decref(o);
	return rc;
}

static int key_load(struct key *k, const char *path)
{
	struct lr_lines lines;
	char *buf;
	size_t len, i;
	int rc;

	if ((rc = lr_lines_open(&lines, "answer key", path, LR_LINE_MAX, LR_LINES_FILE_MAX))) {
		lr_error_hint("name the frozen key file (JSON lines)");
		return rc;
	}
	while ((rc = lr_lines_next(&lines, &buf, &len)) > 0 && !(rc = key_line(k, path, lines.line, buf, len)))
		;
	lr_lines_close(&lines);
	if (!rc && !k->n)
		rc = bad(path, 1, "the key has no cases");
	/* the index maps to positions from here on */
	for (i = 0; !rc && i < k->n; i++)
		rc = lr_strmap_put(&k->index, k->v[i].case_id, (intptr_t)(i + 1));
	return rc;
}

/* Format: the trimmed text is exactly one JSON object whose members are exactly 'keys'. */
static json_t *strict_object(const char *text, size_t len, json_t *keys)
{
	json_error_t err;
	json_t *o;
	size_t i;

	while (len && isspace((unsigned char)*text))
		text++, len--;
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!o || !json_is_object(o) || json_object_size(o) != json_array_size(keys))
		goto no;
	for (i = 0; i < json_array_size(keys); i++)
		if (!json_object_get(o, json_string_value(json_array_get(keys, i))))
			goto no;
	return o;
no:
	json_decref(o);
	return NULL;
}

static int score(void *arg, const struct lr_response *r)
{
	struct key *k = arg;
	struct key_case *c;
	intptr_t pos;
	json_t *o;

	if (!lr_strmap_get(&k->index, r->case_id, &pos))
		return 0; /* not a case of the key */
	c = &k->v[pos - 1];
	c->seen = 1;
	o = strict_object(r->text, r->text_len, c->keys);
	c->result.format_ok = o != NULL;
	c->result.answer_ok = o && json_equal(json_object_get(o, "answer"), c->answer);
	c->result.eos = !strcmp(r->finish_reason, "stop");
	json_decref(o);
	return 0;
}

int lr_gate_score(struct lr_store *st, int64_t run, int64_t set, const char *key_path, struct lr_gate_counts *counts,
		  int64_t *id)
{
	struct key k = { 0 };
	struct lr_gate_case *cases = NULL;
	char sha[LR_SHA256_HEX];
	int64_t size;
	size_t i;
	int rc;

	memset(counts, 0, sizeof *counts);
	if ((rc = key_load(&k, key_path)) || (rc = lr_store_set_responses(st, set, score, &k)))
		goto out;
	if (!(cases = calloc(k.n, sizeof *cases))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < k.n; i++) {
		cases[i] = k.v[i].result;
		cases[i].case_id = k.v[i].case_id;
		cases[i].missing = !k.v[i].seen;
		counts->strict += cases[i].answer_ok;
		counts->formats += cases[i].format_ok;
		counts->eos += cases[i].eos;
		counts->missing += cases[i].missing;
		counts->total++;
	}
	if ((rc = lr_obj_put_file(lr_store_dir(st), key_path, sha, &size, NULL, NULL)))
		goto out;
	rc = lr_store_gate(st, run, set, key_path, sha, cases, (int)k.n, id);
out:
	free(cases);
	key_release(&k);
	return rc;
}
