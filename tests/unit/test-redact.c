#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "record/redact.h"
#include "record/secretlike.h"

static void secret_names_are_recognised(void **state)
{
	(void)state;
	assert_true(lr_env_name_is_secret("API_TOKEN"));
	assert_true(lr_env_name_is_secret("HF_TOKEN"));
	assert_true(lr_env_name_is_secret("aws_secret_access_key"));
	assert_true(lr_env_name_is_secret("DB_PASSWORD"));
	assert_true(lr_env_name_is_secret("GITHUB_PAT"));
	assert_true(lr_env_name_is_secret("MY_CREDENTIALS"));
	assert_true(lr_env_name_is_secret("PROXY_AUTHORIZATION"));
	assert_false(lr_env_name_is_secret("PATH"));
	assert_false(lr_env_name_is_secret("PYTHONPATH"));
	assert_false(lr_env_name_is_secret("OMP_NUM_THREADS"));
	assert_false(lr_env_name_is_secret("PATTERN"));
}

static void capture_keeps_allowlist_and_redacts_secrets(void **state)
{
	/* clang-format off */
	char *envp[] = {
		"OMP_NUM_THREADS=4", "HOME=/root", "RBLN_DEVICES=0,1", "HF_TOKEN=hf_abcdef",
		"API_TOKEN=s3cr3t-value", "LD_LIBRARY_PATH=/opt/lib", "EDITOR=vi", NULL,
	};
	/* clang-format on */
	struct lr_kvlist l = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(lr_env_capture(&l, envp), 0);
	assert_int_equal(l.n, 5);
	/* sorted by name */
	for (i = 1; i < l.n; i++)
		assert_true(strcmp(l.v[i - 1].key, l.v[i].key) < 0);
	assert_string_equal(lr_kvlist_find(&l, "OMP_NUM_THREADS")->value, "4");
	assert_string_equal(lr_kvlist_find(&l, "RBLN_DEVICES")->value, "0,1");
	assert_string_equal(lr_kvlist_find(&l, "HF_TOKEN")->value, LR_REDACTED);
	assert_string_equal(lr_kvlist_find(&l, "HF_TOKEN")->tag, "redacted");
	assert_string_equal(lr_kvlist_find(&l, "API_TOKEN")->value, LR_REDACTED);
	assert_null(lr_kvlist_find(&l, "HOME"));
	assert_null(lr_kvlist_find(&l, "EDITOR"));
	for (i = 0; i < l.n; i++)
		assert_null(strstr(l.v[i].value, "s3cr3t"));
	lr_kvlist_release(&l);
}

struct out {
	char buf[4096];
	size_t n;
};

static int sink(void *arg, const void *data, size_t len)
{
	struct out *o = arg;

	assert_true(o->n + len < sizeof o->buf);
	memcpy(o->buf + o->n, data, len);
	o->n += len;
	return 0;
}

static void scrub_finds_secrets_split_at_every_offset(void **state)
{
	char *envp[] = { "API_TOKEN=s3cr3t-value", "OTHER_KEY=zz9-plural-z-alpha", NULL };
	const char *text = "line one s3cr3t-value and zz9-plural-z-alpha, then s3cr3t-values end";
	const char *want = "line one <redacted> and <redacted>, then <redacted>s end";
	size_t len = strlen(text), a, b;

	(void)state;
	/* Every way of cutting the text into three chunks. */
	for (a = 0; a <= len; a++)
		for (b = a; b <= len; b += 3) {
			struct lr_scrub s;
			struct out o = { { 0 }, 0 };
			int found = 0;

			assert_int_equal(lr_scrub_init(&s, envp), 0);
			assert_int_equal(lr_scrub_feed(&s, text, a, sink, &o, &found), 0);
			assert_int_equal(lr_scrub_feed(&s, text + a, b - a, sink, &o, &found), 0);
			assert_int_equal(lr_scrub_feed(&s, text + b, len - b, sink, &o, &found), 0);
			assert_int_equal(lr_scrub_flush(&s, sink, &o), 0);
			o.buf[o.n] = '\0';
			assert_string_equal(o.buf, want);
			assert_true(found);
			lr_scrub_release(&s);
		}
}

/*
 * Feeding nothing (an empty read) before any data: the scrubber once did
 * memcpy(NULL + 0, NULL, 0), undefined behaviour that stopped a UBSan build.
 * This test is built with UBSan, so it fails on it.
 */
static void scrub_feeds_nothing(void **state)
{
	char *envp[] = { "API_TOKEN=s3cr3t-value", NULL };
	struct lr_scrub s;
	struct out o = { { 0 }, 0 };
	int found = 0;
	char *t;

	(void)state;
	assert_int_equal(lr_scrub_init(&s, envp), 0);
	assert_int_equal(lr_scrub_feed(&s, NULL, 0, sink, &o, &found), 0);
	assert_int_equal(lr_scrub_flush(&s, sink, &o), 0);
	assert_int_equal(o.n, 0);
	assert_false(found);
	t = lr_scrub_string(&s, "");
	assert_string_equal(t, "");
	free(t);
	lr_scrub_release(&s);
}

static void scrub_passes_clean_text_unchanged(void **state)
{
	char *envp[] = { "API_TOKEN=s3cr3t-value", NULL };
	const char *text = "nothing secret here: s3cr3t-valu";
	struct lr_scrub s;
	struct out o = { { 0 }, 0 };
	int found = 0;

	(void)state;
	assert_int_equal(lr_scrub_init(&s, envp), 0);
	assert_int_equal(lr_scrub_feed(&s, text, strlen(text), sink, &o, &found), 0);
	assert_int_equal(lr_scrub_flush(&s, sink, &o), 0);
	o.buf[o.n] = '\0';
	assert_string_equal(o.buf, text);
	assert_false(found);
	lr_scrub_release(&s);
}

static void scrub_ignores_values_too_short_to_matter(void **state)
{
	char *envp[] = { "A_KEY=1", NULL };
	struct lr_scrub s;
	char *t;

	(void)state;
	assert_int_equal(lr_scrub_init(&s, envp), 0);
	assert_int_equal(s.n, 0);
	t = lr_scrub_string(&s, "1 and 1");
	assert_string_equal(t, "1 and 1");
	free(t);
	lr_scrub_release(&s);
}

static void scrub_string_replaces_every_occurrence(void **state)
{
	char *envp[] = { "DB_PASSWORD="
			 "hunter22",
			 NULL }; /* split: the repository scans clean */
	struct lr_scrub s;
	char *t;

	(void)state;
	assert_int_equal(lr_scrub_init(&s, envp), 0);
	t = lr_scrub_string(&s, "--password="
				"hunter22 hunter22hunter22");
	assert_string_equal(t, "--password=<redacted> <redacted><redacted>");
	free(t);
	lr_scrub_release(&s);
}

/*
 * Each rule of what scan flags (and definitions refuse), with the formats
 * labrun's own docs tell users to write, and look-alikes that are not
 * secrets: placeholders, references, labrun's hashes, keys and envelopes.
 */
static void secretlike_rules_find_and_spare(void **state)
{
	static const struct {
		const char *text, *rule; /* rule NULL: no finding */
	} cases[] = {
		/* each split in two literals, so that the repository itself scans clean */
		{ "-----BEGIN OPENSS"
		  "H PRIVATE KEY-----",
		  "private-key" },
		{ "token ghp_A1b2C3d4E5f6G"
		  "7h8I9j0K1l2M3n4O5p6Q7r8",
		  "github-token" },
		{ "AKIAABCDEF"
		  "GHIJKLMNOP",
		  "aws-access-key" },
		{ "xoxb-12345678"
		  "90-abcdefghij",
		  "slack-token" },
		{ "SLACK_APP=xa"
		  "pp-1-A0123456789-1234567890123-abcdef0123456789",
		  "slack-token" },
		{ "https://hooks.slack.com/services/T"
		  "00000000/B00000000/XXXXabcdefgh1234",
		  "slack-webhook" },
		{ "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.ey"
		  "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		  "jwt" },
		{ "postgresql://labrun:pa"
		  "/ss@db.example/evidence",
		  "url-password" },
		{ "db = postgres://app:hun"
		  "ter22@db.lab.example/kv",
		  "url-password" },
		{ "db.example.org:5432:e"
		  "vidence:alice:Zq7-pW2x",
		  "pgpass-line" },
		{ "cache = redis://:Zq7"
		  "-pW2x@cache.example:6379/0",
		  "url-password" }, /* an empty user */
		{ "redis://:@cache.example:6379/0", NULL },
		{ "*:*:*:alice:Zq7-pW2x", "pgpass-line" }, /* wildcards, as .pgpass allows */
		{ "localhost:5432:*:alice:*", NULL },
		{ "host=db.example password"
		  "=Zq7-pW2x dbname=evidence",
		  "keyword-assigned" },
		{ "PGPASSWORD=Z"
		  "q7-pW2x psql",
		  "keyword-assigned" },
		{ "\"api_key\": \"T"
		  "q93kLmZ0vXa81bC\"",
		  "keyword-assigned" },
		{ "  client_secret: "
		  "Tq93kLmZ0vXa81bCw2",
		  "keyword-assigned" },
		{ "HF_TOKEN := 'Tq9"
		  "3kLmZ0vXa81bCw2'",
		  "keyword-assigned" },
		/* look-alikes */
		{ "postgresql://labrun:${PGPASSWORD}@db/evidence", NULL },
		{ "postgresql://user:password@host/db", NULL },
		{ "https://host.example:8080/path/x@y", NULL },
		{ "fe80:0:0:0:1", NULL },
		{ "password = ${DB_PASSWORD}", NULL },
		{ "password = <your password>", NULL },
		{ "password=args.password", NULL },
		{ "token = self.session_token", NULL },
		{ "max_tokens = 256", NULL },
		{ "\"output_tokens\": 1024", NULL },
		{ "\"tokens\": [151644, 872]", NULL },
		{ "p->tokens = sqlite3_column_int64(s, 3);", NULL },
		{ "o->token_major ? \"token-major\" : \"head-major\"", NULL },
		{ "\"key_sha256\": \"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae\"", NULL },
		{ "\"public_key\": \"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a\"", NULL },
		{ "token_sha256=2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", NULL },
		{ "\"payloadType\": \"application/vnd.in-toto+json\", \"payload\": \"eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ==\"",
		  NULL },
		{ "\"sig\": \"MEUCIQDu5Jd0P3j3n6b8l2+7y0Zk9Ox4RwY1ZkqPq8cWvJ1JQIgU3y2ylP3Kq0n7s1pU8vJcYQ0kA3d5FhqkI3G7n2o9wI=\"",
		  NULL },
		{ "the secret: never stored", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = lr_secretlike(cases[i].text);

		if (!cases[i].rule != !got || (got && strcmp(got, cases[i].rule)))
			fail_msg("'%s': expected %s, got %s", cases[i].text, cases[i].rule ? cases[i].rule : "nothing",
				 got ? got : "nothing");
	}
}

/* The token at the end of a long line without blanks, after look-alike prefixes, is found whole. */
static void secretlike_finds_a_token_after_a_long_run(void **state)
{
	static const char *const fills[] = { "a", "eyJ", "ghp_", "token", "a://b:c", "password=", "\"key\":\"" };
	const char *tok = "ghp_A1b2C3d4E5f6G"
			  "7h8I9j0K1l2M3n4O5p6Q7r8";
	size_t n = 300000, i, k;
	char *line = malloc(n + 64);

	(void)state;
	assert_non_null(line);
	for (i = 0; i < sizeof fills / sizeof *fills; i++) {
		for (k = 0; k + strlen(fills[i]) <= n; k += strlen(fills[i]))
			memcpy(line + k, fills[i], strlen(fills[i]));
		strcpy(line + k, tok);
		if (!lr_secretlike(line) || strcmp(lr_secretlike(line), "github-token"))
			fail_msg("after %zu bytes of '%s': %s", k, fills[i],
				 lr_secretlike(line) ? lr_secretlike(line) : "nothing");
	}
	free(line);
}

/* A server's words: every secret-looking match redacted, a token the cap cut withheld, the rest kept. */
/* A cap never leaves part of a token (its last word goes) nor half a marker (it ends the text whole). */
static void a_cap_cuts_neither_a_token_nor_a_marker(void **state)
{
	char t[64];

	(void)state;
	snprintf(t, sizeof t, "bad key ghp_A1b2A1b2");
	lr_drop_cut_word(t);
	assert_string_equal(t, "bad key ");
	snprintf(t, sizeof t, "bad key: ");
	lr_drop_cut_word(t);
	assert_string_equal(t, "bad key: ");
	snprintf(t, sizeof t, "abc <redacted> tail");
	lr_cut_redacted(t, 7); /* inside a marker 'max' cannot hold: the text ends before it */
	assert_string_equal(t, "abc ");
	snprintf(t, sizeof t, "abcdefghij <redacted>");
	lr_cut_redacted(t, 15);
	assert_string_equal(t, "abcde<redacted>");
	snprintf(t, sizeof t, "abcdefghij <redacted> tail");
	lr_cut_redacted(t, 21); /* after it: an ordinary cut */
	assert_string_equal(t, "abcdefghij <redacted>");
	lr_cut_redacted(t, 40); /* shorter than the cap: unchanged */
	assert_string_equal(t, "abcdefghij <redacted>");
	snprintf(t, sizeof t, "a <b c");
	lr_cut_redacted(t, 4); /* a '<' that begins no marker is cut as any text */
	assert_string_equal(t, "a <b");
}

static void redact_secretlike_scrubs_and_keeps_within_the_buffer(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "HTTP 500: {\"error\": \"ghp_A1b2C3d4E5f6G"
		  "7h8I9j0K1l2M3n4O5p6Q7r8 and ghp_Z1b2C3d4E5f6G"
		  "7h8I9j0K1l2M3n4O5p6Q7r8\"}",
		  "HTTP 500: {\"error\": \"<redacted> and <redacted>\"}" },
		{ "server error in the stream: bad key AKIAABCDEF"
		  "GHIJKLMNOP",
		  "server error in the stream: bad key <redacted>" },
		{ "HTTP 401: bad key ghp_A1b2C3d4E5f6G"
		  "7h8I9", /* cut by a cap: no rule matches the rest */
		  "HTTP 401: bad key <redacted>" },
		{ "connection refused by http://127.0.0.1:8000/v1/completions",
		  "connection refused by http://127.0.0.1:8000/v1/completions" },
		{ "HTTP 500: {\"error\": {\"message\": \"the model is not loaded\"}}",
		  "HTTP 500: {\"error\": {\"message\": \"the model is not loaded\"}}" },
	};
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(buf, sizeof buf, "%s", cases[i].in);
		assert_int_equal(lr_redact_secretlike(buf, sizeof buf), 0);
		assert_string_equal(buf, cases[i].want);
	}
	/* a match replaced by the longer marker, in a full buffer: the text stays within it */
	memset(buf, 'x', 200);
	for (i = 200; i + 10 < sizeof buf; i += 10) /* " a://:pw@h" again and again, to the buffer's end */
		memcpy(buf + i, " a://:pw@h", 10);
	buf[i] = '\0';
	assert_int_equal(lr_redact_secretlike(buf, sizeof buf), 0);
	assert_true(strlen(buf) < sizeof buf);
	assert_null(strstr(buf, ":pw@"));
}

/* The worst case for a scrubbed string's size: secrets of the shortest scrubbed length, back to back. */
static void scrub_string_worst_case_fits(void **state)
{
	char *envp[] = { "API_TOKEN=abcd", NULL }, *in = malloc(4001), *t;
	struct lr_scrub s;
	size_t i;

	(void)state;
	assert_int_equal(LR_SCRUB_MIN, 4);
	for (i = 0; i < 4000; i++)
		in[i] = "abcd"[i % 4];
	in[4000] = '\0';
	assert_int_equal(lr_scrub_init(&s, envp), 0);
	t = lr_scrub_string(&s, in);
	assert_non_null(t);
	assert_int_equal(strlen(t), 1000 * strlen(LR_REDACTED));
	assert_int_equal(strncmp(t, LR_REDACTED LR_REDACTED, 2 * strlen(LR_REDACTED)), 0);
	free(t);
	free(in);
	lr_scrub_release(&s);
}

/*
 * A variable's name, however long, decides whether it is a secret: with a
 * name past 255 characters, the variable was skipped and its value reached
 * the logs unscrubbed (the name was copied into a char[256] first).
 */
static void a_secret_with_a_long_name_is_still_scrubbed(void **state)
{
	char name[400], var[450], pat[400], *envp[3], *scrubbed;
	struct lr_kvlist l = { 0 };
	struct lr_scrub sc;

	(void)state;
	memset(name, 'A', 300);
	snprintf(name + 300, sizeof name - 300, "_TOKEN");
	memset(pat, 'B', 300);
	snprintf(pat + 300, sizeof pat - 300, "_PAT");
	assert_true(lr_env_name_is_secret(name));
	assert_true(lr_env_name_is_secret(pat));
	pat[302] = 'X'; /* ..._PXT: no word of its own */
	assert_false(lr_env_name_is_secret(pat));
	snprintf(var, sizeof var, "%s=the-long-named-secret", name);
	envp[0] = var;
	envp[1] = "OMP_NUM_THREADS=4";
	envp[2] = NULL;
	assert_int_equal(lr_scrub_init(&sc, envp), 0);
	assert_int_equal(sc.n, 1);
	scrubbed = lr_scrub_string(&sc, "log: the-long-named-secret.");
	assert_string_equal(scrubbed, "log: " LR_REDACTED ".");
	free(scrubbed);
	lr_scrub_release(&sc);
	assert_int_equal(lr_env_capture(&l, envp), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].key, name); /* sorted: 'A...' before 'OMP_...' */
	assert_string_equal(l.v[0].value, LR_REDACTED);
	lr_kvlist_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scrub_feeds_nothing),
		cmocka_unit_test(scrub_string_worst_case_fits),
		cmocka_unit_test(secretlike_rules_find_and_spare),
		cmocka_unit_test(secretlike_finds_a_token_after_a_long_run),
		cmocka_unit_test(redact_secretlike_scrubs_and_keeps_within_the_buffer),
		cmocka_unit_test(a_cap_cuts_neither_a_token_nor_a_marker),
		cmocka_unit_test(secret_names_are_recognised),
		cmocka_unit_test(a_secret_with_a_long_name_is_still_scrubbed),
		cmocka_unit_test(capture_keeps_allowlist_and_redacts_secrets),
		cmocka_unit_test(scrub_finds_secrets_split_at_every_offset),
		cmocka_unit_test(scrub_passes_clean_text_unchanged),
		cmocka_unit_test(scrub_ignores_values_too_short_to_matter),
		cmocka_unit_test(scrub_string_replaces_every_occurrence),
	};

	return cmocka_run_group_tests_name("redact", tests, NULL, NULL);
}
