#include "config.h"
#include "base/system.h"

#include <math.h>
#include <sys/mman.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/jsonscan.h"
#include "base/lines.h"
#include "base/list.h"
#include "base/strmap.h"
#include "base/walk.h"
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
	lr_error_set(LR_EDATA, "%s:%lld: %s%s%s", path, (long long)line, why, what ? ": " : "", what ? what : "");
	lr_error_hint(
		"one JSON object a line: case_id, tokens, text, finish_reason (docs/serving.md); nothing was stored");
	return LR_EDATA;
}

/* The members a line may have; others are kept in the stored file only. */
enum { M_CASE_ID, M_TOKENS, M_TEXT, M_FINISH, M_LATENCY, M_TTFT, M_INPUT, M_OUTPUT, M_LANE, M_MODEL, M_N };
#define NAME(s) LR_JSON_NAME(s)
static const struct lr_jname member_names[M_N] = { NAME("case_id"),       NAME("tokens"),        NAME("text"),
						   NAME("finish_reason"), NAME("latency_ms"),    NAME("ttft_ms"),
						   NAME("input_tokens"),  NAME("output_tokens"), NAME("lane"),
						   NAME("model") };
#undef NAME
LR_JSON_FIELDS_FIT(member_names);

/* An optional number: absent (NULL) or null gives 1 with *out untouched; one of the right kind and >= 0 gives 1. */
static int opt_number(const struct lr_jval *v, int integer, double *out)
{
	if (!v || v->type == LR_JSON_NULL)
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
 * compares as text, written from the checked array's bytes in one pass
 * (walking it value by value and printing each was a third of ingest):
 * digits are copied, blanks dropped; 1 for anything but integers >= 0.
 */
static int compact_tokens(struct parsed *p, const struct lr_jval *tokens, int64_t *n)
{
	const char *s = tokens->p + 1, *end = tokens->p + tokens->n - 1; /* inside the brackets */
	char *out;

	*n = 0;
	if (LR_ALLOC_GROW(p->tokens, tokens->n + 1, p->tokcap)) /* the compact form is never longer */
		return LR_ENOMEM;
	out = p->tokens;
	*out++ = '[';
	for (;;) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++;
		if (s == end)
			break;
		if ((*n)++)
			*out++ = ',';
		if (*s == '-' && s[1] == '0') /* "-0" is 0; "-0.5" and "-0e1" are reals, refused below */
			s++;
		if (*s < '0' || *s > '9') /* '-', a string, an object...: checked JSON, so not an integer >= 0 */
			return 1;
		while (s < end && *s >= '0' && *s <= '9')
			*out++ = *s++;
		if (s < end && (*s == '.' || *s == 'e' || *s == 'E'))
			return 1; /* a real */
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++;
		if (s < end)
			s++; /* the comma */
	}
	*out++ = ']';
	*out = '\0';
	return 0;
}

/* Parse line 'n' of 'path' into 'p' (checked); LR_EDATA "FILE:LINE: reason". */
static int parse_line(const char *path, int64_t n, const char *line, size_t len, struct parsed *p)
{
	static const char *const ints[] = { "input_tokens", "output_tokens", "lane" };
	const struct lr_jval *m[M_N];
	struct lr_jval top, dup;
	struct lr_jfields f;
	int bad_utf8, rc;
	struct lr_jdoc doc;
	double d, iv[3] = { -1, -1, -1 };
	const char *why;
	size_t i, off = 0, slen;
	char what[160];

	memset(&p->r, 0, sizeof p->r);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (!len)
		return bad(path, n, "empty line", NULL);
	if (lr_json_check_nul(&doc, line, len, &top, &why, &bad_utf8))
		return bad(path, n, bad_utf8 ? "invalid UTF-8" : "not a JSON object", why);
	if (top.type != LR_JSON_OBJECT)
		return bad(path, n, "not a JSON object", "a line holds one {...}");
	if (!lr_json_unique(&top, &dup)) {
		snprintf(what, sizeof what, "duplicate object key %.*s", (int)(dup.n < 120 ? dup.n : 120), dup.p);
		return bad(path, n, "not a JSON object", what);
	}
	if ((rc = lr_json_fields(&f, &top, member_names, M_N)))
		return rc;
	for (i = 0; i < M_N; i++)
		m[i] = lr_json_field(&f, i);             /* NULL when absent */
	if (LR_ALLOC_GROW(p->buf, len + M_N, p->bufcap)) /* the decoded strings, each NUL-terminated, fit in the line */
		return LR_ENOMEM;
	if (!m[M_CASE_ID] || m[M_CASE_ID]->type != LR_JSON_STRING || m[M_CASE_ID]->n == 2)
		return bad(path, n, "'case_id' must be a non-empty string", NULL);
	p->r.case_id = take_string(p, m[M_CASE_ID], &off, &slen);
	if (!m[M_TOKENS] || m[M_TOKENS]->type != LR_JSON_ARRAY)
		return bad(path, n, "'tokens' must be an array of token ids", NULL);
	if ((rc = compact_tokens(p, m[M_TOKENS], &p->r.ntokens)))
		return rc < 0 ? rc : bad(path, n, "'tokens' must hold non-negative integers only", NULL);
	if (!m[M_TEXT] || m[M_TEXT]->type != LR_JSON_STRING)
		return bad(path, n, "'text' must be a string", NULL);
	p->r.text = take_string(p, m[M_TEXT], &off, &p->r.text_len);
	if (!m[M_FINISH] || m[M_FINISH]->type != LR_JSON_STRING || m[M_FINISH]->n == 2)
		return bad(path, n, "'finish_reason' must be a non-empty string ('stop' is EOS)", NULL);
	p->r.finish_reason = take_string(p, m[M_FINISH], &off, &slen);
	p->r.latency_ms = p->r.ttft_ms = NAN;
	if (!opt_number(m[M_LATENCY], 0, &p->r.latency_ms))
		return bad(path, n, "'latency_ms' must be a number >= 0", NULL);
	if (!opt_number(m[M_TTFT], 0, &p->r.ttft_ms))
		return bad(path, n, "'ttft_ms' must be a number >= 0", NULL);
	for (i = 0; i < 3; i++) {
		d = -1;
		if (!opt_number(m[M_INPUT + i], 1, &d)) {
			snprintf(what, sizeof what, "'%s' must be a whole number >= 0", ints[i]);
			return bad(path, n, what, NULL);
		}
		iv[i] = d;
	}
	p->r.input_tokens = (int64_t)iv[0];
	p->r.output_tokens = (int64_t)iv[1];
	p->r.lane = (int64_t)iv[2];
	if (m[M_MODEL] && m[M_MODEL]->type != LR_JSON_NULL && m[M_MODEL]->type != LR_JSON_STRING)
		return bad(path, n, "'model' must be a string", NULL);
	p->r.model = m[M_MODEL] && m[M_MODEL]->type == LR_JSON_STRING ? take_string(p, m[M_MODEL], &off, &slen) : NULL;
	p->r.tokens = p->tokens;
	p->r.line = n;
	return 0;
}

static int too_long(const char *path, int64_t line)
{
	return lr_error_set(LR_EDATA, "responses '%s', line %lld: the line is longer than %zu MiB", path,
			    (long long)line, LR_LINE_MAX >> 20);
}

/* Check every line of the n bytes at 'bytes' (the file 'path'), and with 'w' set store each response. */
static int each_line(const char *path, const char *bytes, size_t n, struct lr_set_writer *w, int64_t *cases)
{
	struct lr_strmap seen = { 0 };
	struct lr_progress *progress;
	struct parsed p = { 0 };
	const char *at = bytes, *end;
	intptr_t first;
	int64_t line = 0;
	int rc = 0;

	*cases = 0;
	if (!n) /* an empty file, whose bytes may be NULL: an empty set */
		return 0;
	end = bytes + n;
	progress = lr_progress_start("checked and stored", "MiB", (int64_t)(n >> 20));
	while (at < end && !rc) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);

		if (len > LR_LINE_MAX) {
			rc = too_long(path, line + 1);
			break;
		}
		if ((rc = parse_line(path, ++line, at, len, &p)))
			break;
		at += len + (nl != NULL);
		if (lr_strmap_get(&seen, p.r.case_id, &first)) {
			char what[64];

			snprintf(what, sizeof what, "first at line %lld", (long long)first);
			rc = bad(path, line, "duplicate case_id", what);
		} else if (!(rc = lr_strmap_put(&seen, p.r.case_id, (intptr_t)line)) && w) {
			rc = lr_store_set_add(w, &p.r);
		}
		*cases += !rc;
		if (!(line & 1023))
			lr_progress_update(progress, (at - bytes) >> 20);
	}
	lr_progress_stop(&progress);
	parsed_release(&p);
	lr_strmap_release(&seen);
	return rc;
}

static int cannot_read(const char *path)
{
	lr_error_set(LR_EINVAL, "cannot read responses '%s': %s", path, strerror(errno));
	lr_error_hint("name a JSON-lines file the harness wrote");
	return LR_EINVAL;
}

/*
 * The responses file 'path' opened as labrun opens every file a user names (lr_open_input), or
 * standard input for "-" (copy_in bounds what it reads). Not a regular file is bad input (exit 2).
 */
static int open_responses(const char *path, int *fd)
{
	int rc;

	if (!strcmp(path, "-"))
		return (*fd = fcntl(0, F_DUPFD_CLOEXEC, 3)) < 0 ? cannot_read(path) : 0;
	if ((rc = lr_open_input("responses", path, LR_RESPONSES_MAX, fd)) == LR_ENOTFOUND || rc == LR_EIO)
		return cannot_read(path);
	return rc == LR_EREFUSED ? LR_EINVAL : rc;
}

int lr_responses_check(const char *path, int64_t *cases)
{
	struct stat sb;
	void *m = NULL;
	int fd, rc;

	if ((rc = open_responses(path, &fd)))
		return rc;
	if (fstat(fd, &sb) != 0) {
		rc = cannot_read(path);
		goto out;
	}
	if (sb.st_size && (m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		m = NULL;
		rc = cannot_read(path);
		goto out;
	}
	rc = each_line(path, m, m ? (size_t)sb.st_size : 0, NULL, cases);
out:
	if (m)
		munmap(m, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	return rc;
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
		lr_error_set(
			LR_EREFUSED,
			"refusing to store responses '%s': they contain the value of a secret environment variable",
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
	lr_error_set(
		LR_EINVAL, "invalid route name '%s%s': %s", shown, n > LR_ROUTE_MAX ? "..." : "",
		n > LR_ROUTE_MAX
			? "longer than 64 bytes"
			: "a route is 1 to 64 printable characters without blanks, '/' or '\\', not starting with '-'");
	lr_error_hint("name routes as the team does, e.g. native-gpu or rngd-atom");
	return LR_EINVAL;
}

int lr_responses_ingest(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *path,
			char *const *envp, int64_t *set, int64_t *cases)
{
	struct stat sb;

	if (!stat(path, &sb) && S_ISREG(sb.st_mode) && !sb.st_size) { /* a harness that wrote nothing */
		lr_error_set(LR_EINVAL, "responses '%s' is empty: no response of route '%s' to store", path, route);
		lr_error_hint(
			"the harness wrote no response: see its log, or give the file it wrote; nothing was stored");
		return LR_EINVAL;
	}
	return lr_responses_ingest_with(st, run, route, cond, seq, path, path, envp, NULL, NULL, set, cases);
}

/*
 * The file read once, into an object not yet committed (refused at the first
 * secret it holds), and its lines read from that copy: what the rows say is
 * what the stored file says, and the store is locked only while they are
 * read from memory.
 */
static int copy_in(const char *path, int fd, struct lr_objw *obj, struct secret_scan *scan)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	size_t run = 0; /* bytes since the last newline: one endless line (/dev/zero) is refused early */
	int64_t lines = 0, total = 0;
	ssize_t n;
	int rc = 0;

	if (!buf)
		return lr_error_set(LR_ENOMEM, "out of memory");
	while (!rc && (n = read(fd, buf, CHUNK)) != 0) {
		const char *p, *nl, *end = buf + (n > 0 ? n : 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = lr_error_set(LR_EIO, "cannot read responses '%s': %s", path, strerror(errno));
			break;
		}
		for (p = buf; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1, run = 0)
			if (run + (size_t)(nl - p) > LR_LINE_MAX)
				break;
			else
				lines++;
		if ((run += (size_t)(end - p)) > LR_LINE_MAX)
			rc = too_long(path, lines + 1);
		else if ((total += n) > (int64_t)LR_RESPONSES_MAX) /* a stream ("-") has no size to check first */
			rc = lr_error_set(LR_EINVAL, "cannot read responses '%s': more than %zu bytes", path,
					  LR_RESPONSES_MAX);
		else if (!(scan->scrub.n && (rc = scan_secret(scan, buf, (size_t)n))))
			rc = lr_objw_write(obj, buf, (size_t)n);
	}
	free(buf);
	return rc;
}

int lr_responses_ingest_with(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *path,
			     const char *source, char *const *envp, lr_ingest_extra_fn extra, void *arg, int64_t *set,
			     int64_t *cases)
{
	struct secret_scan scan = { .path = path };
	struct lr_set_writer *w = NULL;
	struct lr_objw *obj = NULL;
	char raw[LR_SHA256_HEX];
	const char *bytes = NULL;
	size_t n = 0;
	int rc, fd = -1;

	*cases = 0;
	if ((rc = check_route(route)))
		return rc;
	if ((rc = open_responses(path, &fd)))
		return rc;
	if ((rc = lr_scrub_init(&scan.scrub, envp)))
		goto out;
	if (scan.scrub.n) { /* a route names rows, files and report cells: never a secret */
		char *scrubbed = lr_scrub_string(&scan.scrub, route);

		if (!scrubbed)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		else if (strcmp(scrubbed, route)) {
			rc = lr_error_set(LR_EREFUSED,
					  "refusing route name '%s': it holds the value of a secret environment "
					  "variable",
					  scrubbed);
			lr_error_hint("secrets never reach the store; name the route otherwise");
		}
		free(scrubbed);
		if (rc)
			goto out;
	}
	if (!(rc = lr_objw_open(&obj, lr_store_dir(st), NULL)))
		lr_objw_defer_hash(obj); /* hashed on another CPU while the lines are read */
	if (rc || (rc = copy_in(path, fd, obj, &scan)) || (rc = lr_objw_map(obj, &bytes, &n)))
		goto out;
	close(fd);
	fd = -1;
	if ((rc = lr_store_set_begin(st, run, route, cond, seq, source, &w)))
		goto out;
	if ((rc = each_line(path, bytes, n, w, cases)) || (extra && (rc = extra(arg, w))))
		goto out;
	munmap((void *)bytes, n);
	bytes = NULL;
	rc = lr_objw_commit(obj, raw, NULL); /* durable before any row names it */
	obj = NULL;
	if (!rc) {
		rc = lr_store_set_commit(w, raw, set); /* frees w, committed or not */
		w = NULL;
	}
out:
	if (bytes)
		munmap((void *)bytes, n);
	lr_store_set_abort(w);
	lr_objw_abort(obj);
	lr_scrub_release(&scan.scrub);
	if (fd >= 0)
		close(fd);
	return rc;
}
