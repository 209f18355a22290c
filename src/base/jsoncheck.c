/* JSON checked once, accepting what jansson accepts (jsonscan.h); jsonscan.c reads the checked text. */
#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <math.h>

#include "base/jsonscan.h"

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

struct check {
	const unsigned char *begin, *p, *end;
	const char *why;
	int bad_utf8;
	int allow_nul; /* \u0000 is taken (lr_json_check_nul) */
	struct lr_jdoc *doc;
	int depth;
	char stack[MAX_DEPTH];   /* '{' or '[' of each open container */
	int16_t tape[MAX_DEPTH]; /* its place in doc, or -1 */
};

static int fail(struct check *c, const char *why)
{
	c->why = why;
	return -1;
}

/*
 * What is wrong at c->p, where 'why' was expected: as jansson reads byte by
 * byte, decoding UTF-8 as it goes, a byte that starts no valid sequence is
 * invalid UTF-8 before it is anything else.
 */
static size_t utf8_len(const unsigned char *p, const unsigned char *end);
static int unexpected(struct check *c, const char *why)
{
	if (c->p < c->end && *c->p >= 0x80 && !utf8_len(c->p, c->end)) {
		c->bad_utf8 = 1;
		return fail(c, "invalid UTF-8");
	}
	return fail(c, why);
}

static void skip_ws(struct check *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

/* The length of the UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char b = p[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (b >= 0xc2 && b <= 0xdf)
		n = 2;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A byte a string holds as it is: printable ASCII but the quote and the backslash. */
static int plain(unsigned char b)
{
	return b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
}

/* Four hex digits at c->p, each read as jansson reads it; their value in *cp. */
static int check_hex4(struct check *c, unsigned *cp)
{
	*cp = 0;
	for (int i = 0; i < 4; i++, c->p++) {
		if (c->p == c->end || !isxdigit(*c->p))
			return unexpected(c, "invalid \\u escape");
		*cp = *cp << 4 | (unsigned)(isdigit(*c->p) ? *c->p - '0' : (*c->p | 0x20) - 'a' + 10);
	}
	return 0;
}

/*
 * A string, read as jansson reads one: bytes and escapes first, to its
 * closing quote; what its \u escapes mean (no \u0000, surrogates paired)
 * only then.
 */
static int check_string(struct check *c)
{
	const char *meaning = NULL; /* the first thing wrong with the escapes' code points */
	unsigned cp, prev = 0;      /* prev: the high surrogate just before, or 0 */
	size_t n;

	for (c->p++; c->p < c->end;) {
		const unsigned char *run = c->p;
		unsigned char b;

		while (c->p < c->end && plain(*c->p)) /* the common bytes, at a byte a step */
			c->p++;
		if (c->p > run) {
			if (prev && !meaning)
				meaning = "a high surrogate without its low one";
			prev = 0;
		}
		if (c->p == c->end)
			break;
		if ((b = *c->p) == '"') {
			c->p++;
			if (prev && !meaning)
				meaning = "a high surrogate without its low one";
			return meaning ? fail(c, meaning) : 0;
		}
		if (b < 0x20)
			return fail(c, "control character in a string");
		if (b != '\\') {
			if (b < 0x80) {
				c->p++;
			} else if ((n = utf8_len(c->p, c->end))) {
				c->p += n;
			} else {
				c->bad_utf8 = 1;
				return fail(c, "invalid UTF-8");
			}
			if (prev && !meaning)
				meaning = "a high surrogate without its low one";
			prev = 0;
			continue;
		}
		if (++c->p == c->end)
			break;
		if (*c->p != 'u') {
			if (!strchr("\"\\/bfnrt", *c->p) || !*c->p)
				return unexpected(c, "invalid escape");
			c->p++;
			if (prev && !meaning)
				meaning = "a high surrogate without its low one";
			prev = 0;
			continue;
		}
		c->p++;
		if (check_hex4(c, &cp))
			return -1;
		if (meaning)
			continue;
		if (prev) {
			if (cp < 0xdc00 || cp > 0xdfff)
				meaning = "a high surrogate without its low one";
			prev = 0;
		} else if (cp >= 0xd800 && cp <= 0xdbff) {
			prev = cp;
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			meaning = "a lone low surrogate";
		} else if (cp == 0 && !c->allow_nul) {
			meaning = "\\u0000 is not allowed";
		}
	}
	return fail(c, "premature end of input");
}

static int is_digit(const struct check *c)
{
	return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

/* Whether the real of 'len' bytes at 's' overflows a double, as jansson refuses it (whatever its length). */
static int real_overflows(const unsigned char *s, size_t len)
{
	char small[512], *buf = len < sizeof small ? small : malloc(len + 1);
	int inf;

	if (!buf) /* out of memory: taken as it stands, the value is read again where it is used */
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	inf = isinf(strtod(buf, NULL));
	if (buf != small)
		free(buf);
	return inf;
}

static int check_number(struct check *c, enum lr_jtype *type)
{
	const unsigned char *start = c->p;
	uint64_t v = 0, limit;
	int neg = 0, over = 0;

	if (*c->p == '-')
		neg = 1, c->p++;
	if (!is_digit(c))
		return unexpected(c, "invalid number");
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (*c->p == '0') {
		c->p++;
		if (is_digit(c)) /* a leading zero: jansson's lexer stops here */
			return fail(c, "invalid token");
	} else {
		const unsigned char *digits = c->p;

		while (is_digit(c))
			c->p++;
		if (c->p - digits > 18) /* fewer digits always fit: only long ones are added up */
			for (; digits < c->p; digits++) {
				unsigned d = *digits - '0';

				over |= v > (limit - d) / 10;
				v = v * 10 + d;
			}
	}
	*type = LR_JSON_INTEGER;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!is_digit(c))
			return unexpected(c, "invalid number");
		while (is_digit(c))
			c->p++;
		*type = LR_JSON_REAL;
	}
	if (c->p < c->end && (*c->p | 0x20) == 'e') {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!is_digit(c))
			return unexpected(c, "invalid number");
		while (is_digit(c))
			c->p++;
		*type = LR_JSON_REAL;
	}
	if (c->p < c->end && *c->p >= 0x80 && !utf8_len(c->p, c->end)) /* jansson reads the byte after a number first */
		return unexpected(c, "");
	if (*type == LR_JSON_INTEGER)
		return over ? fail(c, "too big integer") : 0;
	return real_overflows(start, (size_t)(c->p - start)) ? fail(c, "real number overflow") : 0;
}

static int is_alpha(const struct check *c)
{
	return c->p < c->end && ((*c->p | 0x20) >= 'a' && (*c->p | 0x20) <= 'z');
}

/* A word: true, false or null; as jansson reads one, every letter of it and the byte after. */
static int check_word(struct check *c, enum lr_jtype *type)
{
	const unsigned char *w = c->p;
	size_t n;

	while (is_alpha(c))
		c->p++;
	n = (size_t)(c->p - w);
	if (c->p < c->end && *c->p >= 0x80 && !utf8_len(c->p, c->end))
		return unexpected(c, "");
	if (n == 4 && !memcmp(w, "true", 4))
		*type = LR_JSON_TRUE;
	else if (n == 5 && !memcmp(w, "false", 5))
		*type = LR_JSON_FALSE;
	else if (n == 4 && !memcmp(w, "null", 4))
		*type = LR_JSON_NULL;
	else
		return c->p = w, fail(c, "invalid token");
	return 0;
}

/*
 * What is wrong at c->p, where 'why' was expected: jansson lexes the whole
 * token there before it says it is not the one expected, so what lexing it
 * finds first (invalid UTF-8 in a string, or in the byte after a number or
 * a word) is what it reports. The token is read by the same functions, on
 * a copy, so nothing here moves.
 */
static int wrong_token(struct check *c, const char *why)
{
	struct check t;
	enum lr_jtype type;

	t.begin = c->begin;
	t.p = c->p;
	t.end = c->end;
	t.bad_utf8 = 0;
	if (t.p < t.end && *t.p == '"')
		check_string(&t);
	else if (t.p < t.end && (*t.p == '-' || (*t.p >= '0' && *t.p <= '9')))
		check_number(&t, &type);
	else if (is_alpha(&t))
		check_word(&t, &type);
	if (t.bad_utf8) {
		c->p = t.p;
		c->bad_utf8 = 1;
		return fail(c, "invalid UTF-8");
	}
	return unexpected(c, why);
}

/* A text whose first token starts no container: jansson reads that token whole before it says so. */
static int check_top_scalar(struct check *c)
{
	enum lr_jtype type;

	if (c->p < c->end && *c->p == '"')
		return check_string(c) ? -1 : fail(c, "'[' or '{' expected");
	if (c->p < c->end && (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')))
		return check_number(c, &type) && c->bad_utf8 ? -1 : fail(c, "'[' or '{' expected");
	if (is_alpha(c))
		return check_word(c, &type) && c->bad_utf8 ? -1 : fail(c, "'[' or '{' expected");
	return unexpected(c, "'[' or '{' expected");
}

/* What comes next in the text. */
enum { VALUE, KEY, AFTER, DONE };

/* The close of the innermost container: pop it and note where it ends. */
static void close_container(struct check *c)
{
	c->p++;
	if (c->tape[--c->depth] >= 0)
		c->doc->end[c->tape[c->depth]] = (uint32_t)(c->p - c->begin);
}

/* A value: a scalar whole (AFTER), or a container opened (its first KEY or VALUE; AFTER when empty). */
static int check_value(struct check *c)
{
	struct lr_jdoc *doc = c->doc;
	enum lr_jtype type;
	char close;

	skip_ws(c);
	if (c->p == c->end)
		return fail(c, "premature end of input");
	if (*c->p == '"')
		return check_string(c) ? -1 : AFTER;
	if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'))
		return check_number(c, &type) ? -1 : AFTER;
	if (is_alpha(c))
		return check_word(c, &type) ? -1 : AFTER;
	if (*c->p != '{' && *c->p != '[')
		return unexpected(c, "invalid token");
	if (c->depth == MAX_DEPTH)
		return fail(c, "maximum parsing depth reached");
	c->tape[c->depth] = doc->n < LR_JSON_TAPE ? (int16_t)doc->n : -1;
	if (doc->n < LR_JSON_TAPE)
		doc->open[doc->n++] = (uint32_t)(c->p - c->begin);
	c->stack[c->depth++] = (char)*c->p++;
	close = c->stack[c->depth - 1] == '{' ? '}' : ']';
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		close_container(c);
		return AFTER;
	}
	return close == '}' ? KEY : VALUE;
}

/* A member's key and its colon. */
static int check_key(struct check *c)
{
	skip_ws(c);
	if (c->p == c->end || *c->p != '"')
		return wrong_token(c, "string or '}' expected");
	if (check_string(c))
		return -1;
	skip_ws(c);
	if (c->p == c->end || *c->p != ':')
		return wrong_token(c, "':' expected");
	c->p++;
	return VALUE;
}

/* After a value: a comma and the next member (KEY) or element (VALUE), a close, or the end of the text (DONE). */
static int check_after(struct check *c)
{
	char close;

	if (!c->depth) {
		const unsigned char *stop = c->p;

		skip_ws(c);
		if (c->p != c->end)
			return wrong_token(c, "end of file expected");
		c->p = stop;
		return DONE;
	}
	skip_ws(c);
	close = c->stack[c->depth - 1] == '{' ? '}' : ']';
	if (c->p == c->end)
		return fail(c, "premature end of input");
	if (*c->p == ',') {
		c->p++;
		return close == '}' ? KEY : VALUE;
	}
	if (*c->p != close)
		return wrong_token(c, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
	close_container(c);
	return AFTER;
}

static int check_text(struct lr_jdoc *doc, const char *text, size_t n, struct lr_jval *top, const char **why,
		      int *bad_utf8, int allow_nul)
{
	struct check chk, *c = &chk; /* its stacks are written only as deep as the text goes */
	const unsigned char *start;
	int state;

	c->allow_nul = allow_nul;
	c->begin = c->p = (const unsigned char *)text;
	c->end = c->begin + n;
	c->why = NULL;
	c->bad_utf8 = 0;
	c->doc = doc;
	c->depth = 0;
	doc->base = text;
	doc->n = 0;
	skip_ws(c);
	start = c->p;
	state = c->p < c->end && (*c->p == '{' || *c->p == '[') ? VALUE : check_top_scalar(c);
	while (state >= 0 && state != DONE)
		state = state == VALUE ? check_value(c) : state == KEY ? check_key(c) : check_after(c);
	*why = c->why;
	*bad_utf8 = c->bad_utf8;
	if (state == DONE) {
		top->type = *start == '{' ? LR_JSON_OBJECT : LR_JSON_ARRAY;
		top->p = (const char *)start;
		top->n = (size_t)(c->p - start);
		top->doc = doc;
	}
	return state == DONE ? 0 : -1;
}

int lr_json_check(struct lr_jdoc *doc, const char *text, size_t n, struct lr_jval *top, const char **why, int *bad_utf8)
{
	return check_text(doc, text, n, top, why, bad_utf8, 0);
}

int lr_json_check_nul(struct lr_jdoc *doc, const char *text, size_t n, struct lr_jval *top, const char **why,
		      int *bad_utf8)
{
	return check_text(doc, text, n, top, why, bad_utf8, 1);
}
