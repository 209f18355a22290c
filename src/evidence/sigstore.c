/* Sigstore bundles (v0.3, a public-key hint, no transparency log) of the runs' DSSE envelopes. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/walk.h"
#include "evidence/crate-file.h"
#include "evidence/sigstore.h"

/* The JSON object in dir/rel, a regular file naming each key once, into *out. */
static int load(const char *dir, const char *rel, json_t **out)
{
	char full[PATH_MAX * 2];
	json_error_t err;
	int fd, rc;

	snprintf(full, sizeof full, "%s/%s", dir, rel);
	if ((rc = lr_open_regular(full, &fd)))
		return rc;
	*out = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
	close(fd);
	if (!*out)
		return lr_error_set(LR_EINVAL, "is not JSON: %s (line %d)", err.text, err.line);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return lr_error_set(LR_EINVAL, "is not a JSON object");
	}
	return 0;
}

/* The DSSE key id of the envelope's one signature; NULL when it has not exactly one, with a key id. */
static const char *one_keyid(const json_t *env)
{
	const json_t *sigs = json_object_get(env, "signatures");

	return json_array_size(sigs) == 1 ? json_string_value(json_object_get(json_array_get(sigs, 0), "keyid")) : NULL;
}

/* The bundle of envelope 'env' (a reference is taken), or NULL when it cannot have one. */
static json_t *bundle_of(json_t *env)
{
	const char *keyid = one_keyid(env);

	if (!keyid)
		return NULL;
	return json_pack("{s:O, s:s, s:{s:{s:s}, s:[]}}", "dsseEnvelope", env, "mediaType", LR_SIGSTORE_MEDIA_TYPE,
			 "verificationMaterial", "publicKey", "hint", keyid, "tlogEntries");
}

int lr_sigstore_write(const char *dir, const char *env_rel, char *out, size_t n)
{
	const char *slash = strrchr(env_rel, '/');
	json_t *env = NULL, *b = NULL;
	char full[PATH_MAX * 2], *text = NULL;
	FILE *f;
	int rc;

	out[0] = 0;
	if ((rc = load(dir, env_rel, &env))) {
		lr_error_wrap("cannot read back '%s/%s'", dir, env_rel);
		return rc;
	}
	if (!(b = bundle_of(env)))
		goto out; /* unsigned: no key to name, and a bundle holds exactly one signature */
	snprintf(out, n, "%.*s%s", slash ? (int)(slash - env_rel + 1) : 0, env_rel, LR_SIGSTORE_FILE);
	snprintf(full, sizeof full, "%s/%s", dir, out);
	if (!(text = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if ((f = lr_crate_create_file(full, &rc))) {
		if (fputs(text, f) == EOF || fputc('\n', f) == EOF)
			rc = lr_error_set(LR_EIO, "cannot write '%s'", full);
		rc = lr_crate_close_file(f, full, rc);
	}
out:
	free(text);
	json_decref(b);
	json_decref(env);
	return rc;
}

int lr_sigstore_check(const char *dir, const char *bundle_rel, const char *env_rel)
{
	json_t *b = NULL, *env = NULL, *want = NULL;
	const char *mt;
	int rc;

	if ((rc = load(dir, bundle_rel, &b)))
		return rc;
	if (!(mt = json_string_value(json_object_get(b, "mediaType"))) || strcmp(mt, LR_SIGSTORE_MEDIA_TYPE))
		rc = lr_error_set(LR_EINVAL, "is not a Sigstore bundle v0.3: its mediaType is not \"%s\"",
				  LR_SIGSTORE_MEDIA_TYPE);
	else if ((rc = load(dir, env_rel, &env)))
		lr_error_wrap("cannot be checked against %s", env_rel);
	else if (!(want = bundle_of(env)))
		rc = lr_error_set(LR_EINVAL, "bundles %s, which has not one signature with a key id", env_rel);
	else if (!json_equal(json_object_get(b, "dsseEnvelope"), env))
		rc = lr_error_set(LR_EINVAL, "holds an envelope other than %s's: changed after it was written",
				  env_rel);
	else if (!json_equal(json_object_get(b, "verificationMaterial"), json_object_get(want, "verificationMaterial")))
		rc = lr_error_set(LR_EINVAL,
				  "has verificationMaterial other than the public-key hint %s (the key id %s names) "
				  "and no transparency-log entry",
				  one_keyid(env), env_rel);
	else if (!json_equal(b, want))
		rc = lr_error_set(LR_EINVAL, "has fields other than dsseEnvelope, mediaType and verificationMaterial");
	json_decref(want);
	json_decref(env);
	json_decref(b);
	return rc ? LR_EINVAL : 0;
}
