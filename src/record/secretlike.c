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

/* A key named like a secret, and the value assigned to it (up to a quote, blank, bracket or separator). */
#define KEYWORD \
	"(password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|" \
	"private[_-]?key|credentials?)"
#define VALUE "[^\"'[:space:],;(){}<>&|]+"

/* A rule whose shape is enough: no check, and the case as written. */
#define SHAPE(rule, re) \
	{ \
		rule, re, NULL, 0 \
	}
/*
 * A name holding KEYWORD in any case, after 'opening', then 'assigned' and
 * the value: keyword_ok decides whether the value is a secret.
 */
#define ASSIGNED(opening, assigned) \
	{ \
		"keyword-assigned", opening "[A-Za-z0-9_.-]*" KEYWORD "[A-Za-z0-9_.-]*" assigned VALUE, keyword_ok, 1 \
	}

/* clang-format off */
static const struct {
	const char *rule, *re;
	int (*ok)(const char *match, size_t len); /* NULL: the shape is enough */
	int icase;
} rules[] = {
	SHAPE("private-key", "-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"),
	SHAPE("github-token", "(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}"),
	SHAPE("gitlab-token", "glpat-[A-Za-z0-9_-]{20,}"),
	SHAPE("aws-access-key", "(AKIA|ASIA)[0-9A-Z]{16}"),
	SHAPE("slack-token", "xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,}"),
	SHAPE("slack-webhook", "https://hooks\\.slack\\.com/(services|workflows|triggers)/[A-Za-z0-9_/+-]{16,}"),
	SHAPE("huggingface-token", "hf_[A-Za-z0-9]{30,}"),
	SHAPE("openai-key", "sk-(proj-)?[A-Za-z0-9_-]{32,}"),
	SHAPE("google-api-key", "AIza[0-9A-Za-z_-]{35}"),
	SHAPE("jwt", "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"),
	/* scheme://user:password@host; a password may hold '/' */
	{ "url-password", "[A-Za-z][A-Za-z0-9+.-]*://[^/:@[:space:]\"']+:[^@[:space:]\"']+@", url_password_ok, 0 },
	{ "pgpass-line", "^[^:#[:space:]]+:([0-9]+|\\*):[^:[:space:]]+:[^:[:space:]]+:[^:[:space:]]+$", pgpass_ok, 0 },
	/* password=..., PGPASSWORD=..., secret := '...', "api_key": "...", and YAML's "token: ..." */
	ASSIGNED("", "[[:space:]]*(:=|=)[[:space:]]*[\"']?"),
	ASSIGNED("[\"']", "[\"'][[:space:]]*:[[:space:]]*[\"']"),
	ASSIGNED("^[[:space:]]*", ":[[:space:]]+[\"']?"),
};
/* clang-format on */
#define NRULES (sizeof rules / sizeof *rules)

static regex_t compiled[NRULES];
static int compiled_ok;

static int compile(void)
{
	size_t i;

	if (compiled_ok)
		return 0;
	for (i = 0; i < NRULES; i++)
		if (regcomp(&compiled[i], rules[i].re, REG_EXTENDED | (rules[i].icase ? REG_ICASE : 0))) {
			const char *bad = rules[i].rule;

			while (i--)
				regfree(&compiled[i]);
			return lr_error_set(LR_EINVAL, "cannot compile the scan rule '%s'", bad);
		}
	compiled_ok = 1;
	return 0;
}

int lr_secretlike_line(const char *line, lr_secretlike_fn fn, void *arg)
{
	regmatch_t m;
	size_t i;
	int rc;

	if ((rc = compile()))
		return rc;
	for (i = 0; i < NRULES; i++) {
		const char *p = line;

		/* the first match that passes the rule's filter: a placeholder earlier on the line hides nothing */
		while (*p && !regexec(&compiled[i], p, 1, &m, p == line ? 0 : REG_NOTBOL)) {
			const char *s = p + m.rm_so;
			size_t n = (size_t)(m.rm_eo - m.rm_so);

			if (!rules[i].ok || rules[i].ok(s, n)) {
				if ((rc = fn(arg, rules[i].rule, s, n)))
					return rc;
				break;
			}
			p = s + (n ? n : 1);
		}
	}
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
