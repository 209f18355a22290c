/*
 * base/jsonscan.c against jansson, its oracle: for any bytes, both accept or
 * both refuse (and agree on whether invalid UTF-8 is why), and what the walk
 * of an accepted text gives (members, elements, decoded strings, numbers) is
 * the tree jansson builds. Used by test-jsonscan.c and the fuzz target.
 */
#ifndef LR_TESTS_JSONDIFF_H
#define LR_TESTS_JSONDIFF_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonscan.h"

/* The walk of v as a jansson tree (NULL when out of memory). */
static json_t *jsondiff_tree(const struct lr_jval *v)
{
	struct lr_jiter it;
	struct lr_jval key, val;
	json_t *t = NULL;
	char *buf, num[600];

	switch (v->type) {
	case LR_JSON_OBJECT:
	case LR_JSON_ARRAY:
		t = v->type == LR_JSON_OBJECT ? json_object() : json_array();
		lr_json_iter(&it, v);
		while (lr_json_next(&it, &key, &val)) {
			json_t *child = jsondiff_tree(&val);

			if (v->type == LR_JSON_ARRAY) {
				json_array_append_new(t, child);
				continue;
			}
			buf = malloc(key.n + 1);
			lr_json_string(&key, buf);
			json_object_set_new(t, buf, child);
			free(buf);
		}
		return t;
	case LR_JSON_STRING:
		buf = malloc(v->n + 1);
		t = json_stringn(buf, lr_json_string(v, buf));
		free(buf);
		return t;
	case LR_JSON_INTEGER: return json_integer(lr_json_integer(v));
	case LR_JSON_REAL: snprintf(num, sizeof num, "%.*s", (int)v->n, v->p); return json_real(strtod(num, NULL));
	case LR_JSON_TRUE: return json_true();
	case LR_JSON_FALSE: return json_false();
	case LR_JSON_NULL: return json_null();
	}
	return NULL;
}

/* 0 when the two agree on [data, data+n); else 1, with what differs in 'why'. */
static int jsondiff(const char *data, size_t n, char *why, size_t size)
{
	json_error_t err;
	json_t *oracle = json_loadb(data, n, 0, &err), *walked;
	struct lr_jdoc doc;
	struct lr_jval top;
	const char *reason = NULL;
	int bad_utf8 = 0, ours = lr_json_check(&doc, data, n, &top, &reason, &bad_utf8) == 0, differ = 0;

	if (!oracle != !ours) {
		snprintf(why, size, "jansson %s (%s), jsonscan %s (%s)", oracle ? "accepts" : "refuses",
			 oracle ? "" : err.text, ours ? "accepts" : "refuses", ours ? "" : reason);
		json_decref(oracle);
		return 1;
	}
	if (!oracle) {
		int theirs_utf8 = strstr(err.text, "unable to decode byte") != NULL;

		if (theirs_utf8 != bad_utf8) {
			snprintf(why, size, "both refuse, but jansson says '%s' and jsonscan '%s'", err.text, reason);
			return 1;
		}
		return 0;
	}
	{ /* and with JSON_REJECT_DUPLICATES, as ingest reads a line */
		json_t *strict = json_loadb(data, n, JSON_REJECT_DUPLICATES, &err);
		struct lr_jval dup;
		int unique = lr_json_unique(&top, &dup);

		json_decref(strict);
		if (!strict != !unique) {
			snprintf(why, size, "jansson %s duplicates (%s), jsonscan %s", strict ? "finds no" : "finds",
				 strict ? "" : err.text, unique ? "finds none" : "finds one");
			json_decref(oracle);
			return 1;
		}
	}
	walked = jsondiff_tree(&top);
	if (!json_equal(oracle, walked)) {
		char *a = json_dumps(oracle, JSON_ENCODE_ANY), *b = json_dumps(walked, JSON_ENCODE_ANY);

		snprintf(why, size, "the walk differs: jansson %.200s, jsonscan %.200s", a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		differ = 1;
	}
	json_decref(oracle);
	json_decref(walked);
	return differ;
}

#endif
