#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/safename.h"
#include "base/seal.h"
#include "base/sign.h"

/* Stored names become safe, reversible member names; ordinary ones stay as they are. */
static void safe_member_names(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "results/out.txt", "results/out.txt" },
		{ "r\xc3\xa9sultats.csv", "r\xc3\xa9sultats.csv" },		/* valid UTF-8 stays */
		{ "../x.txt", "%2E%2E/x.txt" },					/* climbing out */
		{ "a/../../b", "a/%2E%2E/%2E%2E/b" },
		{ "./a", "%2E/a" },
		{ "a/..", "a/%2E%2E" },
		{ "..a/b..", "..a/b.." },					/* dots inside a name are fine */
		{ "/etc/passwd", "%2Fetc/passwd" },				/* absolute */
		{ "a//b", "a/%2Fb" },						/* an empty component */
		{ "caf\xe9.csv", "caf%E9.csv" },				/* Latin-1, not UTF-8 */
		{ "100%.txt", "100%25.txt" },					/* the escape character itself */
		{ "tab\there", "tab%09here" },
		{ "\xed\xa0\x80", "%ED%A0%80" },				/* a UTF-16 surrogate */
	};
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_non_null(lr_safe_member(buf, sizeof buf, cases[i].in));
		assert_string_equal(buf, cases[i].out);
	}
	assert_null(lr_safe_member(buf, 4, "abcdef"));
}

/* The ledger entry's canonical form, against a digest computed with sha256sum from docs/schema.md's text. */
static void ledger_entry_digest(void **state)
{
	char d[LR_SHA256_HEX];

	(void)state;
	assert_int_equal(lr_ledger_digest(1, "u", "final", "aaaa", LR_LEDGER_GENESIS, d), 0);
	assert_string_equal(d, "0e02dee8bb90a6d2452436099bfb5d7b4bca719321d772be120253377e843f51");
	assert_int_equal(lr_ledger_digest(2, "u", "final", "aaaa", LR_LEDGER_GENESIS, d), 0);
	assert_string_not_equal(d, "0e02dee8bb90a6d2452436099bfb5d7b4bca719321d772be120253377e843f51");
}

/* RFC 8032's first Ed25519 test vector (empty message) verifies; one changed bit does not. */
static void ed25519_rfc8032_vector(void **state)
{
	const char *pub = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
	char sig[] = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
		     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

	(void)state;
	assert_int_equal(lr_verify(pub, "", sig), 0);
	assert_int_equal(lr_verify(pub, "x", sig), LR_EINVAL);
	sig[0] = 'f';
	assert_int_equal(lr_verify(pub, "", sig), LR_EINVAL);
	assert_int_equal(lr_verify("zz", "", sig), LR_EINVAL);
}

/* A key made, loaded, used; never replaced; refused once others can read it. */
static void signing_key_life(void **state)
{
	char dir[] = "/tmp/labrun-key-XXXXXX", path[64], sig[LR_SIG_HEX], fpr[LR_SHA256_HEX];
	struct lr_signer *s = NULL;
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/k/signing-key.pem", dir);
	assert_int_equal(lr_signer_load(path, &s), 0); /* no key: no signer, no error */
	assert_null(s);
	assert_int_equal(lr_key_generate(path), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(lr_key_generate(path), LR_EREFUSED);
	assert_int_equal(lr_signer_load(path, &s), 0);
	assert_non_null(s);
	assert_int_equal(lr_key_fingerprint(lr_signer_public(s), fpr), 0);
	assert_string_equal(fpr, lr_signer_fingerprint(s));
	assert_int_equal(lr_sign(s, "entry digest", sig), 0);
	assert_int_equal(strlen(sig), 128);
	assert_int_equal(lr_verify(lr_signer_public(s), "entry digest", sig), 0);
	assert_int_equal(lr_verify(lr_signer_public(s), "entry digesT", sig), LR_EINVAL);
	lr_signer_free(s);
	s = NULL;
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(lr_signer_load(path, &s), LR_EREFUSED);
	assert_null(s);
	unlink(path);
	snprintf(path, sizeof path, "%s/k", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(safe_member_names),
		cmocka_unit_test(ledger_entry_digest),
		cmocka_unit_test(ed25519_rfc8032_vector),
		cmocka_unit_test(signing_key_life),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
