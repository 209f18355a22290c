/* base/jsonscan.c: it accepts what jansson accepts, and its walk gives jansson's tree. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "jsondiff.h"

static void agree(const char *text, size_t n)
{
	char why[600];

	if (jsondiff(text, n, why, sizeof why))
		fail_msg("'%.*s' (%zu bytes): %s", (int)n, text, n, why);
}

static void hand_cases_agree_with_jansson(void **state)
{
	/* clang-format off */
	static const char *const cases[] = {
		"{}", "[]", " { } ", "{\"a\":1}", "[1,2,3]", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[01]",
		"[-0]", "[-]", "[1.]", "[.5]", "[1e5]", "[1E+5]", "[1e-5]", "[1e]", "[1e400]", "[-1e400]", "[1e-400]",
		"[9223372036854775807]", "[9223372036854775808]", "[-9223372036854775808]", "[-9223372036854775809]",
		"[true,false,null]", "[tru]", "[nul]", "[truex]", "\"string\"", "1", "null", "", "   ", "[", "{",
		"{\"a\":", "[\"\\u00e9\"]", "[\"\\ud83d\\ude00\"]", "[\"\\ud83d\"]", "[\"\\ude00\"]", "[\"\\u0000\"]",
		"[\"\\x\"]", "[\"\\u12\"]", "[\"a\tb\"]", "[\"\xc3\xa9\"]", "[\"\xc3\"]", "[\"\xe2\x82\xac\"]",
		"[\"\xed\xa0\x80\"]", "[\"\xf0\x9f\x98\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xc0\xaf\"]", "[\xff]",
		"[1]\xff", "[1] x", "{\"a\":1}{}", "[\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"]", "{\"\\u0061\":1,\"a\":2}",
		"{\"a\":1,\"a\":2}", "[{\"x\":{\"b\":1,\"\\u0062\":2}}]", "{\"a\":{},\"b\":[{\"c\":1,\"c\":1}]}", "[[[[[]]]]]", "[\xc3\xa9]", "{\"k\":\"v\"\xff}", "[1,\xff]", "[1e400\xcf]", "[99999999999999999999\xff]", "[1e400 \xff]", "{\"a\"\"b\xff\":1}", "{\"a\":1 \"b\xff\"}", "[1 tru\xff]", "{\"a\":1} \"\xff\"", "{1\xff:2}", "1a\x80", "[00\xff]", "[-01\xff]", "[0\"\\7\xea\"]", "[0\"\\u12x\xea\"]", "{\"a\":0 1\xea}", "1\x80", "tru\x80", "\"a\x80\"", "true", "1e400",
	};
	/* clang-format on */
	char deep[2 * 2049 + 1];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		agree(cases[i], strlen(cases[i]));
	agree("[\"a\0b\"]", 7); /* a NUL byte in a string */
	agree("[\0 1]", 5);
	{
		/* a real of 600 digits that overflows a double: jansson refuses it at any length (CI's fuzz smoke
		 * found the check skipped past 512 bytes) */
		char big[640];

		memcpy(big, "{\"n\":[2", 7);
		memset(big + 7, '7', 600);
		memcpy(big + 607, ".5]}", 5);
		agree(big, strlen(big));
	}
	{
		/*
		 * The one known difference: jansson skips a NUL byte just after a
		 * number or a word (its one byte of lookahead cannot put a NUL back)
		 * and accepts "[1\0]"; RFC 8259 has no NUL outside strings, nor has
		 * jsonscan.
		 */
		struct lr_jdoc doc;
		struct lr_jval top;
		const char *why;
		int bad;

		assert_int_equal(lr_json_check(&doc, "[1\0]", 4, &top, &why, &bad), -1);
		assert_int_equal(lr_json_check(&doc, "{\"a\":false\0}", 12, &top, &why, &bad), -1);
	}
	for (int d = 2047; d <= 2049; d++) { /* jansson's depth limit is 2048 */
		memset(deep, '[', (size_t)d);
		memset(deep + d, ']', (size_t)d);
		agree(deep, 2 * (size_t)d);
	}
}

/* ---- generated texts, valid and then broken ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct text {
	char b[4096];
	size_t n;
};

static void put(struct text *t, const char *s)
{
	size_t k = strlen(s);

	if (t->n + k < sizeof t->b) {
		memcpy(t->b + t->n, s, k);
		t->n += k;
	}
}

static void gen_string(struct text *t)
{
	static const char *const pieces[] = { "a",
					      "token",
					      " w",
					      "\\n",
					      "\\\"",
					      "\\\\",
					      "\\/",
					      "\\u00e9",
					      "\\u20ac",
					      "\\ud83d\\ude00",
					      "\xc3\xa9",
					      "\xe2\x82\xac",
					      "\xf0\x9f\x98\x80",
					      "\\t",
					      "token_id:",
					      "7",
					      "\\u0041" };

	put(t, "\"");
	for (unsigned i = rnd(6); i; i--)
		put(t, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
	put(t, "\"");
}

static void gen_value(struct text *t, int depth)
{
	static const char *const numbers[] = { "0",
					       "-1",
					       "42",
					       "128000",
					       "1.5",
					       "-0.25",
					       "1e3",
					       "2E-7",
					       "9223372036854775807",
					       "-9223372036854775808",
					       "3.0e+2" };
	static const char *const keys[] = { "\"choices\"",
					    "\"index\"",
					    "\"text\"",
					    "\"token_ids\"",
					    "\"usage\"",
					    "\"finish_reason\"",
					    "\"delta\"",
					    "\"content\"",
					    "\"\\u0074ext\"",
					    "\"\"",
					    "\"te\\u0078t\"",
					    "\"\\ud83d\\ude00\"",
					    "\"\xf0\x9f\x98\x80\"" };
	unsigned kind = depth > 4 ? 2 + rnd(4) : rnd(6);

	switch (kind) {
	case 0:
	case 1:
		put(t, kind ? "{" : "[");
		for (unsigned i = rnd(4), first = 1; i; i--, first = 0) {
			if (!first)
				put(t, rnd(8) ? "," : " , ");
			if (kind) {
				put(t, keys[rnd(sizeof keys / sizeof keys[0])]);
				put(t, rnd(4) ? ":" : " : ");
			}
			gen_value(t, depth + 1);
		}
		put(t, kind ? "}" : "]");
		break;
	case 2: gen_string(t); break;
	case 3: put(t, numbers[rnd(sizeof numbers / sizeof numbers[0])]); break;
	default: put(t, rnd(3) == 0 ? "true" : rnd(2) ? "false" : "null");
	}
}

static void break_text(struct text *t)
{
	size_t at = t->n ? rnd((unsigned)t->n) : 0;

	switch (rnd(5)) {
	case 0: /* a byte changed, often to one that is not ASCII */
		if (t->n)
			t->b[at] = (char)(rnd(2) ? 0x80 + rnd(128) : 1 + rnd(127)); /* NUL: see below */
		break;
	case 1: /* a byte removed */
		if (t->n) {
			memmove(t->b + at, t->b + at + 1, t->n - at - 1);
			t->n--;
		}
		break;
	case 2: /* cut short */ t->n = at; break;
	case 3: /* a byte added */
		if (t->n + 1 < sizeof t->b) {
			memmove(t->b + at + 1, t->b + at, t->n - at);
			t->b[at] = "{}[],:\"\\ -0e.\x80\xc3\xff"[rnd(16)];
			t->n++;
		}
		break;
	default: break;
	}
}

static void generated_texts_agree_with_jansson(void **state)
{
	struct text t;

	(void)state;
	for (int i = 0; i < 40000; i++) {
		t.n = 0;
		put(&t, rnd(2) ? "{\"choices\":" : "");
		gen_value(&t, 0);
		if (t.b[0] == '{')
			put(&t, "}");
		if (i % 2)
			break_text(&t);
		agree(t.b, t.n);
	}
}

static void the_walk_finds_members_and_decodes_strings(void **state)
{
	const char *text = "{\"a\":[1,{\"b\":\"x\\u00e9\\n\"}],\"a\":{\"c\":-7},\"\\u0064\":true}";
	struct lr_jdoc doc;
	struct lr_jval top, v, c;
	const char *why;
	char buf[16];
	int bad;

	(void)state;
	assert_int_equal(lr_json_check(&doc, text, strlen(text), &top, &why, &bad), 0);
	assert_int_equal(top.type, LR_JSON_OBJECT);
	assert_true(lr_json_get(&top, "a", &v)); /* the last of two, as jansson keeps */
	assert_int_equal(v.type, LR_JSON_OBJECT);
	assert_true(lr_json_get(&v, "c", &c));
	assert_int_equal(lr_json_integer(&c), -7);
	assert_true(lr_json_get(&top, "d", &v)); /* a key written with an escape */
	assert_int_equal(v.type, LR_JSON_TRUE);
	assert_false(lr_json_get(&top, "e", &v));
	text = "[\"x\\u00e9\\n\"]";
	assert_int_equal(lr_json_check(&doc, text, strlen(text), &top, &why, &bad), 0);
	{
		struct lr_jiter it;

		lr_json_iter(&it, &top);
		assert_true(lr_json_next(&it, NULL, &v));
		assert_int_equal(lr_json_string(&v, buf), 4);
		assert_string_equal(buf, "x\xc3\xa9\n");
		assert_true(lr_json_string_is(&v, "x\xc3\xa9\n"));
		assert_false(lr_json_next(&it, NULL, &v));
	}
}

/* A reader's fields: by place and by name, the last of a repeated key, absent ones, and a list too long refused. */
static void fields_are_taken_by_place_and_by_name(void **state)
{
	static const struct lr_jname names[] = { LR_JSON_NAME("a"), LR_JSON_NAME("b"), LR_JSON_NAME("d") };
	static const struct lr_jname many[LR_JSON_FIELDS_MAX + 1] = { LR_JSON_NAME("a") };
	const char *text = "{\"a\":1,\"b\":\"x\",\"a\":2,\"\\u0064\":null,\"z\":3}";
	struct lr_jdoc doc;
	struct lr_jval top, arr;
	struct lr_jfields f;
	const char *why;
	int bad;

	(void)state;
	LR_JSON_FIELDS_FIT(names);
	assert_int_equal(lr_json_check(&doc, text, strlen(text), &top, &why, &bad), 0);
	assert_int_equal(lr_json_fields(&f, &top, names, 3), 0);
	assert_int_equal(lr_json_integer(lr_json_field(&f, 0)), 2); /* the last of two, as jansson keeps */
	assert_true(lr_json_string_is(lr_json_field(&f, 1), "x"));
	assert_int_equal(lr_json_field(&f, 2)->type, LR_JSON_NULL); /* present, and null; its key escaped */
	assert_null(lr_json_field(&f, 3));                          /* past the list */
	assert_ptr_equal(lr_json_field_named(&f, "b"), lr_json_field(&f, 1));
	assert_null(lr_json_field_named(&f, "z")); /* in the object, not in the list */
	assert_int_equal(lr_json_fields(&f, &top, names, 2), 0);
	assert_null(lr_json_field_named(&f, "d"));
	text = "[1]";
	assert_int_equal(lr_json_check(&doc, text, strlen(text), &arr, &why, &bad), 0);
	assert_int_equal(lr_json_fields(&f, &arr, names, 3), 0); /* not an object: nothing present */
	assert_null(lr_json_field(&f, 0));
	assert_int_equal(lr_json_fields(&f, &top, many, LR_JSON_FIELDS_MAX + 1), LR_EINVAL);
	{
		char said[32];

		snprintf(said, sizeof said, "more than the %d", LR_JSON_FIELDS_MAX);
		assert_non_null(strstr(lr_error_msg(), said));
	}
	assert_null(lr_json_field(&f, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_cases_agree_with_jansson),
		cmocka_unit_test(generated_texts_agree_with_jansson),
		cmocka_unit_test(the_walk_finds_members_and_decodes_strings),
		cmocka_unit_test(fields_are_taken_by_place_and_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
