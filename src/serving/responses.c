#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/error.h"
#include "base/lines.h"
#include "base/strmap.h"
#include "record/redact.h"
#include "serving/serving.h"
#include "store/objects.h"
#include "store/serving.h"

/* One parsed line; strings borrowed from 'obj' (and 'tokens', owned here). */
struct parsed {
	json_t *obj;
	char *tokens;			/* compact JSON of the token array */
	struct lr_response r;
};

static void parsed_release(struct parsed *p)
{
	json_decref(p->obj);
	free(p->tokens);
	memset(p, 0, sizeof *p);
}

static int bad(const char *path, int64_t line, const char *why, const char *what)
{
	lr_error_set(LR_EINVAL, "%s:%lld: %s%s%s", path, (long long)line, why, what ? ": " : "", what ? what : "");
	lr_error_hint("one JSON object a line: case_id, tokens, text, finish_reason (docs/serving.md); nothing was stored");
	return LR_EINVAL;
}

/* An optional member: absent or null gives 1 with *out untouched; a number of the right kind gives 1. */
static int opt_number(json_t *o, const char *key, int integer, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 1;
	if (integer ? !json_is_integer(v) : !json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return *out >= 0;
}

/*
 * The token array as compact JSON ("[1,2,3]"), the form the store keeps and
 * compares as text. Written by hand because json_dumps formats through
 * printf, which was a tenth of the ingest time of 100,000 responses.
 */
static char *compact_tokens(json_t *tokens)
{
	size_t n = json_array_size(tokens), i, off = 0;
	char *s = malloc(n * 21 + 3), digits[24];

	if (!s)
		return NULL;
	s[off++] = '[';
	for (i = 0; i < n; i++) {
		unsigned long long v = (unsigned long long)json_integer_value(json_array_get(tokens, i));
		int k = 0;

		if (i)
			s[off++] = ',';
		do
			digits[k++] = (char)('0' + v % 10);
		while (v /= 10);
		while (k)
			s[off++] = digits[--k];
	}
	s[off++] = ']';
	s[off] = '\0';
	return s;
}

/* Parse line 'n' of 'path' into 'p' (checked); LR_EINVAL "FILE:LINE: reason". */
static int parse_line(const char *path, int64_t n, const char *buf, size_t len, struct parsed *p)
{
	static const char *const ints[] = { "input_tokens", "output_tokens", "lane" };
	json_t *tokens, *v;
	json_error_t err;
	double d, iv[3] = { -1, -1, -1 };
	size_t i;

	memset(p, 0, sizeof *p);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (!len)
		return bad(path, n, "empty line", NULL);
	p->obj = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!p->obj && strstr(err.text, "unable to decode byte"))
		return bad(path, n, "invalid UTF-8", err.text);
	if (!p->obj)
		return bad(path, n, "not a JSON object", err.text);
	if (!json_is_object(p->obj))
		return bad(path, n, "not a JSON object", "a line holds one {...}");
	v = json_object_get(p->obj, "case_id");
	if (!json_is_string(v) || !json_string_length(v))
		return bad(path, n, "'case_id' must be a non-empty string", NULL);
	p->r.case_id = json_string_value(v);
	tokens = json_object_get(p->obj, "tokens");
	if (!json_is_array(tokens))
		return bad(path, n, "'tokens' must be an array of token ids", NULL);
	for (i = 0; i < json_array_size(tokens); i++) {
		v = json_array_get(tokens, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad(path, n, "'tokens' must hold non-negative integers only", NULL);
	}
	p->r.ntokens = (int64_t)json_array_size(tokens);
	v = json_object_get(p->obj, "text");
	if (!json_is_string(v))
		return bad(path, n, "'text' must be a string", NULL);
	p->r.text = json_string_value(v);
	p->r.text_len = json_string_length(v);
	v = json_object_get(p->obj, "finish_reason");
	if (!json_is_string(v) || !json_string_length(v))
		return bad(path, n, "'finish_reason' must be a non-empty string ('stop' is EOS)", NULL);
	p->r.finish_reason = json_string_value(v);
	p->r.latency_ms = p->r.ttft_ms = NAN;
	if (!opt_number(p->obj, "latency_ms", 0, &p->r.latency_ms))
		return bad(path, n, "'latency_ms' must be a number >= 0", NULL);
	if (!opt_number(p->obj, "ttft_ms", 0, &p->r.ttft_ms))
		return bad(path, n, "'ttft_ms' must be a number >= 0", NULL);
	for (i = 0; i < 3; i++) {
		d = -1;
		if (!opt_number(p->obj, ints[i], 1, &d)) {
			char why[64];

			snprintf(why, sizeof why, "'%s' must be a whole number >= 0", ints[i]);
			return bad(path, n, why, NULL);
		}
		iv[i] = d;
	}
	p->r.input_tokens = (int64_t)iv[0];
	p->r.output_tokens = (int64_t)iv[1];
	p->r.lane = (int64_t)iv[2];
	v = json_object_get(p->obj, "model");
	if (v && !json_is_null(v) && !json_is_string(v))
		return bad(path, n, "'model' must be a string", NULL);
	p->r.model = json_string_value(v);
	if (!(p->tokens = compact_tokens(tokens)))
		return lr_error_set(LR_ENOMEM, "out of memory");
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
		parsed_release(&p);
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
