/* DSSE v1 envelopes: PAE, Ed25519 signatures, key ids, base64 (OpenSSL's EVP encoder). */
#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include <openssl/evp.h>

#include "base/dsse.h"
#include "base/error.h"
#include "base/jsonscan.h"
#include "base/trust.h"

int lr_dsse_keyid(const char *public_hex, char keyid[LR_SHA256_HEX])
{
	char json[160];

	snprintf(json, sizeof json, "{\"keytype\":\"ed25519\",\"keyval\":{\"public\":\"%s\"},\"scheme\":\"ed25519\"}",
		 public_hex);
	return lr_sha256_buf(json, strlen(json), keyid);
}

int lr_dsse_pae(const char *type, const void *body, size_t len, unsigned char **out, size_t *outlen)
{
	char head[64];
	size_t tlen = strlen(type);
	int n = snprintf(head, sizeof head, "DSSEv1 %zu ", tlen);
	char mid[32];
	int m = snprintf(mid, sizeof mid, " %zu ", len);

	*outlen = (size_t)n + tlen + (size_t)m + len;
	if (!(*out = malloc(*outlen ? *outlen : 1)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	memcpy(*out, head, (size_t)n);
	memcpy(*out + n, type, tlen);
	memcpy(*out + n + tlen, mid, (size_t)m);
	if (len)
		memcpy(*out + n + tlen + m, body, len);
	return 0;
}

int lr_base64_encode(const void *p, size_t len, char **out)
{
	if (len > (size_t)1 << 30)
		return lr_error_set(LR_EINVAL, "cannot encode %zu bytes in base64: too large", len);
	if (!(*out = malloc(4 * ((len + 2) / 3) + 1)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	EVP_EncodeBlock((unsigned char *)*out, p, (int)len);
	return 0;
}

/* The value of base64 digit 'c' (standard alphabet), or -1. */
static int b64_digit(char c)
{
	const char *d = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", c);

	return c && d ? (int)(d - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") : -1;
}

/*
 * Standard base64 only (RFC 4648 section 4): whole groups of four, '='
 * padding at the end alone, the bits past the last byte zero; so one
 * value has one text.
 */
static int b64_strict(const char *text, size_t n)
{
	size_t pad = n && text[n - 1] == '=' ? (n > 1 && text[n - 2] == '=' ? 2 : 1) : 0, i;

	if (n % 4)
		return lr_error_set(LR_EINVAL,
				    "invalid base64: %zu characters, not whole groups of four with '=' padding", n);
	for (i = 0; i < n - pad; i++)
		if (b64_digit(text[i]) < 0)
			return lr_error_set(LR_EINVAL,
					    "invalid base64: '%c' at offset %zu is not of the standard alphabet",
					    isprint((unsigned char)text[i]) ? text[i] : '?', i);
	if (pad && b64_digit(text[n - pad - 1]) & (pad == 1 ? 3 : 15))
		return lr_error_set(LR_EINVAL, "invalid base64: the bits past the last byte are not zero");
	return 0;
}

int lr_base64_decode(const char *text, unsigned char **out, size_t *len)
{
	size_t n = strlen(text), pad;
	int got, rc;

	*out = NULL;
	*len = 0;
	if (n > (size_t)1 << 30)
		return lr_error_set(LR_EINVAL, "invalid base64: too long");
	if ((rc = b64_strict(text, n)))
		return rc;
	pad = n && text[n - 1] == '=' ? (text[n - 2] == '=' ? 2 : 1) : 0;
	if (!(*out = malloc(n / 4 * 3 + 1)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	got = EVP_DecodeBlock(*out, (const unsigned char *)text, (int)n);
	if (got < 0 || (size_t)got < pad) {
		free(*out);
		*out = NULL;
		return lr_error_set(LR_EINVAL, "invalid base64");
	}
	*len = (size_t)got - pad;
	(*out)[*len] = 0;
	return 0;
}

int lr_dsse_sign(const struct lr_signer *s, const char *type, const void *payload, size_t len, json_t **out)
{
	unsigned char *pae = NULL, sig[64];
	char *b64 = NULL, *sig64 = NULL, keyid[LR_SHA256_HEX];
	json_t *sigs = json_array();
	size_t plen;
	int rc;

	*out = NULL;
	if ((rc = lr_base64_encode(payload, len, &b64)))
		goto out;
	if (s) {
		if ((rc = lr_dsse_pae(type, payload, len, &pae, &plen)) || (rc = lr_sign_raw(s, pae, plen, sig)) ||
		    (rc = lr_base64_encode(sig, sizeof sig, &sig64)) ||
		    (rc = lr_dsse_keyid(lr_signer_public(s), keyid)))
			goto out;
		json_array_append_new(sigs, json_pack("{s:s, s:s}", "keyid", keyid, "sig", sig64));
	}
	if (!(*out = json_pack("{s:s, s:s, s:O}", "payload", b64, "payloadType", type, "signatures", sigs)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
out:
	json_decref(sigs);
	free(pae);
	free(b64);
	free(sig64);
	return rc;
}

void lr_dsse_opened_release(struct lr_dsse_opened *o)
{
	free(o->payload);
	memset(o, 0, sizeof *o);
}

/* Whether signature 'sig' verifies PAE bytes with public key 'pub'. */
static int verifies(const char *pub, const unsigned char *pae, size_t plen, const unsigned char *sig, size_t slen)
{
	return !lr_verify_raw(pub, pae, plen, sig, slen);
}

/* The trusted key (given in full, or by fingerprint with its key among pubs) that verifies 'sig', or NULL. */
static const struct lr_trusted_key *trusted_signer(const struct lr_trust *t, const char *const *pubs, size_t npubs,
						   const unsigned char *pae, size_t plen, const unsigned char *sig,
						   size_t slen)
{
	const struct lr_trusted_key *k;
	char fpr[LR_SHA256_HEX];
	size_t i;

	for (i = 0; t && i < t->nkeys; i++)
		if (t->keys[i].public_key[0] && verifies(t->keys[i].public_key, pae, plen, sig, slen))
			return &t->keys[i];
	for (i = 0; t && i < npubs; i++)
		if (!lr_key_fingerprint(pubs[i], fpr) && (k = lr_trust_find(t, fpr)) && !k->public_key[0] &&
		    verifies(pubs[i], pae, plen, sig, slen))
			return k;
	return NULL;
}

/* Whether public key 'pub' (hex) has DSSE keyid 'keyid'. */
static int keyid_is(const char *pub, const char *keyid)
{
	char k[LR_SHA256_HEX];

	return pub[0] && !lr_dsse_keyid(pub, k) && !strcmp(k, keyid);
}

/*
 * Why a signature that no trusted key verifies does not count, into
 * why: 2 when its keyid is a trusted key's (that key signed another
 * payload or type), else 1 (a key not trusted: one the caller carries when
 * it verifies with one, else the keyid the signature claims).
 */
static int refusal(const struct lr_trust *t, const char *const *pubs, size_t npubs, const char *keyid,
		   const unsigned char *pae, size_t plen, const unsigned char *sig, size_t slen, char *why, size_t n)
{
	const struct lr_trusted_key *k = NULL;
	char fpr[LR_SHA256_HEX], own[LR_SHA256_HEX];
	size_t i;

	for (i = 0; t && i < t->nkeys && !k; i++)
		if (keyid_is(t->keys[i].public_key, keyid))
			k = &t->keys[i];
	for (i = 0; t && i < npubs && !k; i++)
		if (!lr_key_fingerprint(pubs[i], fpr) && keyid_is(pubs[i], keyid))
			k = lr_trust_find(t, fpr);
	if (k) {
		snprintf(
			why, n,
			"key id %s, which you trust (%s, fingerprint %s), signed it, but not as it is now: its payload "
			"or payloadType changed after it was signed",
			keyid, k->principal, k->fingerprint);
		return 2;
	}
	for (i = 0; i < npubs; i++)
		if (!lr_key_fingerprint(pubs[i], fpr) && verifies(pubs[i], pae, plen, sig, slen) &&
		    !lr_dsse_keyid(pubs[i], own)) {
			snprintf(why, n, "it is signed by key id %s (fingerprint %s), which you do not trust", own,
				 fpr);
			return 1;
		}
	snprintf(why, n, "it is signed by key id %s, which you do not trust", keyid[0] ? keyid : "(none given)");
	return 1;
}

/* The envelope's shape: at most LR_DSSE_MAX_SIGS signatures, each an object with sig and keyid strings, in base64. */
static int check_signatures(const json_t *sigs)
{
	const json_t *x, *keyid;
	size_t i;
	int rc;

	if (json_array_size(sigs) > LR_DSSE_MAX_SIGS)
		return lr_error_set(LR_EINVAL, "the envelope has %zu signatures: labrun reads at most %d",
				    json_array_size(sigs), LR_DSSE_MAX_SIGS);
	json_array_foreach(sigs, i, x) {
		const char *text = json_string_value(json_object_get(x, "sig"));

		keyid = json_object_get(x, "keyid");
		if (!text || (keyid && !json_is_string(keyid)))
			return lr_error_set(LR_EINVAL,
					    "the envelope's signature %zu is not an object of a \"sig\" string and a "
					    "\"keyid\" string",
					    i + 1);
		if ((rc = b64_strict(text, strlen(text)))) {
			lr_error_wrap("the envelope's signature %zu", i + 1);
			return rc;
		}
	}
	return 0;
}

/* An in-toto payload names each key of each object once: readers that keep the first and the last would differ. */
static int payload_unique(const struct lr_dsse_opened *o)
{
	struct lr_jdoc doc;
	struct lr_jval top, dup;
	const char *why;
	int bad;

	if (strcmp(o->type, LR_INTOTO_PAYLOAD_TYPE) || lr_json_check(&doc, o->payload, o->len, &top, &why, &bad) ||
	    lr_json_unique(&top, &dup))
		return 0;
	return lr_error_set(LR_EINVAL, "the envelope's payload names the key %.*s twice in one object",
			    (int)(dup.n < 80 ? dup.n : 80), dup.p);
}

int lr_dsse_open(const json_t *env, const struct lr_trust *t, const char *const *pubs, size_t npubs,
		 struct lr_dsse_opened *o)
{
	const char *payload = json_string_value(json_object_get(env, "payload"));
	json_t *sigs = json_object_get(env, "signatures"), *x;
	unsigned char *pae = NULL, *sig = NULL;
	char why[sizeof o->refused];
	size_t plen, slen, i;
	int rc, kind, worst = 0;

	memset(o, 0, sizeof *o);
	o->type = json_string_value(json_object_get(env, "payloadType"));
	if (!payload || !o->type || !json_is_array(sigs))
		return lr_error_set(LR_EINVAL, "not a DSSE envelope: it needs payload, payloadType and signatures");
	if ((rc = check_signatures(sigs)))
		return rc;
	if ((rc = lr_base64_decode(payload, (unsigned char **)&o->payload, &o->len))) {
		lr_error_wrap("the envelope's payload");
		return rc;
	}
	if ((rc = payload_unique(o)) || (rc = lr_dsse_pae(o->type, o->payload, o->len, &pae, &plen)))
		return rc;
	o->nsigs = (int)json_array_size(sigs);
	json_array_foreach(sigs, i, x) {
		const struct lr_trusted_key *k;
		const char *keyid = json_string_value(json_object_get(x, "keyid")) ?: "";

		if ((rc = lr_base64_decode(json_string_value(json_object_get(x, "sig")), &sig, &slen)))
			break;
		if ((k = trusted_signer(t, pubs, npubs, pae, plen, sig, slen))) {
			snprintf(o->signer, sizeof o->signer, "%s", k->fingerprint);
			snprintf(o->principal, sizeof o->principal, "%s", k->principal);
		} else if ((kind = refusal(t, pubs, npubs, keyid, pae, plen, sig, slen, why, sizeof why)) > worst) {
			worst = kind; /* the first key not trusted, or the first trusted one that signed else */
			memcpy(o->refused, why, sizeof o->refused);
		}
		free(sig);
		sig = NULL;
		if (k)
			break;
	}
	free(pae);
	if (rc)
		return rc;
	lr_error_clear();
	if (o->signer[0])
		return 0;
	if (!o->nsigs)
		snprintf(o->refused, sizeof o->refused, "it is not signed");
	return lr_error_set(LR_EREFUSED, "%s", o->refused);
}
