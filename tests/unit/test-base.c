#include "config.h"

#include <setjmp.h>
#include <wchar.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/dsse.h"
#include "base/dynlib.h"
#include "base/enumname.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/list.h"
#include "base/model.h"
#include "base/progress.h"
#include "base/safename.h"
#include "base/seal.h"
#include "base/sign.h"
#include "base/table.h"
#include "base/treehash.h"
#include "base/trust.h"
#include "base/walk.h"

/*
 * The tree hash against the definition written out here apart (every leaf's
 * sha256, then pairs level by level, an odd last one going up), at the
 * sizes where it has edges; fed whole, in uneven pieces, on 1 and 3 threads.
 */
static void reference_tree(const unsigned char *d, size_t n, char hex[LR_SHA256_HEX])
{
	unsigned char level[8][LR_SHA256_LEN], pair[2 * LR_SHA256_LEN];
	size_t k = 0, i;

	for (i = 0; i < n || (!n && !k); i += LR_TREE_LEAF, k++)
		assert_int_equal(lr_sha256_raw(d + i, n - i < LR_TREE_LEAF ? n - i : LR_TREE_LEAF, level[k]), 0);
	while (k > 1) {
		size_t up = 0;

		for (i = 0; i < k; i += 2, up++) {
			if (i + 1 == k) {
				memcpy(level[up], level[i], LR_SHA256_LEN);
				continue;
			}
			memcpy(pair, level[i], LR_SHA256_LEN);
			memcpy(pair + LR_SHA256_LEN, level[i + 1], LR_SHA256_LEN);
			assert_int_equal(lr_sha256_raw(pair, sizeof pair, level[up]), 0);
		}
		k = up;
	}
	for (i = 0; i < LR_SHA256_LEN; i++)
		sprintf(hex + 2 * i, "%02x", level[0][i]);
}

static void tree_hash_matches_its_definition(void **state)
{
	static const size_t sizes[] = { 0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2 << 20, 3 << 20, (5 << 20) + 7 };
	size_t cap = (5 << 20) + 7, i;
	unsigned char *d = malloc(cap);
	char want[LR_SHA256_HEX], got[LR_SHA256_HEX], empty[LR_SHA256_HEX];

	(void)state;
	assert_non_null(d);
	for (i = 0; i < cap; i++)
		d[i] = (unsigned char)(i * 2654435761u >> 13);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s];

		reference_tree(d, n, want);
		for (int threads = 1; threads <= 3; threads += 2)
			for (size_t piece = 1000003; piece <= n + 1000003;
			     piece += n + 1) { /* uneven pieces, then whole */
				struct lr_treehash t;

				lr_tree_init(&t, threads);
				for (size_t at = 0; at < n; at += piece)
					assert_int_equal(lr_tree_update(&t, d + at, n - at < piece ? n - at : piece),
							 0);
				assert_int_equal(lr_tree_final(&t, got), 0);
				assert_string_equal(got, want);
			}
	}
	assert_int_equal(lr_sha256_buf("", 0, empty), 0);
	reference_tree(d, 0, want);
	assert_string_equal(want, empty); /* no bytes: the sha256 of nothing */
	assert_int_equal(lr_sha256_buf(d, 1 << 20, empty), 0);
	reference_tree(d, 1 << 20, want);
	assert_string_equal(want, empty); /* one leaf: its sha256 */
	free(d);
}

/* Stored names become safe, reversible member names; ordinary ones stay as they are. */
static void safe_member_names(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "results/out.txt", "results/out.txt" },
		{ "r\xc3\xa9sultats.csv", "r\xc3\xa9sultats.csv" }, /* valid UTF-8 stays */
		{ "../x.txt", "%2E%2E/x.txt" },                     /* climbing out */
		{ "a/../../b", "a/%2E%2E/%2E%2E/b" },
		{ "./a", "%2E/a" },
		{ "a/..", "a/%2E%2E" },
		{ "..a/b..", "..a/b.." },           /* dots inside a name are fine */
		{ "/etc/passwd", "%2Fetc/passwd" }, /* absolute */
		{ "a//b", "a/%2Fb" },               /* an empty component */
		{ "caf\xe9.csv", "caf%E9.csv" },    /* Latin-1, not UTF-8 */
		{ "100%.txt", "100%25.txt" },       /* the escape character itself */
		{ "tab\there", "tab%09here" },
		{ "\xed\xa0\x80", "%ED%A0%80" }, /* a UTF-16 surrogate */
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

/*
 * Signatures made without a private key are refused: by a small-order key
 * (R the identity, s = 0 verifies for the identity key and any message),
 * and one whose s is not below the group order L (the RFC vector's s + L).
 */
static void ed25519_forgeries_refused(void **state)
{
	static const char *const weak[] = {
		"0100000000000000000000000000000000000000000000000000000000000000", /* identity */
		"0000000000000000000000000000000000000000000000000000000000000000", /* order 4 */
		"0000000000000000000000000000000000000000000000000000000000000080", /* order 4 */
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* order 2 */
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", /* order 8 */
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", /* order 8 */
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", /* order 8 */
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", /* order 8 */
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", /* y = p: 0, not canonical */
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", /* y = p + 1 */
	};
	const char *forged = "0100000000000000000000000000000000000000000000000000000000000000"
			     "0000000000000000000000000000000000000000000000000000000000000000";
	const char *s_plus_l = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
			       "4c8c7872aa064e049dbb3013fbf29380d25bf5f0595bbe24655141438e7a101b";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof weak / sizeof weak[0]; i++) {
		assert_int_equal(lr_key_check(weak[i]), LR_EREFUSED);
		assert_int_equal(lr_verify(weak[i], "a ledger head", forged), LR_EINVAL);
	}
	assert_non_null(strstr(lr_error_msg(), "not canonical"));
	assert_int_equal(lr_key_check(weak[0] + 1), LR_EINVAL); /* 63 digits */
	assert_int_equal(lr_key_check("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"), 0);
	assert_int_equal(lr_verify("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "", s_plus_l),
			 LR_EINVAL);
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

/* PAE as DSSE's protocol gives it, and the keyid securesystemslib computes (checked with Python's hashlib). */
static void dsse_pae_and_keyid(void **state)
{
	static const char want[] = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
	unsigned char *pae = NULL;
	char keyid[LR_SHA256_HEX];
	size_t len;

	(void)state;
	assert_int_equal(lr_dsse_pae("http://example.com/HelloWorld", "hello world", 11, &pae, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(pae, want, len);
	free(pae);
	assert_int_equal(lr_dsse_keyid("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", keyid), 0);
	assert_string_equal(keyid, "74c181c7ad8a0855d4b55e44d2ba87aabdddb196832571f15f92fece332e4916");
}

/* Base64 as DSSE writes it (standard, padded), and only that read back: docs/verify.md says standard base64. */
static void base64_standard_only(void **state)
{
	static const char *const refused[] = {
		"-__-",   /* URL-safe */
		"aGk",    /* padding left out */
		"aGl=",   /* "hi" with a stray bit past its last byte */
		"aG==",   /* the same, one byte */
		"a*b=",   /* not base64 */
		"aGk=\n", /* a line break */
		"a=Gk",   /* padding in the middle */
		"aGk==",  /* too much padding */
	};
	unsigned char *raw = NULL;
	char *text = NULL;
	size_t len, i;

	(void)state;
	assert_int_equal(lr_base64_encode("\xfb\xff\xfe", 3, &text), 0);
	assert_string_equal(text, "+//+");
	free(text);
	assert_int_equal(lr_base64_decode("+//+", &raw, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(raw, "\xfb\xff\xfe", 3);
	free(raw);
	assert_int_equal(lr_base64_encode("hi", 2, &text), 0);
	assert_string_equal(text, "aGk=");
	assert_int_equal(lr_base64_decode(text, &raw, &len), 0);
	assert_int_equal(len, 2);
	assert_memory_equal(raw, "hi", 2);
	free(raw);
	free(text);
	assert_int_equal(lr_base64_decode("", &raw, &len), 0);
	assert_int_equal(len, 0);
	free(raw);
	for (i = 0; i < sizeof refused / sizeof *refused; i++) {
		assert_int_equal(lr_base64_decode(refused[i], &raw, &len), LR_EINVAL);
		assert_null(raw);
	}
}

/* A new key in a new directory 'dir' (a mkdtemp template), at 'path'. */
static struct lr_signer *new_signer(char *dir, char *path, size_t n)
{
	struct lr_signer *s = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, n, "%s/key.pem", dir);
	assert_int_equal(lr_key_generate(path), 0);
	assert_int_equal(lr_signer_load(path, &s), 0);
	return s;
}

/* An envelope opens with the key that signed it once that key is trusted, never otherwise. */
static void dsse_envelope_trust(void **state)
{
	char dir[] = "/tmp/labrun-dsse-XXXXXX", path[64], fpr[LR_SHA256_HEX];
	struct lr_signer *s = NULL;
	struct lr_dsse_opened o;
	struct lr_trust t = { 0 }, none = { 0 };
	struct lr_trusted_key k = { "lab", "", "", NULL };
	const char *pub;
	json_t *env = NULL;

	(void)state;
	s = new_signer(dir, path, sizeof path);
	pub = lr_signer_public(s);
	assert_int_equal(lr_dsse_sign(s, "application/vnd.in-toto+json", "{\"a\":1}", 7, &env), 0);
	/* trusted by its full key */
	snprintf(k.public_key, sizeof k.public_key, "%s", pub);
	snprintf(k.fingerprint, sizeof k.fingerprint, "%s", lr_signer_fingerprint(s));
	t.keys = &k;
	t.nkeys = 1;
	assert_int_equal(lr_dsse_open(env, &t, NULL, 0, &o), 0);
	assert_string_equal(o.signer, lr_signer_fingerprint(s));
	assert_int_equal(o.len, 7);
	assert_string_equal(o.payload, "{\"a\":1}");
	lr_dsse_opened_release(&o);
	/* not trusted: the payload is there, the signer is not */
	assert_int_equal(lr_dsse_open(env, &none, &pub, 1, &o), LR_EREFUSED);
	assert_string_equal(o.signer, "");
	lr_dsse_opened_release(&o);
	/* trusted by fingerprint: the key carried beside the envelope is used, as its fingerprint is trusted */
	k.public_key[0] = 0;
	assert_int_equal(lr_dsse_open(env, &t, NULL, 0, &o), LR_EREFUSED);
	lr_dsse_opened_release(&o);
	assert_int_equal(lr_dsse_open(env, &t, &pub, 1, &o), 0);
	lr_dsse_opened_release(&o);
	/* an edited payload no longer verifies */
	snprintf(k.public_key, sizeof k.public_key, "%s", pub);
	json_object_set_new(env, "payload", json_string("eyJhIjoyfQ=="));
	assert_int_equal(lr_dsse_open(env, &t, NULL, 0, &o), LR_EREFUSED);
	assert_string_equal(o.payload, "{\"a\":2}");
	lr_dsse_opened_release(&o);
	assert_int_equal(lr_key_fingerprint(pub, fpr), 0);
	json_decref(env);
	lr_signer_free(s);
	unlink(path);
	rmdir(dir);
}

/* lr_dsse_open of env with 'pubs' carried: its return, and that its message holds 'want'. */
static void opens_as(json_t *env, const struct lr_trust *t, const char *pub, int rc, const char *want)
{
	struct lr_dsse_opened o;

	assert_int_equal(lr_dsse_open(env, t, pub ? &pub : NULL, pub ? 1 : 0, &o), rc);
	if (want && !strstr(lr_error_msg(), want))
		fail_msg("'%s' lacks '%s'", lr_error_msg(), want);
	lr_dsse_opened_release(&o);
}

/*
 * What an envelope must be (docs/verify.md): at most LR_DSSE_MAX_SIGS
 * signatures, standard base64, a payload naming each key once; and why one
 * is refused names the key id: a key not trusted, or a trusted key that
 * signed another payload.
 */
static void dsse_envelope_refused(void **state)
{
	char dir[] = "/tmp/labrun-dsse-XXXXXX", path[64], keyid[LR_SHA256_HEX];
	struct lr_signer *s = NULL;
	struct lr_trust t = { 0 }, none = { 0 };
	struct lr_trusted_key k = { "lab", "", "", NULL };
	json_t *env = NULL, *sigs, *dup = NULL;
	const char *pub;
	int i;

	(void)state;
	s = new_signer(dir, path, sizeof path);
	pub = lr_signer_public(s);
	assert_int_equal(lr_dsse_keyid(pub, keyid), 0);
	snprintf(k.public_key, sizeof k.public_key, "%s", pub);
	snprintf(k.fingerprint, sizeof k.fingerprint, "%s", lr_signer_fingerprint(s));
	t.keys = &k;
	t.nkeys = 1;
	assert_int_equal(lr_dsse_sign(s, LR_INTOTO_PAYLOAD_TYPE, "{\"a\":1}", 7, &env), 0);
	sigs = json_object_get(env, "signatures");
	/* two distinct refusals, each naming the key id */
	opens_as(env, &none, pub, LR_EREFUSED, "which you do not trust");
	opens_as(env, &none, NULL, LR_EREFUSED, keyid);
	json_object_set_new(env, "payload", json_string("eyJhIjoyfQ=="));
	opens_as(env, &t, NULL, LR_EREFUSED, "which you trust (lab");
	opens_as(env, &t, NULL, LR_EREFUSED, keyid);
	opens_as(env, &t, NULL, LR_EREFUSED, "changed after it was signed");
	json_object_set_new(env, "payload", json_string("eyJhIjoxfQ=="));
	/* up to the cap, the good signature last; one more is refused, naming the cap */
	while (json_array_size(sigs) < LR_DSSE_MAX_SIGS)
		json_array_insert_new(sigs, 0, json_pack("{s:s, s:s}", "keyid", "00", "sig", "AAAA"));
	opens_as(env, &t, NULL, 0, NULL);
	json_array_insert_new(sigs, 0, json_pack("{s:s, s:s}", "keyid", "00", "sig", "AAAA"));
	opens_as(env, &t, NULL, LR_EINVAL, "at most 16");
	for (i = 0; i < LR_DSSE_MAX_SIGS; i++)
		json_array_remove(sigs, 0);
	/* URL-safe base64, in the payload or in a signature */
	json_object_set_new(env, "payload", json_string("eyJhIjoxfQ"));
	opens_as(env, &t, NULL, LR_EINVAL, "payload");
	json_object_set_new(env, "payload", json_string("eyJhIjoxfQ=="));
	opens_as(env, &t, NULL, 0, NULL);
	json_array_append_new(sigs, json_pack("{s:s, s:s}", "keyid", "00", "sig", "-__-"));
	opens_as(env, &t, NULL, LR_EINVAL, "signature 2");
	/* a payload naming a key twice, though signed */
	assert_int_equal(lr_dsse_sign(s, LR_INTOTO_PAYLOAD_TYPE, "{\"a\":1,\"a\":2}", 13, &dup), 0);
	opens_as(dup, &t, NULL, LR_EINVAL, "\"a\" twice");
	json_decref(dup);
	json_decref(env);
	lr_signer_free(s);
	unlink(path);
	rmdir(dir);
}

/* The trusted-keys file: lines added, read back, one removed by a prefix; a malformed line is named. */
static void trusted_keys_file(void **state)
{
	char dir[] = "/tmp/labrun-trust-XXXXXX", path[64], removed[LR_SHA256_HEX];
	const char *pub = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
	const char *fpr = "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9";
	const char *other = "00000000000000000000000000000000000000000000000000000000000000ff";
	struct lr_trust t = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/keys", dir);
	assert_int_equal(lr_trust_keys_add(path, "alice@lab", pub, NULL), 0);
	assert_int_equal(lr_trust_keys_add(path, "ci", NULL, other), 0);
	assert_int_equal(lr_trust_keys_add(path, "bad name", NULL, other), LR_EINVAL);
	assert_int_equal(lr_trust_add_file(&t, path), 0);
	assert_int_equal(t.nkeys, 2);
	assert_non_null(lr_trust_find(&t, fpr));
	assert_string_equal(lr_trust_find(&t, fpr)->public_key, pub);
	assert_string_equal(lr_trust_find(&t, other)->principal, "ci");
	assert_string_equal(lr_trust_find(&t, other)->public_key, "");
	lr_trust_release(&t);
	assert_int_equal(lr_trust_keys_remove(path, "21fe31df", removed), 0);
	assert_string_equal(removed, fpr);
	assert_int_equal(lr_trust_keys_remove(path, "21fe31df", removed), LR_ENOTFOUND);
	assert_int_equal(lr_trust_add_file(&t, path), 0);
	assert_int_equal(t.nkeys, 1);
	lr_trust_release(&t);
	assert_non_null(f = fopen(path, "a"));
	fputs("eve ed25519 not-hex\n", f);
	fclose(f);
	assert_int_equal(lr_trust_add_file(&t, path), LR_EDATA); /* a malformed data file, not a usage error */
	assert_non_null(strstr(lr_error_msg(), ":3"));
	lr_trust_release(&t);
	unlink(path);
	snprintf(path, sizeof path, "%s/keys.lock", dir);
	unlink(path);
	rmdir(dir);
}

/* A library loaded on first use: its functions through the table, or an error naming what is missing. */
struct two {
	__typeof__(strlen) *strlen;
	__typeof__(abs) *abs;
};
static void dynlib_loads_or_names_what_is_missing(void **state)
{
	static const struct lr_dynsym syms[] = { { "strlen", offsetof(struct two, strlen) },
						 { "abs", offsetof(struct two, abs) } };
	static const struct lr_dynsym bad[] = { { "strlen", offsetof(struct two, strlen) },
						{ "lr_no_such_function", offsetof(struct two, abs) } };
	struct two t = { 0 };
	struct lr_dynlib libc = { "libc.so.6", "the C library", syms, 2, &t, 0, "" };
	struct lr_dynlib gone = { "liblabrun-absent.so.9", "a test library", syms, 2, &t, 0, "" };
	struct lr_dynlib short_ = { "libc.so.6", "the C library", bad, 2, &t, 0, "" };

	(void)state;
	assert_int_equal(lr_dynlib_load(&libc), 0);
	assert_int_equal(t.strlen("four"), 4);
	assert_int_equal(t.abs(-3), 3);
	assert_int_equal(lr_dynlib_load(&libc), 0); /* once loaded, loaded */
	assert_int_equal(lr_dynlib_load(&gone), LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "cannot load a test library: liblabrun-absent.so.9"));
	assert_non_null(strstr(lr_error_hint_msg(), "install the package that provides liblabrun-absent.so.9"));
	assert_int_equal(lr_dynlib_load(&gone), LR_ESTORE); /* a failure is remembered, and said again */
	assert_non_null(strstr(lr_error_msg(), "liblabrun-absent.so.9"));
	assert_int_equal(lr_dynlib_load(&short_), LR_ESTORE);
	assert_non_null(strstr(lr_error_msg(), "libc.so.6 lacks lr_no_such_function"));
}

/* A table keeps its cells typed, in order; an unfinished row is an error, not a short row. */
static void a_table_keeps_typed_cells(void **state)
{
	static const struct lr_column cols[3] = { { "name", "name", 0 },
						  { "ms", "ms", LR_COL_NUMBER },
						  { "n", "n", LR_COL_NUMBER } };
	struct lr_table t;

	(void)state;
	lr_table_init(&t, cols, 3);
	lr_table_text(&t, "a|b");
	lr_table_real(&t, 0.1, 3);
	lr_table_int(&t, 7);
	lr_table_text(&t, NULL);
	lr_table_none(&t);
	lr_table_int(&t, -1);
	assert_int_equal(lr_table_error(&t), 0);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(lr_table_cell(&t, 0, 0)->text, "a|b");
	assert_true(lr_table_cell(&t, 0, 1)->kind == LR_CELL_REAL && lr_table_cell(&t, 0, 1)->real == 0.1 &&
		    lr_table_cell(&t, 0, 1)->digits == 3);
	assert_true(lr_table_cell(&t, 0, 2)->kind == LR_CELL_INT && lr_table_cell(&t, 0, 2)->i == 7);
	assert_int_equal(lr_table_cell(&t, 1, 0)->kind, LR_CELL_NONE);
	assert_int_equal(lr_table_cell(&t, 1, 1)->kind, LR_CELL_NONE);
	lr_table_text(&t, "short");
	assert_int_equal(lr_table_error(&t), LR_EINVAL);
	lr_table_release(&t);
	assert_int_equal(t.nrows, 0);
	assert_int_equal(lr_table_error(&t), 0);
}

static char *write_temp(const char *bytes, size_t n)
{
	char *path = strdup("/tmp/labrun-lines-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Lines of every length around the reader's buffer, a last line without newline, a NUL kept. */
static void bounded_lines_are_read_whole(void **state)
{
	static const size_t lens[] = { 0, 1, 65534, 65535, 65536, 65537, 200000, 3 };
	size_t total = 0, i, len, n = sizeof lens / sizeof lens[0];
	struct lr_lines l;
	char *bytes, *p, *line;

	(void)state;
	for (i = 0; i < n; i++)
		total += lens[i] + 1;
	p = bytes = malloc(total);
	for (i = 0; i < n; i++) {
		memset(p, 'a' + (int)i, lens[i]);
		p += lens[i];
		if (i + 1 < n)
			*p++ = '\n';
	}
	bytes[lens[0] + 1 + lens[1] + 1 + 1] = '\0'; /* line 3 holds a NUL as its second byte: kept, not cut */
	p = write_temp(bytes, (size_t)(p - bytes));
	assert_int_equal(lr_lines_open(&l, "test", p, 200000, LR_LINES_FILE_MAX), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(lr_lines_next(&l, &line, &len), 1);
		assert_int_equal(l.line, (long long)i + 1);
		assert_int_equal(len, lens[i] + (i + 1 < n));
		assert_int_equal(line[len], '\0');
		if (lens[i] > 1)
			assert_int_equal(line[1], i == 2 ? '\0' : 'a' + (int)i);
		if (lens[i] > 2)
			assert_int_equal(line[lens[i] - 1], 'a' + (int)i);
	}
	assert_int_equal(lr_lines_next(&l, &line, &len), 0);
	lr_lines_close(&l);
	/* one byte less of bound: the 200,000-byte line is refused, at its number */
	assert_int_equal(lr_lines_open(&l, "test", p, 199999, LR_LINES_FILE_MAX), 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(lr_lines_next(&l, &line, &len), 1);
	assert_int_equal(lr_lines_next(&l, &line, &len), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "line 7: the line is longer than"));
	lr_lines_close(&l);
	unlink(p);
	free(p);
	free(bytes);
}

/*
 * A device or a FIFO is refused when opened, never read (/dev/zero streamed 64 MiB, a FIFO blocked
 * for ever); one unterminated line is refused at the bound; a file over its cap is refused whole.
 */
static void an_endless_line_is_refused(void **state)
{
	char fifo[] = "/tmp/labrun-fifo-XXXXXX", *line, *text, *p, *bytes = malloc(((size_t)1 << 20) + 2);
	struct lr_lines l;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(bytes);
	assert_int_equal(lr_lines_open(&l, "responses", "/dev/zero", (size_t)1 << 20, LR_LINES_FILE_MAX), LR_EREFUSED);
	assert_string_equal(lr_error_msg(), "refusing to read responses '/dev/zero': it is not a regular file (a "
					    "directory, FIFO or device)");
	assert_non_null(mkdtemp(fifo));
	assert_int_equal(asprintf(&p, "%s/f", fifo) > 0, 1);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(lr_read_text("definition", p, (size_t)1 << 20, &text, &len), LR_EREFUSED);
	assert_int_equal(lr_open_input("key", p, 10, &fd), LR_EREFUSED);
	assert_int_equal(fd, -1);
	unlink(p);
	free(p);
	rmdir(fifo);
	memset(bytes, 'x', ((size_t)1 << 20) + 2);
	p = write_temp(bytes, ((size_t)1 << 20) + 2);
	assert_int_equal(lr_lines_open(&l, "responses", p, (size_t)1 << 20, LR_LINES_FILE_MAX), 0);
	assert_int_equal(lr_lines_next(&l, &line, &len), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "line 1: the line is longer than 1 MiB"));
	lr_lines_close(&l);
	assert_int_equal(lr_read_text("definition", p, (size_t)1 << 20, &text, &len), LR_EINVAL);
	assert_null(text);
	assert_non_null(strstr(lr_error_msg(), "is 1048578 bytes, more than the 1048576 bytes it may have"));
	unlink(p);
	free(p);
	free(bytes);
	assert_int_equal(lr_read_text("definition", "/nonexistent/x", (size_t)1 << 20, &text, &len), LR_EINVAL);
	assert_string_equal(lr_error_msg(), "cannot read definition '/nonexistent/x': No such file or directory");
	text = write_temp("abc", 3);
	assert_int_equal(lr_read_text("definition", text, 3, &line, &len), 0);
	assert_int_equal(len, 3);
	assert_string_equal(line, "abc");
	free(line);
	unlink(text);
	free(text);
}

/* A buffer starts as "" without memory, and every add keeps it NUL-terminated. */
static void a_buffer_adds_bytes_strings_and_characters(void **state)
{
	struct lr_buf b = LR_BUF_INIT;
	char *s;
	size_t len = 99;

	(void)state;
	assert_string_equal(b.buf, "");
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	lr_buf_add(&b, "ab\0cd", 5);
	lr_buf_addch(&b, 'e');
	lr_buf_adds(&b, "fg");
	lr_buf_add(&b, NULL, 0);
	assert_int_equal(lr_buf_error(&b), 0);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.buf, "ab\0cdefg", 9); /* the NUL added kept, and one after the text */
	lr_buf_setlen(&b, 2);
	assert_string_equal(b.buf, "ab");
	lr_buf_reset(&b);
	assert_string_equal(b.buf, "");
	assert_true(b.cap >= 9); /* kept for the next text */
	lr_buf_adds(&b, "again");
	s = lr_buf_detach(&b, &len);
	assert_string_equal(s, "again");
	assert_int_equal(len, 5);
	assert_string_equal(b.buf, ""); /* detached: empty again, nothing of it left to free */
	assert_int_equal(b.cap, 0);
	free(s);
	s = lr_buf_detach(&b, NULL); /* an empty text is still a string the caller frees */
	assert_string_equal(s, "");
	free(s);
	lr_buf_init(&b, 100);
	assert_true(b.cap >= 101);
	assert_string_equal(b.buf, "");
	lr_buf_release(&b);
	assert_int_equal(b.cap, 0);
	lr_buf_release(&b); /* released twice: harmless */
}

/* lr_buf_addf formats past any room the buffer has: short, then over and over its capacity. */
static void a_buffer_formats_past_its_capacity(void **state)
{
	struct lr_buf b = LR_BUF_INIT;
	char expect[16];
	size_t i;

	(void)state;
	lr_buf_addf(&b, "%s", "");
	assert_string_equal(b.buf, "");
	lr_buf_addf(&b, "%d-%s", 7, "x");
	assert_string_equal(b.buf, "7-x");
	lr_buf_reset(&b);
	for (i = 0; i < 5000; i++)
		lr_buf_addf(&b, "%05zu,", i);
	assert_int_equal(lr_buf_error(&b), 0);
	assert_int_equal(b.len, 5000 * 6);
	for (i = 0; i < 5000; i += 499) {
		snprintf(expect, sizeof expect, "%05zu,", i);
		assert_memory_equal(b.buf + i * 6, expect, 6);
	}
	assert_int_equal(b.buf[b.len], '\0');
	lr_buf_release(&b);
	lr_buf_init(&b, 4); /* one format far longer than the room: done in one go */
	lr_buf_addf(&b, "%s|%0*d", "ab", 100000, 5);
	assert_int_equal(b.len, 100003);
	assert_memory_equal(b.buf, "ab|0000", 7);
	assert_string_equal(b.buf + b.len - 2, "05");
	lr_buf_release(&b);
}

/* A failed add leaves the text as it was, later adds do nothing, and lr_buf_error says so once built. */
static void a_buffer_remembers_a_failure(void **state)
{
	struct lr_buf b = LR_BUF_INIT;
	static const wchar_t unencodable[] = { 0x100, 0 }; /* not in the C locale's character set */

	(void)state;
	lr_buf_adds(&b, "kept");
	lr_error_set(LR_EIO, "the error being reported");
	lr_buf_add(&b, "x", SIZE_MAX - 1); /* more than a size_t holds: refused before any memory */
	assert_string_equal(lr_error_msg(), "the error being reported"); /* untouched until asked */
	lr_buf_adds(&b, " and more");
	lr_buf_addf(&b, "%d", 1);
	lr_buf_addch(&b, '!');
	assert_string_equal(b.buf, "kept");
	assert_int_equal(lr_buf_error(&b), LR_ENOMEM);
	assert_string_equal(lr_error_msg(), "out of memory");
	lr_buf_reset(&b); /* the failure outlives a reset: it is still to be reported */
	assert_int_equal(lr_buf_error(&b), LR_ENOMEM);
	assert_null(lr_buf_detach(&b, NULL));
	assert_int_equal(b.cap, 0); /* released by the detach that failed */
	assert_int_equal(lr_buf_error(&b), 0);
	lr_buf_adds(&b, "abc"); /* text printf cannot produce (vsnprintf fails): refused, the text kept */
	lr_buf_addf(&b, "x%ls", unencodable);
	assert_string_equal(b.buf, "abc");
	assert_int_equal(lr_buf_error(&b), LR_EINVAL);
	lr_buf_release(&b);
	assert_int_equal(lr_buf_error(&b), 0);
}

/* LR_ALLOC_GROW: doubling from 8, straight to a larger need, a bound, and an impossible size refused. */
static void arrays_grow_through_one_macro(void **state)
{
	int64_t *v = NULL;
	size_t n, cap = 0, cap_before;
	char *bounded = NULL;

	(void)state;
	for (n = 0; n < 1000; n++) {
		assert_int_equal(LR_ALLOC_GROW(v, n + 1, cap), 0);
		v[n] = (int64_t)n;
		if (n == 0)
			assert_int_equal(cap, 8);
		if (n == 8)
			assert_int_equal(cap, 16);
	}
	assert_int_equal(cap, 1024);
	assert_int_equal(v[999], 999);
	assert_int_equal(LR_ALLOC_GROW(v, 5000, cap), 0); /* more than double: the need itself */
	assert_int_equal(cap, 5000);
	assert_int_equal(LR_ALLOC_GROW(v, 10, cap), 0); /* enough already: nothing changes */
	assert_int_equal(cap, 5000);
	cap_before = cap;
	assert_int_equal(LR_ALLOC_GROW(v, SIZE_MAX / 4, cap), LR_ENOMEM);
	assert_int_equal(cap, cap_before);
	assert_int_equal(v[999], 999); /* the array as it was */
	free(v);
	cap = 0;
	assert_int_equal(LR_ALLOC_GROW_MAX(bounded, 100, cap, 150), 0);
	assert_int_equal(cap, 100);
	assert_int_equal(LR_ALLOC_GROW_MAX(bounded, 101, cap, 150), 0);
	assert_int_equal(cap, 150); /* doubling stops at the bound */
	assert_int_equal(LR_ALLOC_GROW_MAX(bounded, 151, cap, 150), LR_ENOMEM);
	free(bounded);
}

/* One table each way: every name to its value and back; an unknown name, or none, an error naming it. */
static void enum_names_read_both_ways(void **state)
{
	static const char *const names[] = { "abba", "random" };
	static const struct lr_enum_names orders = LR_ENUM_NAMES("order", names);
	enum lr_status st;
	int v = 7;

	(void)state;
	assert_string_equal(lr_enum_name(&orders, 1), "random");
	assert_string_equal(lr_enum_name(&orders, 2), "?");
	assert_int_equal(lr_enum_parse(&orders, "random", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(lr_enum_parse(&orders, "Random", &v), LR_EINVAL);
	assert_int_equal(v, 1); /* untouched */
	assert_string_equal(lr_error_msg(),
			    "unknown order 'Random' (labrun " PACKAGE_VERSION " knows abba and random)");
	assert_int_equal(lr_enum_parse(&orders, NULL, &v), LR_EINVAL);
	for (int k = LR_RUNNING; k <= LR_ABANDONED; k++) {
		assert_int_equal(lr_status_parse(lr_status_name((enum lr_status)k), &st), 0);
		assert_int_equal(st, k);
	}
	assert_int_equal(lr_status_parse("paused", &st), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "knows running, passed, failed, cancelled and abandoned"));
}

/* A crate's reader opens regular files only: a link, a FIFO or a directory is refused, never opened. */
static void only_regular_files_are_opened(void **state)
{
	char dir[] = "/tmp/labrun-regular-XXXXXX", file[64], link[64], fifo[64], a[LR_SHA256_HEX], b[LR_SHA256_HEX];
	int fd = -1;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/file", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_non_null(f = fopen(file, "w"));
	fputs("evidence\n", f);
	fclose(f);
	assert_int_equal(symlink("file", link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(lr_open_regular(file, &fd), 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lr_sha256_regular(file, a, NULL), 0);
	assert_int_equal(lr_sha256_file(file, b, NULL), 0);
	assert_string_equal(a, b);
	assert_int_equal(lr_open_regular(link, &fd), LR_EREFUSED);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(lr_error_msg(), link));
	assert_int_equal(lr_sha256_regular(link, a, NULL), LR_EREFUSED);
	assert_int_equal(lr_open_regular(fifo, &fd), LR_EREFUSED); /* no wait for a writer */
	assert_int_equal(lr_open_regular(dir, &fd), LR_EREFUSED);
	lr_error_clear();
	unlink(fifo);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

/* What the sink was last shown, and how often. */
static struct {
	struct lr_progress_view v;
	char step[96];
	int shows;
} seen;

static void remember(void *arg, const struct lr_progress_view *v)
{
	(void)arg;
	seen.v = *v;
	snprintf(seen.step, sizeof seen.step, "%s", v->step ? v->step : "(none)");
	seen.shows++;
}

static void a_step_shows_inside_its_meter(void **state)
{
	const struct lr_progress_sink sink = { remember, NULL, 0, 0 }; /* no interval: every update shows */
	struct lr_progress *p;

	(void)state;
	lr_progress_sink_set(&sink);
	lr_progress_step("before", 1, 2); /* no meter: nothing */
	assert_int_equal(seen.shows, 0);
	p = lr_progress_start("pushed", "runs", 3);
	assert_non_null(p);
	lr_progress_update(p, 1);
	assert_string_equal(seen.step, "(none)");
	lr_progress_step("5f3a1b2c...", 6 << 20, 12 << 20);
	assert_string_equal(seen.step, "5f3a1b2c...");
	assert_int_equal(seen.v.step_done, 6 << 20);
	assert_int_equal(seen.v.step_total, 12 << 20);
	assert_int_equal(seen.v.done, 1); /* the meter's own count is kept */
	assert_int_equal(seen.v.total, 3);
	lr_progress_step("", 0, 0); /* the step is over: the next update shows none */
	assert_string_equal(seen.step, "5f3a1b2c...");
	lr_progress_update(p, 2);
	assert_string_equal(seen.step, "(none)");
	lr_progress_step("again", 1, 4);
	lr_progress_stop(&p);
	assert_true(seen.v.final);
	assert_string_equal(seen.step, "(none)"); /* the final line has no step */
	assert_null(p);
	seen.shows = 0;
	lr_progress_step("after", 1, 2);
	assert_int_equal(seen.shows, 0);
	lr_progress_sink_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(safe_member_names),
		cmocka_unit_test(dynlib_loads_or_names_what_is_missing),
		cmocka_unit_test(ledger_entry_digest),
		cmocka_unit_test(tree_hash_matches_its_definition),
		cmocka_unit_test(ed25519_rfc8032_vector),
		cmocka_unit_test(ed25519_forgeries_refused),
		cmocka_unit_test(signing_key_life),
		cmocka_unit_test(dsse_pae_and_keyid),
		cmocka_unit_test(base64_standard_only),
		cmocka_unit_test(dsse_envelope_refused),
		cmocka_unit_test(dsse_envelope_trust),
		cmocka_unit_test(trusted_keys_file),
		cmocka_unit_test(a_table_keeps_typed_cells),
		cmocka_unit_test(bounded_lines_are_read_whole),
		cmocka_unit_test(an_endless_line_is_refused),
		cmocka_unit_test(a_buffer_adds_bytes_strings_and_characters),
		cmocka_unit_test(a_buffer_formats_past_its_capacity),
		cmocka_unit_test(a_buffer_remembers_a_failure),
		cmocka_unit_test(arrays_grow_through_one_macro),
		cmocka_unit_test(enum_names_read_both_ways),
		cmocka_unit_test(only_regular_files_are_opened),
		cmocka_unit_test(a_step_shows_inside_its_meter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
