/* DSSE v1 envelopes: PAE, Ed25519 signatures, key ids, base64 (OpenSSL's EVP encoder). */
#include "config.h"
#include "base/system.h"

#include <openssl/evp.h>

#include "base/dsse.h"
#include "base/error.h"
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

int lr_base64_decode(const char *text, unsigned char **out, size_t *len)
{
	size_t n = strlen(text), i, pad = 0;
	char *std;
	int got;

	*out = NULL;
	*len = 0;
	if (n > (size_t)1 << 30 || !(std = malloc(n + 4)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		std[i] = text[i] == '-' ? '+' : text[i] == '_' ? '/' : text[i];
	while (i % 4) /* URL-safe base64 may leave the padding out */
		std[i++] = '=';
	std[i] = 0;
	if (i && std[i - 1] == '=')
		pad = i > 1 && std[i - 2] == '=' ? 2 : 1;
	if (!(*out = malloc(i / 4 * 3 + 1))) {
		free(std);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	got = EVP_DecodeBlock(*out, (unsigned char *)std, (int)i);
	free(std);
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

int lr_dsse_open(const json_t *env, const struct lr_trust *t, const char *const *pubs, size_t npubs,
		 struct lr_dsse_opened *o)
{
	const char *payload = json_string_value(json_object_get(env, "payload"));
	json_t *sigs = json_object_get(env, "signatures"), *x;
	unsigned char *pae = NULL, *sig = NULL;
	size_t plen, slen, i;
	int rc;

	memset(o, 0, sizeof *o);
	o->type = json_string_value(json_object_get(env, "payloadType"));
	if (!payload || !o->type || !json_is_array(sigs))
		return lr_error_set(LR_EINVAL, "not a DSSE envelope: it needs payload, payloadType and signatures");
	if ((rc = lr_base64_decode(payload, (unsigned char **)&o->payload, &o->len))) {
		lr_error_wrap("the envelope's payload");
		return rc;
	}
	if ((rc = lr_dsse_pae(o->type, o->payload, o->len, &pae, &plen)))
		return rc;
	o->nsigs = (int)json_array_size(sigs);
	json_array_foreach(sigs, i, x) {
		const struct lr_trusted_key *k;
		const char *text = json_string_value(json_object_get(x, "sig"));

		if (!text || lr_base64_decode(text, &sig, &slen))
			continue;
		k = trusted_signer(t, pubs, npubs, pae, plen, sig, slen);
		free(sig);
		sig = NULL;
		if (k) {
			snprintf(o->signer, sizeof o->signer, "%s", k->fingerprint);
			snprintf(o->principal, sizeof o->principal, "%s", k->principal);
			break;
		}
	}
	free(pae);
	lr_error_clear();
	if (o->signer[0])
		return 0;
	return lr_error_set(LR_EREFUSED, o->nsigs ? "no signature verifies with a key you trust" : "it is not signed");
}
