/* A collected pass as a file, written by collect --pass and read back by the experiment that ran it (passfile.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "base/jsonscan.h"
#include "base/lines.h"
#include "serving/passfile.h"
#include "serving/stream.h"

#define PASSFILE_MAX ((size_t)1 << 30) /* bytes of a pass file at most */

/*
 * ---- the members of each object ----
 * One table an object (the pass, its "validity", a request, its "check"), in
 * the order the members are written: put_object writes them and get_members
 * reads them back, so that each is named once. A K_OWN member's 'put' writes
 * it; it and a K_OBJ are read by their object's reader, after the others.
 */
enum kind {
	K_TEXT, /* const char *: a string; NULL is written null */
	K_REAL, /* double: a number >= 0; a value not finite is written null, null is read NAN */
	K_INT,  /* int or int64_t (by the field's size): an integer >= 0 in [lo, hi]; 'none' and below are null */
	K_BOOL, /* int: true or false */
	K_NAME, /* int: the value 'names' names, as a string */
	K_GAPS, /* const char *: an array of numbers >= 0, already JSON, kept as written; NULL is null */
	K_OWN,  /* the object's own: 'put' */
	K_OBJ,  /* the object 'sub' */
};

struct member {
	struct lr_jname name;
	enum kind kind;
	size_t off, size;                  /* its field in struct lr_store_pass or lr_store_request */
	int nullable;                      /* null is read (NULL, NAN, 'none'); else it is refused */
	int64_t none, lo, hi;              /* K_INT: the value null stands for; the range */
	const char *blame;                 /* K_INT: the member named when a value is out of [lo, hi] (NULL: itself) */
	size_t gate;                       /* 0, or 1 + the offset of an int that makes the member null when it is 0, */
	int gate_null;                     /* or (gate_null 1) when it is not */
	const struct lr_enum_names *names; /* K_NAME */
	void (*put)(FILE *f, const void *base); /* K_OWN */
	const struct member *sub;               /* K_OBJ: its members, nsub of them */
	size_t nsub;
};

#define NAME(s)            LR_JSON_NAME(s)
#define FIELD(T, f)        .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define PF(f)              FIELD(struct lr_store_pass, f)
#define RF(f)              FIELD(struct lr_store_request, f)
#define COUNT(t)           (sizeof(t) / sizeof((t)[0]))
#define TABLE(t)           (t), COUNT(t)
#define NULL_WHEN(T, f, v) .gate = offsetof(T, f) + 1, .gate_null = (v)

/* ---- writing ---- */

static void put_real(FILE *f, double v)
{
	if (isfinite(v))
		lr_json_put_real(f, v);
	else
		fputs("null", f);
}

/* A string, or (raw) JSON as it is; NULL as null. */
static void put_text(FILE *f, const char *s, int raw)
{
	if (!s)
		fputs("null", f);
	else if (raw)
		fputs(s, f);
	else
		lr_json_put_string(f, s, strlen(s));
}

static void put_object(FILE *f, const struct member *t, size_t n, const void *base);

/* Member m of the struct at 'base', as its kind says (its name is written). */
static void put_member(FILE *f, const struct member *m, const void *base)
{
	const char *at = (const char *)base + m->off;
	union {
		int i;
		int64_t i64;
	} u;

	if (m->gate && (*(const int *)((const char *)base + m->gate - 1) != 0) == m->gate_null) {
		fputs("null", f);
		return;
	}
	switch (m->kind) {
	case K_TEXT:
	case K_GAPS: put_text(f, *(const char *const *)at, m->kind == K_GAPS); break;
	case K_REAL: put_real(f, *(const double *)at); break;
	case K_BOOL: fputs(*(const int *)at ? "true" : "false", f); break;
	case K_NAME: put_text(f, lr_enum_name(m->names, *(const int *)at), 0); break;
	case K_OWN: m->put(f, base); break;
	case K_OBJ: put_object(f, m->sub, m->nsub, base); break;
	case K_INT: /* an int or an int64_t, by its size */
		memcpy(&u, at, m->size);
		u.i64 = m->size == sizeof u.i ? u.i : u.i64;
		if (!m->nullable || u.i64 > m->none)
			fprintf(f, "%lld", (long long)u.i64);
		else
			fputs("null", f);
		break;
	}
}

/* The struct at 'base' as an object of the members t[0..n). */
static void put_object(FILE *f, const struct member *t, size_t n, const void *base)
{
	fputc('{', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", t[i].name.s);
		put_member(f, &t[i], base);
	}
	fputc('}', f);
}

static void put_seed(FILE *f, const void *base)
{
	fprintf(f, "%lld", (long long)((const struct lr_store_pass *)base)->seed);
}

/* A failed request's received ids (already JSON) and their text, or null and null. */
static void put_cut_tokens(FILE *f, const void *base)
{
	put_text(f, ((const struct lr_store_request *)base)->cut_tokens, 1);
}

static void put_cut_text(FILE *f, const void *base)
{
	const struct lr_store_request *r = base;

	if (r->cut_tokens)
		lr_json_put_string(f, r->cut_text ? r->cut_text : "", r->cut_text_len);
	else
		fputs("null", f);
}

static const char *const convention_names[] = { "nearest-rank", "linear" }; /* percentiles': p->linear */
static const struct lr_enum_names conventions = LR_ENUM_NAMES("convention", convention_names);

/* The pass's rules and verdict (collect_validity); before issue 42 a pass file had none. */
static const struct member validity_members[] = {
	{ NAME("convention"), K_NAME, PF(linear), .names = &conventions },
	{ NAME("min_duration_s"), K_REAL, PF(min_duration_s) },
	{ NAME("min_requests"), K_INT, PF(min_requests), .hi = 1000000000000000 },
	{ NAME("ttft_limit_ms"), K_REAL, PF(ttft_limit_ms) },
	{ NAME("tpot_limit_ms"), K_REAL, PF(tpot_limit_ms) },
	{ NAME("percentile"), K_REAL, PF(percentile) }, /* in (0, 100): read_validity checks */
	{ NAME("little_n"), K_REAL, PF(little_n), .nullable = 1 },
	{ NAME("little_xr"), K_REAL, PF(little_xr), .nullable = 1 },
	{ NAME("early_stopping"), K_BOOL, PF(early) },
	{ NAME("valid"), K_BOOL, PF(valid) },
	{ NAME("failed"), K_TEXT, PF(failed), .nullable = 1, NULL_WHEN(struct lr_store_pass, valid, 1) },
};

/* What the client checked of a request (collect_check); before issue 42 a pass file had none. */
static const struct member check_members[] = {
	{ NAME("scheduled_ms"), K_REAL, RF(scheduled_ms) },
	{ NAME("received_tokens"), K_INT, RF(received_tokens), .nullable = 1, .none = -1, .hi = 1000000000000000,
	  .blame = "check" },
	{ NAME("finishes"), K_INT, RF(finishes), .hi = 1 << 20, .blame = "check" },
	{ NAME("first_ok"), K_INT, RF(first_ok), .nullable = 1, .none = -1, .hi = 1, .blame = "check" },
	{ NAME("cut_tokens"), K_OWN, RF(cut_tokens), .put = put_cut_tokens },
	{ NAME("cut_text"), K_OWN, RF(cut_text), .put = put_cut_text },
};

static const struct member pass_members[] = {
	{ NAME("endpoint"), K_TEXT, PF(endpoint) },
	{ NAME("api"), K_TEXT, PF(api) },
	{ NAME("model"), K_TEXT, PF(model), .nullable = 1 },
	{ NAME("concurrency"), K_INT, PF(concurrency), .lo = 1, .hi = 1 << 20 },
	{ NAME("rate"), K_REAL, PF(rate) },
	{ NAME("burstiness"), K_REAL, PF(burstiness) },
	{ NAME("seed"), K_OWN, PF(seed), .put = put_seed, NULL_WHEN(struct lr_store_pass, has_seed, 0) },
	{ NAME("server"), K_TEXT, PF(server), .nullable = 1 },
	{ NAME("models"), K_TEXT, PF(models), .nullable = 1 },
	{ NAME("version"), K_TEXT, PF(version), .nullable = 1 },
	{ NAME("props"), K_TEXT, PF(props), .nullable = 1 },
	{ NAME("duration_s"), K_REAL, PF(duration_s) },
	{ NAME("cancelled"), K_BOOL, PF(cancelled) },
	{ NAME("metrics_url"), K_TEXT, PF(metrics_url), .nullable = 1 },
	{ NAME("slo_ttft_ms"), K_REAL, PF(slo_ms[0]) },
	{ NAME("slo_tpot_ms"), K_REAL, PF(slo_ms[1]) },
	{ NAME("slo_e2el_ms"), K_REAL, PF(slo_ms[2]) },
	{ NAME("validity"), K_OBJ, .sub = validity_members, .nsub = COUNT(validity_members) },
};

static const struct member request_members[] = {
	{ NAME("case_id"), K_TEXT, RF(case_id) },
	{ NAME("body"), K_TEXT, RF(body) },
	{ NAME("sent"), K_BOOL, RF(sent) },
	{ NAME("sent_ms"), K_REAL, RF(sent_ms), .nullable = 1, NULL_WHEN(struct lr_store_request, sent, 0) },
	{ NAME("end_ms"), K_REAL, RF(end_ms), .nullable = 1, NULL_WHEN(struct lr_store_request, sent, 0) },
	{ NAME("status"), K_INT, RF(status), .nullable = 1, .none = 0, .hi = 999 },
	{ NAME("failure"), K_TEXT, RF(failure), .nullable = 1 },
	{ NAME("ttft_ms"), K_REAL, RF(ttft_ms), .nullable = 1 },
	{ NAME("e2el_ms"), K_REAL, RF(e2el_ms), .nullable = 1 },
	{ NAME("itl_ms"), K_GAPS, RF(itl_json), .nullable = 1 },
	{ NAME("token_source"), K_TEXT, RF(token_source), .nullable = 1 },
	{ NAME("prompt_tokens"), K_INT, RF(prompt_tokens), .nullable = 1, .none = -1, .hi = INT64_MAX },
	{ NAME("completion_tokens"), K_INT, RF(completion_tokens), .nullable = 1, .none = -1, .hi = INT64_MAX },
	{ NAME("inflight"), K_INT, RF(inflight), .hi = 1 << 20 },
	{ NAME("check"), K_OBJ, .sub = check_members, .nsub = COUNT(check_members) },
};

LR_JSON_FIELDS_FIT(pass_members);
LR_JSON_FIELDS_FIT(validity_members);
LR_JSON_FIELDS_FIT(request_members);
LR_JSON_FIELDS_FIT(check_members);

int lr_passfile_write(FILE *f, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	size_t i;

	fputs("{\"pass\":", f);
	put_object(f, TABLE(pass_members), p);
	fputs(",\n\"gauges\":[", f);
	for (i = 0; i < p->nsamples; i++) {
		const struct lr_gauge_sample *g = &p->samples[i];

		fputs(i ? ",[" : "[", f);
		lr_json_put_real(f, g->t_s);
		for (int k = 0; k < 2; k++) {
			fputc(',', f);
			put_real(f, k ? g->waiting : g->running);
		}
		if (g->failed) { /* a failed scrape: why, fourth */
			fputc(',', f);
			put_text(f, g->failed, 0);
		}
		fputc(']', f);
	}
	fputs("],\n\"requests\":[", f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_object(f, TABLE(request_members), &r[i]);
	}
	fputs("]}\n", f);
	return fflush(f) || ferror(f) ? lr_error_set(LR_EIO, "cannot write the pass file: %s", strerror(errno)) : 0;
}

/* ---- reading ---- */

struct reader {
	char *strings; /* where the next decoded string goes */
	const char *why;
	char buf[96];
};

/* The file is not a pass file: 1 (errors are negative), 'name' the member that is wrong. */
static int bad(struct reader *rd, const char *name)
{
	snprintf(rd->buf, sizeof rd->buf, "'%s' is missing or not what it must be", name);
	rd->why = rd->buf;
	return 1;
}

/* An object being read: its members by its table's names, and the first value out of its range. */
struct object {
	struct lr_jname names[LR_JSON_FIELDS_MAX];
	struct lr_jfields f;
	const char *range; /* the member to name for it; NULL: none */
};

/* A value copied as written, NUL-terminated, into the reader's strings. */
static const char *keep(struct reader *rd, const struct lr_jval *v)
{
	const char *s = rd->strings;

	memcpy(rd->strings, v->p, v->n);
	rd->strings[v->n] = '\0';
	rd->strings += v->n + 1;
	return s;
}

/* Integer x into m's field at 'at' (an int or an int64_t, by its size). */
static void set_int(const struct member *m, char *at, int64_t x)
{
	int i = (int)x;

	if (m->size == sizeof i)
		memcpy(at, &i, sizeof i);
	else
		memcpy(at, &x, sizeof x);
}

/* Member m (not null, not K_OWN or K_OBJ) into its field at 'at', as its kind says; o notes a value out of range. */
static int get_member(struct reader *rd, const struct member *m, const struct lr_jval *v, char *at, struct object *o)
{
	struct lr_jiter it;
	struct lr_jval x;
	const char *s;
	int64_t i;

	switch (m->kind) {
	case K_INT:
		if (v->type != LR_JSON_INTEGER || (i = lr_json_integer(v)) < 0)
			return bad(rd, m->name.s);
		if (i >= m->lo && i <= m->hi)
			set_int(m, at, i);
		else if (!o->range) /* refused after the object's own checks */
			o->range = m->blame ? m->blame : m->name.s;
		return 0;
	case K_TEXT:
	case K_NAME:
		if (v->type != LR_JSON_STRING)
			return bad(rd, m->name.s);
		s = rd->strings;
		rd->strings += lr_json_string(v, rd->strings) + 1;
		if (m->kind == K_NAME)
			return lr_enum_parse(m->names, s, (int *)at) ? bad(rd, m->name.s) : 0;
		*(const char **)at = s;
		return 0;
	case K_REAL:
		if (v->type != LR_JSON_INTEGER && v->type != LR_JSON_REAL)
			return bad(rd, m->name.s);
		/* a member's number: a '}' at least follows it */
		*(double *)at = v->type == LR_JSON_INTEGER ? (double)lr_json_integer(v) : strtod(v->p, NULL);
		return *(double *)at >= 0 ? 0 : bad(rd, m->name.s);
	case K_BOOL:
		if (v->type != LR_JSON_TRUE && v->type != LR_JSON_FALSE)
			return bad(rd, m->name.s);
		*(int *)at = v->type == LR_JSON_TRUE;
		return 0;
	case K_GAPS:
		if (v->type != LR_JSON_ARRAY)
			return bad(rd, m->name.s);
		lr_json_iter(&it, v);
		while (lr_json_next(&it, NULL, &x))
			if ((x.type != LR_JSON_INTEGER && x.type != LR_JSON_REAL) || *x.p == '-')
				return bad(rd, m->name.s);
		*(const char **)at = keep(rd, v);
		return 0;
	case K_OWN:
	case K_OBJ: break;
	}
	return 0;
}

/*
 * Object 'obj' (the member 'what') into the struct at 'base' by t[0..n), in order; o keeps it for its reader's own
 * members and checks, and names the first value out of its range, which the reader refuses after its own checks.
 */
static int get_members(struct reader *rd, const struct lr_jval *obj, const char *what, const struct member *t, size_t n,
		       void *base, struct object *o)
{
	int rc;

	if (obj->type != LR_JSON_OBJECT)
		return bad(rd, what);
	o->range = NULL;
	for (size_t i = 0; i < n && i < LR_JSON_FIELDS_MAX; i++)
		o->names[i] = t[i].name;
	if ((rc = lr_json_fields(&o->f, obj, o->names, n)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct lr_jval *v = lr_json_field(&o->f, i);
		char *at = (char *)base + t[i].off;

		if (t[i].kind == K_OWN || t[i].kind == K_OBJ)
			continue;
		if (!v || (v->type == LR_JSON_NULL && !t[i].nullable))
			rc = bad(rd, t[i].name.s);
		else if (v->type != LR_JSON_NULL)
			rc = get_member(rd, &t[i], v, at, o);
		else if (t[i].kind == K_REAL)
			*(double *)at = NAN;
		else if (t[i].kind == K_INT)
			set_int(&t[i], at, t[i].none);
		else
			*(const char **)at = NULL;
	}
	return rc;
}

/* The pass's rules and verdict (collect_validity), 'v' NULL when the file has none. */
static int read_validity(struct reader *rd, const struct lr_jval *v, struct lr_store_pass *p)
{
	struct object o;
	int rc;

	if (!v) { /* a pass file written before issue 42: no rules, no verdict yet */
		p->percentile = 99;
		p->valid = 1;
		return 0;
	}
	if ((rc = get_members(rd, v, "validity", TABLE(validity_members), p, &o)))
		return rc;
	if (o.range)
		return bad(rd, o.range);
	if (!(p->percentile > 0 && p->percentile < 100))
		return bad(rd, "percentile");
	return !p->valid && !p->failed ? bad(rd, "failed") : 0;
}

static int read_pass(struct reader *rd, const struct lr_jval *obj, struct lr_store_pass *p)
{
	const struct lr_jval *s;
	struct object o;
	int rc;

	if ((rc = get_members(rd, obj, "pass", TABLE(pass_members), p, &o)))
		return rc;
	s = lr_json_field_named(&o.f, "seed");
	if (!s || (s->type != LR_JSON_NULL && s->type != LR_JSON_INTEGER))
		return bad(rd, "seed");
	p->has_seed = s->type == LR_JSON_INTEGER;
	p->seed = p->has_seed ? lr_json_integer(s) : 0;
	if (o.range)
		return bad(rd, o.range);
	return read_validity(rd, lr_json_field_named(&o.f, "validity"), p);
}

/* What the client checked of a request (collect_check), 'v' NULL when the file has none. */
static int read_check(struct reader *rd, const struct lr_jval *v, struct lr_store_request *r)
{
	const struct lr_jval *cut, *text;
	struct object o;
	int rc;

	if (!v) { /* written before issue 42 */
		r->received_tokens = r->first_ok = -1;
		r->finishes = r->failure ? 0 : 1;
		return 0;
	}
	if ((rc = get_members(rd, v, "check", TABLE(check_members), r, &o)))
		return rc;
	if (o.range)
		return bad(rd, o.range);
	cut = lr_json_field_named(&o.f, "cut_tokens");
	text = lr_json_field_named(&o.f, "cut_text");
	if (!cut || !text || (cut->type == LR_JSON_NULL) != (text->type == LR_JSON_NULL) ||
	    (cut->type != LR_JSON_NULL && (cut->type != LR_JSON_ARRAY || text->type != LR_JSON_STRING)))
		return bad(rd, "cut_tokens");
	if (cut->type == LR_JSON_NULL)
		return 0;
	r->cut_tokens = keep(rd, cut); /* ids as written; the store keeps them as JSON */
	r->cut_text = rd->strings;
	r->cut_text_len = lr_json_string(text, rd->strings);
	rd->strings += r->cut_text_len + 1;
	return 0;
}

static int read_request(struct reader *rd, const struct lr_jval *obj, struct lr_store_request *r)
{
	struct object o;
	int rc, source;

	if ((rc = get_members(rd, obj, "requests", TABLE(request_members), r, &o)))
		return rc;
	if (r->token_source && lr_enum_parse(&lr_token_sources, r->token_source, &source)) {
		lr_fmt_cut(rd->buf, sizeof rd->buf, "'token_source' is '%s', which labrun does not know",
			   r->token_source);
		return rd->why = rd->buf, 1; /* the store would refuse it, less clearly */
	}
	if (o.range)
		return bad(rd, o.range);
	return read_check(rd, lr_json_field_named(&o.f, "check"), r);
}

static int read_gauges(struct reader *rd, const struct lr_jval *a, struct lr_passfile *pf)
{
	struct lr_jiter it, in;
	struct lr_jval g, x;
	size_t n = 0;

	if (a->type != LR_JSON_ARRAY)
		return bad(rd, "gauges");
	lr_json_iter(&it, a);
	while (lr_json_next(&it, NULL, &g))
		n++;
	if (n && !(pf->gauges = calloc(n, sizeof *pf->gauges)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_json_iter(&it, a);
	for (n = 0; lr_json_next(&it, NULL, &g); n++) {
		const char *why = NULL;
		double v[3];
		int k = 0;

		if (g.type != LR_JSON_ARRAY)
			return bad(rd, "gauges");
		lr_json_iter(&in, &g);
		for (; lr_json_next(&in, NULL, &x); k++) {
			if (k == 3 && x.type == LR_JSON_STRING) { /* a failed scrape: why */
				why = rd->strings;
				rd->strings += lr_json_string(&x, rd->strings) + 1;
				continue;
			}
			if (k >= 3 ||
			    (x.type != LR_JSON_INTEGER && x.type != LR_JSON_REAL && !(k && x.type == LR_JSON_NULL)))
				return bad(rd, "gauges");
			v[k] = x.type == LR_JSON_NULL ? NAN : strtod(x.p, NULL);
		}
		if (k != 3 + (why != NULL))
			return bad(rd, "gauges");
		pf->gauges[n] = (struct lr_gauge_sample){ v[0], v[1], v[2], why };
	}
	pf->pass.samples = pf->gauges;
	pf->pass.nsamples = n;
	return 0;
}

static const struct lr_jname top_names[] = { NAME("pass"), NAME("gauges"), NAME("requests") };
LR_JSON_FIELDS_FIT(top_names);

static int read_all(struct reader *rd, const struct lr_jval *top, struct lr_passfile *pf)
{
	const struct lr_jval *pass, *gauges, *requests;
	struct lr_jfields m;
	struct lr_jval r;
	struct lr_jiter it;
	int rc;

	if ((rc = lr_json_fields(&m, top, TABLE(top_names))))
		return rc;
	pass = lr_json_field(&m, 0);
	gauges = lr_json_field(&m, 1);
	requests = lr_json_field(&m, 2);
	if (top->type != LR_JSON_OBJECT || !pass || !gauges || !requests || requests->type != LR_JSON_ARRAY)
		return rd->why = "not an object of pass, gauges and requests", 1;
	if ((rc = read_pass(rd, pass, &pf->pass)) || (rc = read_gauges(rd, gauges, pf)))
		return rc;
	lr_json_iter(&it, requests);
	while (lr_json_next(&it, NULL, &r))
		pf->n++;
	if (pf->n && !(pf->req = calloc(pf->n, sizeof *pf->req)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_json_iter(&it, requests);
	for (size_t i = 0; lr_json_next(&it, NULL, &r); i++)
		if ((rc = read_request(rd, &r, &pf->req[i])))
			return rc;
	return 0;
}

int lr_passfile_read(const char *path, const struct lr_scrub *scrub, struct lr_passfile *pf)
{
	struct reader rd = { NULL, NULL, "" };
	struct lr_jdoc doc;
	struct lr_jval top, dup;
	const char *why = NULL;
	size_t len;
	int rc, bad_utf8;

	memset(pf, 0, sizeof *pf);
	if ((rc = lr_read_text("pass file", path, PASSFILE_MAX, &pf->text, &len)))
		return rc;
	if (!(pf->strings = malloc(len + 1)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	rd.strings = pf->strings; /* decoded strings, each NUL-terminated, fit in the text they came from */
	if (lr_json_check_nul(&doc, pf->text, len, &top, &why, &bad_utf8))
		rd.why = why;
	else if (!lr_json_unique(&top, &dup))
		rd.why = "a duplicate key";
	else if ((rc = read_all(&rd, &top, pf)) < 0)
		return rc;
	if (rd.why) {
		lr_error_set(LR_EDATA, "%s: not a collect pass file: %s", path, rd.why);
		lr_error_hint("it is what 'labrun collect --pass FILE' writes; nothing was stored");
		return LR_EDATA;
	}
	for (size_t i = 0; scrub && scrub->n && i < pf->n; i++) {
		char *s = lr_scrub_string(scrub, pf->req[i].body);

		if (!s)
			return lr_error_set(LR_ENOMEM, "out of memory");
		rc = strcmp(s, pf->req[i].body);
		free(s);
		if (rc) {
			lr_error_set(LR_EREFUSED, "%s: request '%s' holds the value of a secret environment variable",
				     path, pf->req[i].case_id);
			lr_error_hint("secrets never reach the store; remove the value from the cases file");
			return LR_EREFUSED;
		}
	}
	return 0;
}

void lr_passfile_release(struct lr_passfile *pf)
{
	free(pf->req);
	free(pf->gauges);
	free(pf->text);
	free(pf->strings);
	memset(pf, 0, sizeof *pf);
}

int lr_passfile_store(void *arg, struct lr_set_writer *w)
{
	const struct lr_passfile *pf = arg;

	return lr_store_collect(w, &pf->pass, pf->req, pf->n);
}
