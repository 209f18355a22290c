/* JSON read in place once checked (jsonscan.h; jsoncheck.c checks it). */
#include "config.h"
#include "base/system.h"

#include "base/jsonscan.h"

static int hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned char h = p[i];

		v <<= 4;
		if (h >= '0' && h <= '9')
			v |= h - '0';
		else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
			v |= (h | 0x20) - 'a' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* ---- walking checked text: every value is known to be whole ---- */

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the closing quote of the string at p: the first quote after an even run of backslashes. */
static const char *skip_string(const char *p)
{
	for (p++;; p++) {
		const char *q = p = strchr(p, '"'); /* checked text: there is one, and no NUL before it */

		while (q[-1] == '\\')
			q--;
		if ((p - q) % 2 == 0)
			return p + 1;
	}
}

/* Where the container at p ends, from the tape; NULL when it is not on it. */
static const char *tape_end(const struct lr_jdoc *doc, const char *p)
{
	uint32_t off = (uint32_t)(p - doc->base), lo = 0, hi = doc->n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (doc->open[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < doc->n && doc->open[lo] == off ? doc->base + doc->end[lo] : NULL;
}

static const char *skip_value(const struct lr_jdoc *doc, const char *p, enum lr_jtype *type)
{
	const char *end;
	int depth = 0;

	switch (*p) {
	case '"': *type = LR_JSON_STRING; return skip_string(p);
	case 't': *type = LR_JSON_TRUE; return p + 4;
	case 'f': *type = LR_JSON_FALSE; return p + 5;
	case 'n': *type = LR_JSON_NULL; return p + 4;
	case '{':
	case '[':
		*type = *p == '{' ? LR_JSON_OBJECT : LR_JSON_ARRAY;
		if ((end = tape_end(doc, p)))
			return end;
		do {
			if (*p == '"') {
				p = skip_string(p);
				continue;
			}
			depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
			p++;
		} while (depth);
		return p;
	default:
		*type = LR_JSON_INTEGER;
		for (; (*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E'; p++)
			if (*p == '.' || *p == 'e' || *p == 'E')
				*type = LR_JSON_REAL;
		return p;
	}
}

void lr_json_iter(struct lr_jiter *it, const struct lr_jval *v)
{
	it->p = v->p + 1;
	it->end = v->p + v->n - 1;
	it->object = v->type == LR_JSON_OBJECT;
	it->doc = v->doc;
}

int lr_json_next(struct lr_jiter *it, struct lr_jval *key, struct lr_jval *val)
{
	const char *p = ws(it->p, it->end);

	if (p < it->end && *p == ',')
		p = ws(p + 1, it->end);
	if (p >= it->end)
		return 0;
	if (it->object) {
		key->type = LR_JSON_STRING;
		key->doc = it->doc;
		key->p = p;
		p = skip_string(p);
		key->n = (size_t)(p - key->p);
		p = ws(ws(p, it->end) + 1, it->end); /* the ':' */
	}
	val->p = p;
	p = skip_value(it->doc, p, &val->type);
	val->n = (size_t)(p - val->p);
	val->doc = it->doc;
	it->p = p;
	return 1;
}

int lr_json_get(const struct lr_jval *object, const char *name, struct lr_jval *val)
{
	struct lr_jiter it;
	struct lr_jval k, v;
	int found = 0;

	if (object->type != LR_JSON_OBJECT)
		return 0;
	lr_json_iter(&it, object);
	while (lr_json_next(&it, &k, &v))
		if (lr_json_string_is(&k, name)) {
			*val = v;
			found = 1;
		}
	return found;
}

void lr_json_members(const struct lr_jval *o, const struct lr_jname *names, size_t n, struct lr_jval *vals, int *has)
{
	struct lr_jiter it;
	struct lr_jval k, v;

	memset(has, 0, n * sizeof *has);
	if (o->type != LR_JSON_OBJECT)
		return;
	lr_json_iter(&it, o);
	while (lr_json_next(&it, &k, &v)) {
		int escaped = memchr(k.p, '\\', k.n) != NULL; /* rare: then decoded to compare */

		for (size_t i = 0; i < n; i++)
			if (escaped ? lr_json_string_eq(&k, names[i].s, names[i].len)
				    : k.n == names[i].len + 2 && !memcmp(k.p + 1, names[i].s, names[i].len)) {
				vals[i] = v;
				has[i] = 1;
				break;
			}
	}
}

int lr_json_fields(struct lr_jfields *f, const struct lr_jval *o, const struct lr_jname *names, size_t n)
{
	f->names = names;
	if (n > LR_JSON_FIELDS_MAX) {
		f->n = 0;
		return lr_error_set(LR_EINVAL,
				    "a JSON reader asked for %zu members of an object, more than the %d a "
				    "struct lr_jfields holds",
				    n, LR_JSON_FIELDS_MAX);
	}
	f->n = n;
	lr_json_members(o, names, n, f->v, f->has);
	return 0;
}

const struct lr_jval *lr_json_field_named(const struct lr_jfields *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->names[i].s, name))
			return lr_json_field(f, i);
	return NULL;
}

/* Code point cp as UTF-8 at out; its length. */
static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The escape at p (a backslash) as a code point; p moves past it. */
static unsigned escape(const char **p)
{
	const char *e = *p;
	unsigned cp, lo;

	*p = e + 2;
	switch (e[1]) {
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case 'u':
		hex4((const unsigned char *)e + 2, &cp);
		*p = e + 6;
		if (cp >= 0xd800 && cp <= 0xdbff) { /* checked: its low surrogate follows */
			hex4((const unsigned char *)e + 8, &lo);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			*p = e + 12;
		}
		return cp;
	default: return (unsigned char)e[1]; /* '"', '\\', '/' */
	}
}

size_t lr_json_string(const struct lr_jval *v, char *out)
{
	const char *p = v->p + 1, *end = v->p + v->n - 1;
	char tmp[4];
	size_t n = 0;

	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		size_t run = (size_t)((bs ? bs : end) - p);

		if (out)
			memcpy(out + n, p, run);
		n += run;
		if (!bs)
			break;
		p = bs;
		n += put_utf8(out ? out + n : tmp, escape(&p));
	}
	if (out)
		out[n] = '\0';
	return n;
}

/* A checked string's decoded bytes, one at a time: for comparing without a copy. */
struct decoder {
	const char *p, *end;
	char pending[4];
	size_t np, ip;
};

static void decoder_init(struct decoder *d, const struct lr_jval *v)
{
	d->p = v->p + 1;
	d->end = v->p + v->n - 1;
	d->np = d->ip = 0;
}

/* The next byte, or -1 at the end. */
static int decoder_next(struct decoder *d)
{
	if (d->ip < d->np)
		return (unsigned char)d->pending[d->ip++];
	if (d->p == d->end)
		return -1;
	if (*d->p != '\\')
		return (unsigned char)*d->p++;
	d->np = put_utf8(d->pending, escape(&d->p));
	d->ip = 1;
	return (unsigned char)d->pending[0];
}

int lr_json_string_eq(const struct lr_jval *v, const char *s, size_t len)
{
	struct decoder d;
	size_t i;
	int b;

	if (v->type != LR_JSON_STRING)
		return 0;
	if (v->n == len + 2 && !memcmp(v->p + 1, s, len))
		return 1;
	if (v->n < len + 2 || !memchr(v->p, '\\', v->n)) /* escapes only lengthen a string */
		return 0;
	decoder_init(&d, v);
	for (i = 0; (b = decoder_next(&d)) >= 0; i++)
		if (i == len || b != (unsigned char)s[i])
			return 0;
	return i == len;
}

int lr_json_string_is(const struct lr_jval *v, const char *s)
{
	return lr_json_string_eq(v, s, strlen(s));
}

/* Whether two checked strings decode to the same bytes. */
static int same_string(const struct lr_jval *a, const struct lr_jval *b)
{
	struct decoder da, db;
	int x;

	if (!memchr(a->p, '\\', a->n) && !memchr(b->p, '\\', b->n))
		return a->n == b->n && !memcmp(a->p, b->p, a->n);
	decoder_init(&da, a);
	decoder_init(&db, b);
	do
		if ((x = decoder_next(&da)) != decoder_next(&db))
			return 0;
	while (x >= 0);
	return 1;
}

/* 0 when the text's tape, holding every container of it, has none inside array v: nothing to look at there. */
static int may_hold_object(const struct lr_jval *v)
{
	const struct lr_jdoc *d = v->doc;
	size_t from, to;

	if (v->type != LR_JSON_ARRAY)
		return 1;
	if (!d || d->n >= LR_JSON_TAPE)
		return 1; /* the tape is full: there may be more */
	from = (size_t)(v->p - d->base);
	to = from + v->n;
	for (uint32_t i = 0; i < d->n; i++)
		if (d->open[i] > from && d->open[i] < to)
			return 1;
	return 0;
}

int lr_json_unique(const struct lr_jval *v, struct lr_jval *dup)
{
	struct lr_jiter it, before;
	struct lr_jval k, x, k2, x2;
	size_t i, j;

	if ((v->type != LR_JSON_OBJECT && v->type != LR_JSON_ARRAY) || !may_hold_object(v))
		return 1;
	lr_json_iter(&it, v);
	for (i = 0; lr_json_next(&it, &k, &x); i++) {
		if (!lr_json_unique(&x, dup))
			return 0;
		if (v->type != LR_JSON_OBJECT)
			continue;
		lr_json_iter(&before, v);
		for (j = 0; j < i && lr_json_next(&before, &k2, &x2); j++)
			if (same_string(&k, &k2)) {
				*dup = k;
				return 0;
			}
	}
	return 1;
}

int64_t lr_json_integer(const struct lr_jval *v)
{
	const char *p = v->p, *end = v->p + v->n;
	int neg = *p == '-';
	uint64_t u = 0;

	for (p += neg; p < end; p++)
		u = u * 10 + (uint64_t)(*p - '0');
	return neg ? (int64_t)(0 - u) : (int64_t)u;
}

/* ---- writing by hand ---- */

/* s (n bytes of UTF-8) as a JSON string, as jansson writes one. */
void lr_json_put_string(FILE *f, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	putc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		fwrite(s + run, 1, i - run, f);
		run = i + 1;
		putc('\\', f);
		switch (c) {
		case '"':
		case '\\': putc(c, f); break;
		case '\b': putc('b', f); break;
		case '\f': putc('f', f); break;
		case '\n': putc('n', f); break;
		case '\r': putc('r', f); break;
		case '\t': putc('t', f); break;
		default: fprintf(f, "u00%c%c", hex[c >> 4], hex[c & 15]);
		}
	}
	fwrite(s + run, 1, n - run, f);
	putc('"', f);
}

void lr_json_put_member(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	lr_json_put_string(f, s, strlen(s));
}

/* A number as jansson writes a real: shortest form that reads back, always with '.' or 'e'. */
void lr_json_put_real(FILE *f, double v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, f);
	if (!strpbrk(buf, ".eEn"))
		fputs(".0", f);
}
