#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "base/jsonscan.h"
#include "base/lines.h"
#include "base/strmap.h"
#include "record/redact.h"
#include "serving/serving.h"
#include "store/objects.h"
#include "store/serving.h"

/*
 * One parsed line. The line is read in place (base/jsonscan.h: jansson's
 * tree cost ingest most of its time); its strings are decoded into 'buf',
 * the token array written compactly into 'tokens', both reused line after
 * line.
 */
struct parsed {
	char *buf, *tokens;
	size_t bufcap, tokcap;
	struct lr_response r;
};

static void parsed_release(struct parsed *p)
{
	free(p->buf);
	free(p->tokens);
	memset(p, 0, sizeof *p);
}

static int bad(const char *path, int64_t line, const char *why, const char *what)
{
	lr_error_set(LR_EINVAL, "%s:%lld: %s%s%s", path, (long long)line, why, what ? ": " : "", what ? what : "");
	lr_error_hint("one JSON object a line: case_id, tokens, text, finish_reason (docs/serving.md); nothing was stored");
	return LR_EINVAL;
}

/* The members a line may have; others are kept in the stored file only. */
enum { M_CASE_ID, M_TOKENS, M_TEXT, M_FINISH, M_LATENCY, M_TTFT, M_INPUT, M_OUTPUT, M_LANE, M_MODEL, M_N };
static const char *const member_names[M_N] = { "case_id", "tokens", "text", "finish_reason", "latency_ms", "ttft_ms",
					       "input_tokens", "output_tokens", "lane", "model" };

/* An optional number: absent or null gives 1 with *out untouched; one of the right kind and >= 0 gives 1. */
static int opt_number(const struct lr_jval *v, int has, int integer, double *out)
{
	if (!has || v->type == LR_JSON_NULL)
		return 1;
	if (v->type == LR_JSON_INTEGER)
		*out = (double)lr_json_integer(v);
	else if (integer || v->type != LR_JSON_REAL)
		return 0;
	else
		*out = strtod(v->p, NULL); /* a member's number: the object's '}' at least follows it */
	return *out >= 0;
}

/* A string member decoded into p->buf at *off: its bytes there, NUL-terminated; its length in *len. */
static const char *take_string(struct parsed *p, const struct lr_jval *v, size_t *off, size_t *len)
{
	const char *s = p->buf + *off;

	*len = lr_json_string(v, p->buf + *off);
	*off += *len + 1;
	return s;
}

/*
 * The token array as compact JSON ("[1,2,3]"), the form the store keeps and
 * compares as text, written by hand (printf was a tenth of ingest's time).
 */
static int compact_tokens(struct parsed *p, const struct lr_jval *tokens, int64_t *n)
{
	struct lr_jiter it;
	struct lr_jval v;
	size_t off = 0;
	char digits[24];

	*n = 0;
	if (p->tokcap < tokens->n + 3) { /* "-0" is the only integer longer than its canonical form */
		char *t = realloc(p->tokens, tokens->n + 3);

		if (!t)
			return lr_error_set(LR_ENOMEM, "out of memory");
		p->tokens = t;
		p->tokcap = tokens->n + 3;
	}
	p->tokens[off++] = '[';
	lr_json_iter(&it, tokens);
	while (lr_json_next(&it, NULL, &v)) {
		unsigned long long x;
		int k = 0;

		if (v.type != LR_JSON_INTEGER || lr_json_integer(&v) < 0)
			return 1;
		x = (unsigned long long)lr_json_integer(&v);
		if ((*n)++)
			p->tokens[off++] = ',';
		do
			digits[k++] = (char)('0' + x % 10);
		while (x /= 10);
		while (k)
			p->tokens[off++] = digits[--k];
	}
	p->tokens[off++] = ']';
	p->tokens[off] = '\0';
	return 0;
}

/* Parse line 'n' of 'path' into 'p' (checked); LR_EINVAL "FILE:LINE: reason". */
static int parse_line(const char *path, int64_t n, const char *line, size_t len, struct parsed *p)
{
	static const char *const ints[] = { "input_tokens", "output_tokens", "lane" };
	struct lr_jval top, k, v, m[M_N], dup;
	int has[M_N] = { 0 }, bad_utf8, rc;
	struct lr_jdoc doc;
	struct lr_jiter it;
	double d, iv[3] = { -1, -1, -1 };
	const char *why;
	size_t i, off = 0, slen;
	char what[160];

	memset(&p->r, 0, sizeof p->r);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (!len)
		return bad(path, n, "empty line", NULL);
	if (lr_json_check(&doc, line, len, &top, &why, &bad_utf8))
		return bad(path, n, bad_utf8 ? "invalid UTF-8" : "not a JSON object", why);
	if (top.type != LR_JSON_OBJECT)
		return bad(path, n, "not a JSON object", "a line holds one {...}");
	if (!lr_json_unique(&top, &dup)) {
		snprintf(what, sizeof what, "duplicate object key %.*s", (int)(dup.n < 120 ? dup.n : 120), dup.p);
		return bad(path, n, "not a JSON object", what);
	}
	lr_json_iter(&it, &top);
	while (lr_json_next(&it, &k, &v))
		for (i = 0; i < M_N; i++)
			if (lr_json_string_is(&k, member_names[i])) {
				m[i] = v;
				has[i] = 1;
				break;
			}
	if (p->bufcap < len + M_N) { /* the decoded strings, each NUL-terminated, fit in the line */
		char *b = realloc(p->buf, len + M_N);

		if (!b)
			return lr_error_set(LR_ENOMEM, "out of memory");
		p->buf = b;
		p->bufcap = len + M_N;
	}
	if (!has[M_CASE_ID] || m[M_CASE_ID].type != LR_JSON_STRING || m[M_CASE_ID].n == 2)
		return bad(path, n, "'case_id' must be a non-empty string", NULL);
	p->r.case_id = take_string(p, &m[M_CASE_ID], &off, &slen);
	if (!has[M_TOKENS] || m[M_TOKENS].type != LR_JSON_ARRAY)
		return bad(path, n, "'tokens' must be an array of token ids", NULL);
	if ((rc = compact_tokens(p, &m[M_TOKENS], &p->r.ntokens)))
		return rc < 0 ? rc : bad(path, n, "'tokens' must hold non-negative integers only", NULL);
	if (!has[M_TEXT] || m[M_TEXT].type != LR_JSON_STRING)
		return bad(path, n, "'text' must be a string", NULL);
	p->r.text = take_string(p, &m[M_TEXT], &off, &p->r.text_len);
	if (!has[M_FINISH] || m[M_FINISH].type != LR_JSON_STRING || m[M_FINISH].n == 2)
		return bad(path, n, "'finish_reason' must be a non-empty string ('stop' is EOS)", NULL);
	p->r.finish_reason = take_string(p, &m[M_FINISH], &off, &slen);
	p->r.latency_ms = p->r.ttft_ms = NAN;
	if (!opt_number(&m[M_LATENCY], has[M_LATENCY], 0, &p->r.latency_ms))
		return bad(path, n, "'latency_ms' must be a number >= 0", NULL);
	if (!opt_number(&m[M_TTFT], has[M_TTFT], 0, &p->r.ttft_ms))
		return bad(path, n, "'ttft_ms' must be a number >= 0", NULL);
	for (i = 0; i < 3; i++) {
		d = -1;
		if (!opt_number(&m[M_INPUT + i], has[M_INPUT + i], 1, &d)) {
			snprintf(what, sizeof what, "'%s' must be a whole number >= 0", ints[i]);
			return bad(path, n, what, NULL);
		}
		iv[i] = d;
	}
	p->r.input_tokens = (int64_t)iv[0];
	p->r.output_tokens = (int64_t)iv[1];
	p->r.lane = (int64_t)iv[2];
	if (has[M_MODEL] && m[M_MODEL].type != LR_JSON_NULL && m[M_MODEL].type != LR_JSON_STRING)
		return bad(path, n, "'model' must be a string", NULL);
	p->r.model = has[M_MODEL] && m[M_MODEL].type == LR_JSON_STRING ? take_string(p, &m[M_MODEL], &off, &slen) : NULL;
	p->r.tokens = p->tokens;
	p->r.line = n;
	return 0;
}

/* Read 'path' line by line: check every line, and with 'w' set store each response. */
static int each_line(const char *path, struct lr_set_writer *w, int64_t *cases)
{
	struct lr_strmap seen = { 0 };
	struct parsed p = { 0 };
	struct lr_lines lines;
	char *buf;
	size_t len;
	intptr_t first;
	int rc;

	*cases = 0;
	if ((rc = lr_lines_open(&lines, "responses", path, LR_LINE_MAX))) {
		lr_error_hint("name a JSON-lines file the harness wrote");
		return rc;
	}
	while ((rc = lr_lines_next(&lines, &buf, &len)) > 0) {
		int64_t n = lines.line;

		if ((rc = parse_line(path, n, buf, len, &p)))
			break;
		if (lr_strmap_get(&seen, p.r.case_id, &first)) {
			char what[64];

			snprintf(what, sizeof what, "first at line %lld", (long long)first);
			rc = bad(path, n, "duplicate case_id", what);
			break;
		}
		if ((rc = lr_strmap_put(&seen, p.r.case_id, (intptr_t)n)))
			break;
		if (w && (rc = lr_store_set_add(w, &p.r)))
			break;
		(*cases)++;
	}
	parsed_release(&p);
	lr_lines_close(&lines);
	lr_strmap_release(&seen);
	return rc;
}

int lr_responses_check(const char *path, int64_t *cases)
{
	return each_line(path, NULL, cases);
}

struct secret_scan {
	struct lr_scrub scrub;
	const char *path;
};

static int scan_secret(void *arg, const void *data, size_t len)
{
	struct secret_scan *s = arg;
	int found = 0, rc = lr_scrub_feed(&s->scrub, data, len, NULL, NULL, &found);

	if (rc)
		return rc;
	if (found) {
		lr_error_set(LR_EREFUSED, "refusing to store responses '%s': they contain the value of a secret environment variable",
			     s->path);
		lr_error_hint("secrets never reach the store; unset the variable or remove the value from the file");
		return LR_EREFUSED;
	}
	return 0;
}

#define LR_ROUTE_MAX 64

/* A route name is a name: it becomes part of file names in crates and cells of every report. */
static int check_route(const char *route)
{
	size_t n = strlen(route), i;
	char shown[LR_ROUTE_MAX + 1];

	for (i = 0; i < n && route[i] > ' ' && route[i] < 0x7f && route[i] != '/' && route[i] != '\\'; i++)
		;
	if (n && n <= LR_ROUTE_MAX && i == n && route[0] != '-')
		return 0;
	for (i = 0; i < n && i < LR_ROUTE_MAX; i++) /* said back without what a terminal would act on */
		shown[i] = route[i] >= ' ' && route[i] < 0x7f ? route[i] : '?';
	shown[i] = '\0';
	lr_error_set(LR_EINVAL, "invalid route name '%s%s': %s", shown, n > LR_ROUTE_MAX ? "..." : "",
		     n > LR_ROUTE_MAX ? "longer than 64 bytes" : "a route is 1 to 64 printable characters without blanks, '/' or '\\', not starting with '-'");
	lr_error_hint("name routes as the team does, e.g. native-gpu or rngd-atom");
	return LR_EINVAL;
}

int lr_responses_ingest(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *path,
			char *const *envp, int64_t *set, int64_t *cases)
{
	return lr_responses_ingest_with(st, run, route, cond, seq, path, path, envp, NULL, NULL, set, cases);
}

int lr_responses_ingest_with(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *path,
			     const char *source, char *const *envp, lr_ingest_extra_fn extra, void *arg, int64_t *set,
			     int64_t *cases)
{
	struct secret_scan scan = { .path = path };
	struct lr_set_writer *w = NULL;
	char raw[LR_SHA256_HEX], *obj = NULL;
	int64_t size = 0, stored = 0;
	int rc;

	/* the whole file first: a bad line leaves the store as it was */
	if ((rc = check_route(route)) || (rc = lr_responses_check(path, cases)) || (rc = lr_scrub_init(&scan.scrub, envp)))
		return rc;
	if (scan.scrub.n) { /* a route names rows, files and report cells: never a secret */
		char *scrubbed = lr_scrub_string(&scan.scrub, route);

		if (!scrubbed)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		else if (strcmp(scrubbed, route)) {
			rc = lr_error_set(LR_EREFUSED, "refusing route name '%s': it holds the value of a secret environment "
					  "variable", scrubbed);
			lr_error_hint("secrets never reach the store; name the route otherwise");
		}
		free(scrubbed);
		if (rc) {
			lr_scrub_release(&scan.scrub);
			return rc;
		}
	}
	rc = lr_obj_put_file(lr_store_dir(st), path, raw, &size, scan.scrub.n ? scan_secret : NULL, &scan);
	lr_scrub_release(&scan.scrub);
	if (rc || (rc = lr_store_set_begin(st, run, route, cond, seq, source, raw, &w)))
		return rc;
	/* the rows come from the stored copy, so they are what its sha256 names */
	if (!(obj = lr_obj_path(lr_store_dir(st), raw)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	if (rc || (rc = each_line(obj, w, &stored)) || stored != *cases) {
		free(obj);
		lr_store_set_abort(w);
		if (rc && rc != LR_EINVAL) /* the store's own failure, not the file's */
			return rc;
		lr_error_set(LR_EIO, "responses '%s' changed while they were ingested", path);
		lr_error_hint("ingest them again once the harness has finished writing them");
		return LR_EIO;
	}
	free(obj);
	if (extra && (rc = extra(arg, w))) {
		lr_store_set_abort(w);
		return rc;
	}
	return lr_store_set_commit(w, set);
}
