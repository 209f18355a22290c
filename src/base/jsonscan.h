#ifndef LR_BASE_JSONSCAN_H
#define LR_BASE_JSONSCAN_H

/*
 * JSON read in place, where building a tree costs more than everything
 * else: the events of a streamed completion, one per token
 * (serving/stream.c), the lines of a responses file that ingest stores
 * (serving/responses.c), and a collected pass's file read back
 * (serving/passfile.c); docs/design.md has the measurements. lr_json_check
 * checks a whole text first, accepting what jansson's json_loadb accepts
 * with no flags (RFC 8259 with an object or an array at the top, UTF-8
 * throughout, no \u0000, surrogates only in pairs, integers within int64,
 * finite reals, nesting at most 2048 deep; but not a NUL byte just after a
 * number or a word, which jansson's lookahead skips); after that, values are spans of
 * the checked text, walked with lr_json_next and decoded only when asked.
 * Nothing is allocated. Everywhere else labrun uses jansson.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

enum lr_jtype {
	LR_JSON_OBJECT,
	LR_JSON_ARRAY,
	LR_JSON_STRING,
	LR_JSON_INTEGER,
	LR_JSON_REAL,
	LR_JSON_TRUE,
	LR_JSON_FALSE,
	LR_JSON_NULL
};

/*
 * A checked text: where its first containers end, so that walking past one
 * costs nothing (the rest are scanned). On the caller's stack; values point
 * to it.
 */
#define LR_JSON_TAPE 64
struct lr_jdoc {
	const char *base;
	uint32_t n;                                     /* containers recorded, in the order they open */
	uint32_t open[LR_JSON_TAPE], end[LR_JSON_TAPE]; /* offsets of each one's '{' or '[' and past its close */
};

/* A value: its type and its bytes in the checked text (a string's with its quotes). */
struct lr_jval {
	enum lr_jtype type;
	const char *p;
	size_t n;
	const struct lr_jdoc *doc;
};

#define LR_JSON_BAD_UTF8 1 /* *why is about invalid UTF-8 */

/*
 * Check that [p, p+n) is one JSON text as above; its top value in *top,
 * its containers' ends in *doc.
 * 0, or -1 with *why a static reason ("invalid UTF-8", "'}' expected",
 * ...) and *bad_utf8 set when the reason is invalid UTF-8.
 */
int lr_json_check(struct lr_jdoc *doc, const char *p, size_t n, struct lr_jval *top, const char **why, int *bad_utf8);
/*
 * The same, taking \u0000 in strings as valid JSON (RFC 8259 allows it;
 * jansson's JSON_ALLOW_NUL): a streamed byte token can be one. What a
 * string decodes to may then hold NUL bytes: its length says where it ends.
 */
int lr_json_check_nul(struct lr_jdoc *doc, const char *p, size_t n, struct lr_jval *top, const char **why,
		      int *bad_utf8);

/* Walking a checked object's members or array's elements. */
struct lr_jiter {
	const char *p, *end;
	int object;
	const struct lr_jdoc *doc;
};

void lr_json_iter(struct lr_jiter *it, const struct lr_jval *container);
/* The next member (key is its name, a string; NULL for an array's elements) or element: 1, or 0 at the end. */
int lr_json_next(struct lr_jiter *it, struct lr_jval *key, struct lr_jval *val);

/* The member 'name' of a checked object (the last, if it appears twice, as jansson keeps it): 1, or 0 when absent. */
int lr_json_get(const struct lr_jval *object, const char *name, struct lr_jval *val);

/* A member name a reader looks for, and its length: LR_JSON_NAME("case_id"). */
struct lr_jname {
	const char *s;
	size_t len;
};
#define LR_JSON_NAME(name) \
	{ \
		name, sizeof name - 1 \
	}

/*
 * The members of object o named in names[0..n) in one pass: vals[i] is the
 * last member named names[i] (as jansson keeps it) when has[i] is 1.
 */
void lr_json_members(const struct lr_jval *o, const struct lr_jname *names, size_t n, struct lr_jval *vals, int *has);

/*
 * The members of one object a reader takes, read in one pass
 * (lr_json_members) and then taken by their place in the reader's list of
 * names (an enum beside the list) or by name. The struct is on the
 * reader's stack and holds LR_JSON_FIELDS_MAX names at most: a list known
 * at compile time is checked with LR_JSON_FIELDS_FIT(list), and
 * lr_json_fields refuses a longer one.
 */
#define LR_JSON_FIELDS_MAX 24
struct lr_jfields {
	const struct lr_jname *names; /* the list read, borrowed */
	size_t n;
	int has[LR_JSON_FIELDS_MAX]; /* has[i]: names[i] is present, its last value in v[i] */
	struct lr_jval v[LR_JSON_FIELDS_MAX];
};
#define LR_JSON_FIELDS_FIT(list) \
	_Static_assert(sizeof(list) / sizeof((list)[0]) <= LR_JSON_FIELDS_MAX, \
		       "more names than a struct lr_jfields holds")

/*
 * The members of o named in names[0..n) into f (names borrowed for as long
 * as f is used); none present when o is not an object. 0, or LR_EINVAL when
 * n is more than LR_JSON_FIELDS_MAX (then none are present).
 */
LR_MUST_CHECK int lr_json_fields(struct lr_jfields *f, const struct lr_jval *o, const struct lr_jname *names, size_t n);

/* The value of names[i], or NULL when it is absent (or i is past the list); borrowed from f. */
static inline const struct lr_jval *lr_json_field(const struct lr_jfields *f, size_t i)
{
	return i < f->n && f->has[i] ? &f->v[i] : NULL;
}

/* The value of the member 'name' (one of f's names), or NULL when it is absent or not in the list. */
const struct lr_jval *lr_json_field_named(const struct lr_jfields *f, const char *name);

/* A string value decoded: its length, and with 'out' (at least v->n bytes) its bytes there, NUL-terminated. */
size_t lr_json_string(const struct lr_jval *v, char *out);
/* 1 when string value v decodes to the len bytes at s. */
int lr_json_string_eq(const struct lr_jval *v, const char *s, size_t len);
/* The same, s NUL-terminated. */
int lr_json_string_is(const struct lr_jval *v, const char *s);

/*
 * 1 when every object in v (v itself and all it holds) has each key once,
 * as jansson's JSON_REJECT_DUPLICATES asks; else 0, the second of the two
 * keys in *dup.
 */
int lr_json_unique(const struct lr_jval *v, struct lr_jval *dup);

/* An integer value (checked to fit). */
int64_t lr_json_integer(const struct lr_jval *v);

/*
 * Writing JSON by hand where a tree a line would cost more than the rest
 * (collect's response lines): a string (n bytes of UTF-8) escaped as jansson
 * escapes it; ',"key":' and a string; a real as jansson writes one ("%.17g",
 * always with '.' or 'e').
 */
void lr_json_put_string(FILE *f, const char *s, size_t n);
void lr_json_put_member(FILE *f, const char *key, const char *s);
void lr_json_put_real(FILE *f, double v);

#endif
