/* The rules of what looks like a credential, and their placeholder filters. */
#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <strings.h>

#include "record/secretlike.h"

/* Shannon entropy of s[0, n), in bits per byte: random tokens score high, words and repeats low. */
static double entropy(const char *s, size_t n)
{
	size_t count[256] = { 0 }, i;
	double h = 0;

	for (i = 0; i < n; i++)
		count[(unsigned char)s[i]]++;
	for (i = 0; i < 256; i++)
		if (count[i]) {
			double p = (double)count[i] / (double)n;

			h -= p * log2(p);
		}
	return h;
}

static int has_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, w, k))
			return 1;
	return 0;
}

/* A value that stands for a secret rather than being one: $VAR, <...>, ***, xxx, changeme, a reference. */
static int placeholder(const char *v, size_t n)
{
	static const char *const words[] = { "example",  "changeme", "change_me", "placeholder", "your",
					     "redacted", "dummy",    "sample",    "xxxx",        "****",
					     "....",     "getenv",   "environ",   "process.env", "secret_key_here",
					     "password", "passwd",   "token",     NULL };
	size_t i, alpha = 0, lower_ident = 1;

	if (!n || strchr("$%<{([*", v[0]) || (n >= 2 && v[0] == '.' && v[1] == '.'))
		return 1;
	for (i = 0; words[i]; i++)
		if (has_word(v, n, words[i]))
			return 1;
	for (i = 0; i < n; i++) {
		alpha += isalpha((unsigned char)v[i]) != 0;
		if (!(islower((unsigned char)v[i]) || isdigit((unsigned char)v[i]) || v[i] == '_' || v[i] == '.'))
			lower_ident = 0;
	}
	/* a number, or an identifier or attribute (args.password, db_pass) is a reference, not a value */
	return !alpha || (lower_ident && (memchr(v, '_', n) || memchr(v, '.', n)));
}

/* A 40- or 64-digit hex value is a hash (labrun's own sha256s and fingerprints are everywhere). */
static int is_hash(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && isxdigit((unsigned char)v[i]); i++)
		;
	return i == n && (n == 40 || n == 64);
}

/* url-password: the password between the first ':' after "://" and the '@'; not a port and a path. */
static int url_password_ok(const char *m, size_t n)
{
	const char *p = strstr(m, "://"), *colon, *at;
	size_t i;

	if (!p || !(colon = memchr(p + 3, ':', n - (size_t)(p + 3 - m))) ||
	    !(at = memchr(colon, '@', n - (size_t)(colon - m))))
		return 0;
	colon++;
	for (i = 0; colon + i < at && isdigit((unsigned char)colon[i]); i++)
		;
	if (i && (colon + i == at || colon[i] == '/'))
		return 0; /* host:8080/path@x */
	return !placeholder(colon, (size_t)(at - colon));
}

/* keyword-assigned: "KEY = VALUE"; the value is the last run of the match after the separator. */
static int keyword_ok(const char *m, size_t n)
{
	static const char *const not_secret[] = { "sha",   "hash",  "digest", "fingerprint", "public", "_id",
						  "ids",   "count", "max",    "min",         "len",    "size",
						  "file",  "path",  "url",    "name",        "type",   "ttl",
						  "expir", "limit", "usage",  "budget",      "kind",   NULL };
	const char *sep = m, *v;
	size_t i, klen, vlen;

	for (sep = m; sep < m + n && !strchr(":=", *sep); sep++)
		;
	klen = (size_t)(sep - m);
	for (i = 0; not_secret[i]; i++)
		if (has_word(m, klen, not_secret[i]))
			return 0;
	for (v = sep; v < m + n && strchr(":= \t\"'", *v); v++)
		;
	vlen = (size_t)(m + n - v);
	if (vlen < 6 || placeholder(v, vlen) || is_hash(v, vlen))
		return 0;
	/* a password may be a word; a token or key is random */
	return has_word(m, klen, "pass") || has_word(m, klen, "pwd") || (vlen >= 8 && entropy(v, vlen) >= 3.5);
}

/* pgpass: host:port:database:user:password, the password neither a placeholder nor hex (an IPv6 address). */
static int pgpass_ok(const char *m, size_t n)
{
	const char *pw = m + n;
	size_t i;

	while (pw > m && pw[-1] != ':')
		pw--;
	for (i = 0; pw + i < m + n && isxdigit((unsigned char)pw[i]); i++)
		;
	return (size_t)(m + n - pw) >= 4 && pw + i != m + n && !placeholder(pw, (size_t)(m + n - pw));
}

/*
 * Linear time for any line (docs/design.md, "scan in linear time"): a shape
 * rule is tried only where one of its literal prefixes stands, anchored, over
 * a window of at most LR_SHAPE_WINDOW bytes; the URL, .pgpass and keyword
 * rules are matched by hand in one pass. An unanchored regexec over a long
 * line without blanks restarts at every byte: quadratic.
 */
#define LR_SHAPE_WINDOW 1024

/* A rule whose shape is enough: its regex (anchored when compiled) and the literals a match starts with. */
struct shape {
	const char *rule, *re;
	const char *prefix[7];
};

/* clang-format off */
static const struct shape shapes[] = {
	{ "private-key", "-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----", { "-----BEGIN " } },
	{ "github-token", "(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}",
	  { "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_" } },
	{ "gitlab-token", "glpat-[A-Za-z0-9_-]{20,}", { "glpat-" } },
	{ "aws-access-key", "(AKIA|ASIA)[0-9A-Z]{16}", { "AKIA", "ASIA" } },
	{ "slack-token", "xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,}", { "xox", "xapp-" } },
	{ "slack-webhook", "https://hooks\\.slack\\.com/(services|workflows|triggers)/[A-Za-z0-9_/+-]{16,}",
	  { "https://hooks.slack.com/" } },
	{ "huggingface-token", "hf_[A-Za-z0-9]{30,}", { "hf_" } },
	{ "openai-key", "sk-(proj-)?[A-Za-z0-9_-]{32,}", { "sk-" } },
	{ "google-api-key", "AIza[0-9A-Za-z_-]{35}", { "AIza" } },
};
/* clang-format on */
#define NSHAPES (sizeof shapes / sizeof *shapes)

static regex_t compiled[NSHAPES];
static int compiled_ok;

static int compile(void)
{
	char re[256];
	size_t i;

	if (compiled_ok)
		return 0;
	for (i = 0; i < NSHAPES; i++) {
		snprintf(re, sizeof re, "^(%s)", shapes[i].re);
		if (regcomp(&compiled[i], re, REG_EXTENDED)) {
			const char *bad = shapes[i].rule;

			while (i--)
				regfree(&compiled[i]);
			return lr_error_set(LR_EINVAL, "cannot compile the scan rule '%s'", bad);
		}
	}
	compiled_ok = 1;
	return 0;
}

static int token_char(int c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/* Whether one of shape k's prefixes stands at p. */
static int at_prefix(const struct shape *k, const char *p)
{
	size_t i;

	for (i = 0; i < sizeof k->prefix / sizeof *k->prefix && k->prefix[i]; i++)
		if (*p == k->prefix[i][0] && !strncmp(p, k->prefix[i], strlen(k->prefix[i])))
			return 1;
	return 0;
}

/* The first match of shape k on line[0..len): its start and length, 0 when none. */
static int shape_find(size_t k, const char *line, size_t len, const char **at, size_t *n)
{
	size_t i;

	for (i = 0; i < len; i++) {
		regmatch_t m;

		if (!at_prefix(&shapes[k], line + i))
			continue;
		m.rm_so = 0;
		m.rm_eo = (regoff_t)(len - i < LR_SHAPE_WINDOW ? len - i : LR_SHAPE_WINDOW);
		if (!regexec(&compiled[k], line + i, 1, &m, REG_STARTEND)) {
			*at = line + i + m.rm_so;
			*n = (size_t)(m.rm_eo - m.rm_so);
			return 1;
		}
	}
	return 0;
}

/* The end of the run of base64url characters from p, when it is at least 8 long; else NULL. */
static const char *segment(const char *p)
{
	const char *e = p;

	while (token_char((unsigned char)*e))
		e++;
	return e - p >= 8 ? e : NULL;
}

/* jwt, eyJ... . eyJ... . signature (8 or more base64url characters each): the first on the line. */
static int jwt_find(const char *line, const char **at, size_t *n)
{
	const char *p = line, *e;

	while ((p = strstr(p, "eyJ"))) {
		if ((e = segment(p + 3)) && *e == '.' && !strncmp(e + 1, "eyJ", 3) && (e = segment(e + 4)) &&
		    *e == '.' && (e = segment(e + 1))) {
			*at = p;
			*n = (size_t)(e - p);
			return 1;
		}
		for (p += 3; token_char((unsigned char)*p); p++) /* a later "eyJ" in this run fails alike */
			;
	}
	return 0;
}

#define SPACES    " \t\n\v\f\r"
#define NOT_VALUE "\"'" SPACES ",;(){}<>&|"

static int scheme_char(int c)
{
	return isalnum(c) || c == '+' || c == '.' || c == '-';
}

/*
 * url-password, scheme://user:password@ (user may be empty: redis://:pw@host):
 * the first match that url_password_ok keeps.
 */
static int url_find(const char *line, size_t len, const char **at, size_t *n)
{
	size_t a, s, u, q;

	for (a = 0; a + 3 <= len; a++) {
		if (memcmp(line + a, "://", 3))
			continue;
		for (s = a; s > 0 && scheme_char((unsigned char)line[s - 1]); s--)
			;
		while (s < a && !isalpha((unsigned char)line[s]))
			s++;
		u = a + 3 + strcspn(line + a + 3, "/:@\"'" SPACES);
		if (s == a || line[u] != ':')
			continue;
		q = u + 1 + strcspn(line + u + 1, "@\"'" SPACES);
		if (q > u + 1 && line[q] == '@' && url_password_ok(line + s, q + 1 - s)) {
			*at = line + s;
			*n = q + 1 - s;
			return 1;
		}
		a = q; /* every "://" before q ends at the same q */
	}
	return 0;
}

/* pgpass-line: host:port:database:user:password, the whole line, no blanks, port digits or '*'. */
static int pgpass_line(const char *line, size_t len)
{
	const char *f[6];
	size_t i, k = 1;

	if (line[strcspn(line, SPACES)] || line[0] == '#')
		return 0;
	f[0] = line;
	for (i = 0; i < len; i++)
		if (line[i] == ':' && (k == 5 || (f[k++] = line + i + 1, 0)))
			return 0;
	f[5] = line + len + 1;
	if (k != 5 || memchr(line, '#', (size_t)(f[1] - 1 - line)))
		return 0;
	for (i = 0; i < 5; i++)
		if (f[i + 1] - 1 == f[i])
			return 0;
	if (!(f[2] - f[1] == 2 && f[1][0] == '*'))
		for (i = 0; f[1] + i < f[2] - 1; i++)
			if (!isdigit((unsigned char)f[1][i]))
				return 0;
	return pgpass_ok(line, len);
}

static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* A key named like a secret, in any case (docs/labrun.md, "keyword-assigned"). */
static int has_keyword(const char *s, size_t n)
{
	static const char *const words[] = { "password",   "passwd",      "passphrase",  "pwd",        "secret",
					     "token",      "apikey",      "api_key",     "api-key",    "accesskey",
					     "access_key", "access-key",  "authkey",     "auth_key",   "auth-key",
					     "privatekey", "private_key", "private-key", "credential", NULL };
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; words[j]; j++)
			if (tolower((unsigned char)s[i]) == words[j][0] && n - i >= strlen(words[j]) &&
			    !strncasecmp(s + i, words[j], strlen(words[j])))
				return 1;
	return 0;
}

/*
 * After a key's name at p, the assignment of form 'form' and a value: where
 * the value ends, or NULL. Forms: 0 "KEY = VALUE" and "KEY := VALUE", 1
 * "\"KEY\": \"VALUE\"", 2 "KEY: VALUE" at the start of a line.
 */
static const char *assigned(const char *p, int form)
{
	if (form == 0) {
		p += strspn(p, SPACES);
		if (*p != '=' && strncmp(p, ":=", 2))
			return NULL;
		p += *p == '=' ? 1 : 2;
		p += strspn(p, SPACES);
	} else if (form == 1) {
		if (!*p || !strchr("\"'", *p))
			return NULL;
		p += 1 + strspn(p + 1, SPACES);
		if (*p != ':')
			return NULL;
		p += 1 + strspn(p + 1, SPACES);
		if (!*p || !strchr("\"'", *p))
			return NULL;
		p++;
	} else {
		if (*p != ':' || !strspn(p + 1, SPACES))
			return NULL;
		p += 1 + strspn(p + 1, SPACES);
	}
	if (*p && strchr("\"'", *p) && form != 1)
		p++;
	return strcspn(p, NOT_VALUE) ? p + strcspn(p, NOT_VALUE) : NULL;
}

/* keyword-assigned in form 'form': the first match that keyword_ok keeps. */
static int keyword_find(const char *line, size_t len, int form, const char **at, size_t *n)
{
	size_t a = 0, b, start;
	const char *end;

	if (form == 2)
		a = strspn(line, SPACES);
	while (a < len) {
		for (; a < len && !name_char((unsigned char)line[a]); a++)
			if (form == 2)
				return 0;
		for (b = a; b < len && name_char((unsigned char)line[b]); b++)
			;
		start = form == 1 ? a - 1 : form == 2 ? 0 : a;
		if (b > a && (form != 1 || (a > 0 && strchr("\"'", line[a - 1]))) && has_keyword(line + a, b - a) &&
		    (end = assigned(line + b, form))) {
			if (keyword_ok(line + start, (size_t)(end - line) - start)) {
				*at = line + start;
				*n = (size_t)(end - line) - start;
				return 1;
			}
			b = (size_t)(end - line);
		}
		if (form == 2)
			return 0;
		a = b;
	}
	return 0;
}

int lr_secretlike_line(const char *line, lr_secretlike_fn fn, void *arg)
{
	size_t len = strlen(line), i, n = 0;
	const char *at = NULL;
	int rc, form;

	if ((rc = compile()))
		return rc;
	for (i = 0; i < NSHAPES; i++)
		if (shape_find(i, line, len, &at, &n) && (rc = fn(arg, shapes[i].rule, at, n)))
			return rc;
	if (jwt_find(line, &at, &n) && (rc = fn(arg, "jwt", at, n)))
		return rc;
	if (url_find(line, len, &at, &n) && (rc = fn(arg, "url-password", at, n)))
		return rc;
	if (pgpass_line(line, len) && (rc = fn(arg, "pgpass-line", line, len)))
		return rc;
	for (form = 0; form < 3; form++)
		if (keyword_find(line, len, form, &at, &n) && (rc = fn(arg, "keyword-assigned", at, n)))
			return rc;
	return 0;
}

static int first_rule(void *arg, const char *rule, const char *match, size_t len)
{
	(void)match;
	(void)len;
	*(const char **)arg = rule;
	return 1;
}

const char *lr_secretlike(const char *text)
{
	const char *rule = NULL;

	return lr_secretlike_line(text, first_rule, &rule) == 1 ? rule : NULL;
}
