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

/* ---- writing ---- */

static void put_text(FILE *f, const char *key, const char *s, int first)
{
	fprintf(f, "%s\"%s\":", first ? "" : ",", key);
	if (s)
		lr_json_put_string(f, s, strlen(s));
	else
		fputs("null", f);
}

static void put_num(FILE *f, const char *key, double v, int has)
{
	fprintf(f, ",\"%s\":", key);
	if (has && isfinite(v))
		lr_json_put_real(f, v);
	else
		fputs("null", f);
}

static void put_int(FILE *f, const char *key, long long v, int has)
{
	if (has)
		fprintf(f, ",\"%s\":%lld", key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

/* What the client checked of a request (collect_check), as the member "check". */
static void put_check(FILE *f, const struct lr_store_request *r)
{
	fputs(",\"check\":{\"scheduled_ms\":", f);
	lr_json_put_real(f, r->scheduled_ms);
	put_int(f, "received_tokens", (long long)r->received_tokens, r->received_tokens >= 0);
	put_int(f, "finishes", r->finishes, 1);
	put_int(f, "first_ok", r->first_ok, r->first_ok >= 0);
	fprintf(f, ",\"cut_tokens\":%s", r->cut_tokens ? r->cut_tokens : "null"); /* already JSON */
	fputs(",\"cut_text\":", f);
	if (r->cut_tokens)
		lr_json_put_string(f, r->cut_text ? r->cut_text : "", r->cut_text_len);
	else
		fputs("null", f);
	fputc('}', f);
}

int lr_passfile_write(FILE *f, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	size_t i;

	fputs("{\"pass\":{", f);
	put_text(f, "endpoint", p->endpoint, 1);
	put_text(f, "api", p->api, 0);
	put_text(f, "model", p->model, 0);
	put_int(f, "concurrency", p->concurrency, 1);
	put_num(f, "rate", p->rate, 1);
	put_num(f, "burstiness", p->burstiness, 1);
	put_int(f, "seed", (long long)p->seed, p->has_seed);
	put_text(f, "server", p->server, 0);
	put_text(f, "models", p->models, 0);
	put_text(f, "version", p->version, 0);
	put_text(f, "props", p->props, 0);
	put_num(f, "duration_s", p->duration_s, 1);
	fprintf(f, ",\"cancelled\":%s", p->cancelled ? "true" : "false");
	put_text(f, "metrics_url", p->metrics_url, 0);
	put_num(f, "slo_ttft_ms", p->slo_ms[0], 1);
	put_num(f, "slo_tpot_ms", p->slo_ms[1], 1);
	put_num(f, "slo_e2el_ms", p->slo_ms[2], 1);
	fputs(",\"validity\":{", f);
	put_text(f, "convention", p->linear ? "linear" : "nearest-rank", 1);
	put_num(f, "min_duration_s", p->min_duration_s, 1);
	put_int(f, "min_requests", (long long)p->min_requests, 1);
	put_num(f, "ttft_limit_ms", p->ttft_limit_ms, 1);
	put_num(f, "tpot_limit_ms", p->tpot_limit_ms, 1);
	put_num(f, "percentile", p->percentile, 1);
	put_num(f, "little_n", p->little_n, 1);
	put_num(f, "little_xr", p->little_xr, 1);
	fprintf(f, ",\"early_stopping\":%s", p->early ? "true" : "false");
	fprintf(f, ",\"valid\":%s", p->valid ? "true" : "false");
	put_text(f, "failed", p->valid ? NULL : p->failed, 0);
	fputs("}},\n\"gauges\":[", f);
	for (i = 0; i < p->nsamples; i++) {
		const struct lr_gauge_sample *g = &p->samples[i];

		fputs(i ? ",[" : "[", f);
		lr_json_put_real(f, g->t_s);
		for (int k = 0; k < 2; k++) {
			double v = k ? g->waiting : g->running;

			fputc(',', f);
			if (isfinite(v))
				lr_json_put_real(f, v);
			else
				fputs("null", f);
		}
		if (g->failed) { /* a failed scrape: why, fourth */
			fputc(',', f);
			lr_json_put_string(f, g->failed, strlen(g->failed));
		}
		fputc(']', f);
	}
	fputs("],\n\"requests\":[", f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n{" : "\n{", f);
		put_text(f, "case_id", r[i].case_id, 1);
		put_text(f, "body", r[i].body, 0);
		fprintf(f, ",\"sent\":%s", r[i].sent ? "true" : "false");
		put_num(f, "sent_ms", r[i].sent_ms, r[i].sent);
		put_num(f, "end_ms", r[i].end_ms, r[i].sent);
		put_int(f, "status", r[i].status, r[i].status != 0);
		put_text(f, "failure", r[i].failure, 0);
		put_num(f, "ttft_ms", r[i].ttft_ms, 1);
		put_num(f, "e2el_ms", r[i].e2el_ms, 1);
		fprintf(f, ",\"itl_ms\":%s",
			r[i].itl_json ? r[i].itl_json : "null"); /* already JSON: kept as written */
		put_text(f, "token_source", r[i].token_source, 0);
		put_int(f, "prompt_tokens", (long long)r[i].prompt_tokens, r[i].prompt_tokens >= 0);
		put_int(f, "completion_tokens", (long long)r[i].completion_tokens, r[i].completion_tokens >= 0);
		put_int(f, "inflight", r[i].inflight, 1);
		put_check(f, &r[i]);
		fputc('}', f);
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

/* An object's members, read in one pass (lr_json_members), then taken by name. */
#define NAME(s) LR_JSON_NAME(s)
static const struct lr_jname top_names[] = { NAME("pass"), NAME("gauges"), NAME("requests") };
/* clang-format off */
static const struct lr_jname pass_names[] = {
	NAME("endpoint"), NAME("api"), NAME("model"), NAME("concurrency"), NAME("rate"), NAME("burstiness"),
	NAME("seed"), NAME("server"), NAME("models"), NAME("version"), NAME("props"), NAME("duration_s"), NAME("cancelled"), NAME("metrics_url"),
	NAME("slo_ttft_ms"), NAME("slo_tpot_ms"), NAME("slo_e2el_ms"), NAME("validity"),
};
static const struct lr_jname validity_names[] = {
	NAME("convention"), NAME("min_duration_s"), NAME("min_requests"), NAME("ttft_limit_ms"), NAME("tpot_limit_ms"),
	NAME("percentile"), NAME("little_n"), NAME("little_xr"), NAME("valid"), NAME("failed"), NAME("early_stopping"),
};
static const struct lr_jname check_names[] = {
	NAME("scheduled_ms"), NAME("received_tokens"), NAME("finishes"), NAME("first_ok"), NAME("cut_tokens"),
	NAME("cut_text"),
};
/* clang-format on */
/* clang-format off */
static const struct lr_jname request_names[] = {
	NAME("case_id"), NAME("body"), NAME("sent"), NAME("sent_ms"), NAME("end_ms"), NAME("status"), NAME("failure"),
	NAME("ttft_ms"), NAME("e2el_ms"), NAME("itl_ms"), NAME("token_source"), NAME("prompt_tokens"),
	NAME("completion_tokens"), NAME("inflight"), NAME("check"),
};
/* clang-format on */
#undef NAME

LR_JSON_FIELDS_FIT(top_names);
LR_JSON_FIELDS_FIT(pass_names);
LR_JSON_FIELDS_FIT(request_names);
LR_JSON_FIELDS_FIT(validity_names);
LR_JSON_FIELDS_FIT(check_names);
#define NNAMES(list) (sizeof list / sizeof list[0])

/* Member 'name' (one of o's names) into *v: 1, or 0 when absent. */
static int get(const struct lr_jfields *o, const char *name, struct lr_jval *v)
{
	const struct lr_jval *x = lr_json_field_named(o, name);

	if (x)
		*v = *x;
	return x != NULL;
}

/* A string member (or null when 'nullable'), decoded into the reader's strings. */
static int text(struct reader *rd, const struct lr_jfields *o, const char *name, int nullable, const char **out)
{
	struct lr_jval v;

	*out = NULL;
	if (!get(o, name, &v) || (v.type != LR_JSON_STRING && !(nullable && v.type == LR_JSON_NULL)))
		return bad(rd, name);
	if (v.type == LR_JSON_NULL)
		return 0;
	*out = rd->strings;
	rd->strings += lr_json_string(&v, rd->strings) + 1;
	return 0;
}

/* A number member: *has 0 for null (when 'nullable'); integers only when 'integer'; never below 0 unless 'signed_'. */
static int number(struct reader *rd, const struct lr_jfields *o, const char *name, int nullable, int integer,
		  double *out, int *has)
{
	struct lr_jval v;

	*has = 0;
	*out = NAN;
	if (!get(o, name, &v))
		return bad(rd, name);
	if (v.type == LR_JSON_NULL)
		return nullable ? 0 : bad(rd, name);
	if (v.type == LR_JSON_INTEGER)
		*out = (double)lr_json_integer(&v);
	else if (v.type == LR_JSON_REAL && !integer)
		*out = strtod(v.p, NULL); /* a member's number: a '}' at least follows it */
	else
		return bad(rd, name);
	*has = 1;
	return *out >= 0 ? 0 : bad(rd, name);
}

static int boolean(struct reader *rd, const struct lr_jfields *o, const char *name, int *out)
{
	struct lr_jval v;

	if (!get(o, name, &v) || (v.type != LR_JSON_TRUE && v.type != LR_JSON_FALSE))
		return bad(rd, name);
	*out = v.type == LR_JSON_TRUE;
	return 0;
}

/* The pass's rules and verdict (collect_validity). */
static int read_validity(struct reader *rd, const struct lr_jfields *pass, struct lr_store_pass *p)
{
	struct lr_jfields m, *o = &m;
	struct lr_jval obj;
	const char *conv;
	double v[8];
	int has, rc;

	if (!get(pass, "validity", &obj)) { /* a pass file written before issue 42: no rules, no verdict yet */
		p->percentile = 99;
		p->valid = 1;
		return 0;
	}
	if (obj.type != LR_JSON_OBJECT)
		return bad(rd, "validity");
	if ((rc = lr_json_fields(&m, &obj, validity_names, NNAMES(validity_names))) ||
	    (rc = text(rd, o, "convention", 0, &conv)) || (rc = number(rd, o, "min_duration_s", 0, 0, &v[0], &has)) ||
	    (rc = number(rd, o, "min_requests", 0, 1, &v[1], &has)) ||
	    (rc = number(rd, o, "ttft_limit_ms", 0, 0, &v[2], &has)) ||
	    (rc = number(rd, o, "tpot_limit_ms", 0, 0, &v[3], &has)) ||
	    (rc = number(rd, o, "percentile", 0, 0, &v[4], &has)) ||
	    (rc = number(rd, o, "little_n", 1, 0, &v[5], &has)) ||
	    (rc = number(rd, o, "little_xr", 1, 0, &v[6], &has)) || (rc = boolean(rd, o, "valid", &p->valid)) ||
	    (rc = text(rd, o, "failed", 1, &p->failed)) || (rc = boolean(rd, o, "early_stopping", &p->early)))
		return rc;
	if (strcmp(conv, "linear") && strcmp(conv, "nearest-rank"))
		return bad(rd, "convention");
	if (!(v[4] > 0 && v[4] < 100) || v[1] > 1e15 || (!p->valid && !p->failed))
		return bad(rd, v[1] > 1e15 ? "min_requests" : p->valid ? "percentile" : "failed");
	p->linear = !strcmp(conv, "linear");
	p->min_duration_s = v[0];
	p->min_requests = (int64_t)v[1];
	p->ttft_limit_ms = v[2];
	p->tpot_limit_ms = v[3];
	p->percentile = v[4];
	p->little_n = v[5];
	p->little_xr = v[6];
	return 0;
}

static int read_pass(struct reader *rd, const struct lr_jval *obj, struct lr_store_pass *p)
{
	struct lr_jfields m, *o = &m;
	double v[7];
	int has, rc;

	if (obj->type != LR_JSON_OBJECT)
		return bad(rd, "pass");
	if ((rc = lr_json_fields(&m, obj, pass_names, NNAMES(pass_names))))
		return rc;
	if ((rc = text(rd, o, "endpoint", 0, &p->endpoint)) || (rc = text(rd, o, "api", 0, &p->api)) ||
	    (rc = text(rd, o, "model", 1, &p->model)) || (rc = number(rd, o, "concurrency", 0, 1, &v[0], &has)) ||
	    (rc = number(rd, o, "rate", 0, 0, &v[1], &has)) || (rc = number(rd, o, "burstiness", 0, 0, &v[2], &has)) ||
	    (rc = text(rd, o, "server", 1, &p->server)) || (rc = text(rd, o, "models", 1, &p->models)) ||
	    (rc = text(rd, o, "version", 1, &p->version)) || (rc = text(rd, o, "props", 1, &p->props)) ||
	    (rc = number(rd, o, "duration_s", 0, 0, &v[3], &has)) ||
	    (rc = boolean(rd, o, "cancelled", &p->cancelled)) ||
	    (rc = text(rd, o, "metrics_url", 1, &p->metrics_url)) ||
	    (rc = number(rd, o, "slo_ttft_ms", 0, 0, &v[4], &has)) ||
	    (rc = number(rd, o, "slo_tpot_ms", 0, 0, &v[5], &has)) ||
	    (rc = number(rd, o, "slo_e2el_ms", 0, 0, &v[6], &has)))
		return rc;
	{
		struct lr_jval s;

		if (!get(o, "seed", &s) || (s.type != LR_JSON_NULL && s.type != LR_JSON_INTEGER))
			return bad(rd, "seed");
		p->has_seed = s.type == LR_JSON_INTEGER;
		p->seed = p->has_seed ? lr_json_integer(&s) : 0;
	}
	if (v[0] < 1 || v[0] > 1 << 20)
		return bad(rd, "concurrency");
	p->concurrency = (int)v[0];
	p->rate = v[1];
	p->burstiness = v[2];
	p->duration_s = v[3];
	for (int k = 0; k < 3; k++)
		p->slo_ms[k] = v[4 + k];
	return read_validity(rd, o, p);
}

/* A gap array: numbers >= 0 only; kept as written. */
static int itl(struct reader *rd, const struct lr_jfields *o, const char **out)
{
	struct lr_jval a, x;
	struct lr_jiter it;

	*out = NULL;
	if (!get(o, "itl_ms", &a) || (a.type != LR_JSON_NULL && a.type != LR_JSON_ARRAY))
		return bad(rd, "itl_ms");
	if (a.type == LR_JSON_NULL)
		return 0;
	lr_json_iter(&it, &a);
	while (lr_json_next(&it, NULL, &x))
		if ((x.type != LR_JSON_INTEGER && x.type != LR_JSON_REAL) || *x.p == '-')
			return bad(rd, "itl_ms");
	memcpy(rd->strings, a.p, a.n);
	rd->strings[a.n] = '\0';
	*out = rd->strings;
	rd->strings += a.n + 1;
	return 0;
}

/* What the client checked of a request (collect_check). */
static int read_check(struct reader *rd, const struct lr_jfields *req, struct lr_store_request *r)
{
	struct lr_jfields m, *o = &m;
	struct lr_jval obj, cut, text_v;
	double v[3];
	int has[3], rc;

	if (!get(req, "check", &obj)) { /* written before issue 42 */
		r->received_tokens = r->first_ok = -1;
		r->finishes = r->failure ? 0 : 1;
		return 0;
	}
	if (obj.type != LR_JSON_OBJECT)
		return bad(rd, "check");
	if ((rc = lr_json_fields(&m, &obj, check_names, NNAMES(check_names))) ||
	    (rc = number(rd, o, "scheduled_ms", 0, 0, &r->scheduled_ms, &has[0])) ||
	    (rc = number(rd, o, "received_tokens", 1, 1, &v[0], &has[0])) ||
	    (rc = number(rd, o, "finishes", 0, 1, &v[1], &has[1])) ||
	    (rc = number(rd, o, "first_ok", 1, 1, &v[2], &has[2])))
		return rc;
	if (v[1] > 1 << 20 || (has[2] && v[2] > 1) || (has[0] && v[0] > 1e15))
		return bad(rd, "check");
	r->received_tokens = has[0] ? (int64_t)v[0] : -1;
	r->finishes = (int)v[1];
	r->first_ok = has[2] ? (int)v[2] : -1;
	if (!get(o, "cut_tokens", &cut) || !get(o, "cut_text", &text_v) ||
	    (cut.type == LR_JSON_NULL) != (text_v.type == LR_JSON_NULL) ||
	    (cut.type != LR_JSON_NULL && (cut.type != LR_JSON_ARRAY || text_v.type != LR_JSON_STRING)))
		return bad(rd, "cut_tokens");
	if (cut.type == LR_JSON_NULL)
		return 0;
	memcpy(rd->strings, cut.p, cut.n); /* ids as written; the store keeps them as JSON */
	rd->strings[cut.n] = '\0';
	r->cut_tokens = rd->strings;
	rd->strings += cut.n + 1;
	r->cut_text = rd->strings;
	r->cut_text_len = lr_json_string(&text_v, rd->strings);
	rd->strings += r->cut_text_len + 1;
	return 0;
}

static int read_request(struct reader *rd, const struct lr_jval *obj, struct lr_store_request *r)
{
	double status, prompt, completion, inflight;
	int has_status, has_prompt, has_completion, has, rc;
	struct lr_jfields m, *o = &m;

	if (obj->type != LR_JSON_OBJECT)
		return bad(rd, "requests");
	if ((rc = lr_json_fields(&m, obj, request_names, NNAMES(request_names))))
		return rc;
	if ((rc = text(rd, o, "case_id", 0, &r->case_id)) || (rc = text(rd, o, "body", 0, &r->body)) ||
	    (rc = boolean(rd, o, "sent", &r->sent)) || (rc = number(rd, o, "sent_ms", 1, 0, &r->sent_ms, &has)) ||
	    (rc = number(rd, o, "end_ms", 1, 0, &r->end_ms, &has)) ||
	    (rc = number(rd, o, "status", 1, 1, &status, &has_status)) ||
	    (rc = text(rd, o, "failure", 1, &r->failure)) || (rc = number(rd, o, "ttft_ms", 1, 0, &r->ttft_ms, &has)) ||
	    (rc = number(rd, o, "e2el_ms", 1, 0, &r->e2el_ms, &has)) || (rc = itl(rd, o, &r->itl_json)) ||
	    (rc = text(rd, o, "token_source", 1, &r->token_source)) ||
	    (rc = number(rd, o, "prompt_tokens", 1, 1, &prompt, &has_prompt)) ||
	    (rc = number(rd, o, "completion_tokens", 1, 1, &completion, &has_completion)) ||
	    (rc = number(rd, o, "inflight", 0, 1, &inflight, &has)))
		return rc;
	if (r->token_source && lr_enum_parse(&lr_token_sources, r->token_source, &has)) {
		lr_fmt_cut(rd->buf, sizeof rd->buf, "'token_source' is '%s', which labrun does not know",
			   r->token_source);
		return rd->why = rd->buf, 1; /* the store would refuse it, less clearly */
	}
	if (has_status && status > 999)
		return bad(rd, "status");
	if (inflight > 1 << 20)
		return bad(rd, "inflight");
	r->status = has_status ? (long)status : 0;
	r->prompt_tokens = has_prompt ? (int64_t)prompt : -1;
	r->completion_tokens = has_completion ? (int64_t)completion : -1;
	r->inflight = (int)inflight;
	return read_check(rd, o, r);
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

static int read_all(struct reader *rd, const struct lr_jval *top, struct lr_passfile *pf)
{
	struct lr_jval pass, gauges, requests, r;
	struct lr_jfields m;
	struct lr_jiter it;
	int rc;

	if ((rc = lr_json_fields(&m, top, top_names, NNAMES(top_names))))
		return rc;
	if (top->type != LR_JSON_OBJECT || !get(&m, "pass", &pass) || !get(&m, "gauges", &gauges) ||
	    !get(&m, "requests", &requests) || requests.type != LR_JSON_ARRAY)
		return rd->why = "not an object of pass, gauges and requests", 1;
	if ((rc = read_pass(rd, &pass, &pf->pass)) || (rc = read_gauges(rd, &gauges, pf)))
		return rc;
	lr_json_iter(&it, &requests);
	while (lr_json_next(&it, NULL, &r))
		pf->n++;
	if (pf->n && !(pf->req = calloc(pf->n, sizeof *pf->req)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	lr_json_iter(&it, &requests);
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
		lr_error_set(LR_EINVAL, "%s: not a collect pass file: %s", path, rd.why);
		lr_error_hint("it is what 'labrun collect --pass FILE' writes; nothing was stored");
		return LR_EINVAL;
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
