/* Ed25519 keys, signatures and fingerprints over OpenSSL's EVP interface. */
#include "config.h"
#include "base/system.h"

#include <libgen.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/error.h"
#include "base/sign.h"
#include "base/walk.h"

struct lr_signer {
	EVP_PKEY *key;
	char pub[LR_PUBKEY_HEX];
	char fpr[LR_SHA256_HEX];
};

static void to_hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

static int from_hex(const char *s, unsigned char *p, size_t n)
{
	size_t i;
	unsigned v;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdef", s[2 * i]) ||
		    !strchr("0123456789abcdef", s[2 * i + 1]))
			return -1;
		p[i] = (unsigned char)v;
	}
	return 0;
}

/* The y coordinates (little-endian, sign bit cleared) of Ed25519's 8 points of small order: 1, p-1, 0, two of order 8. */
static const unsigned char small_order[5][32] = {
	{ 1 },
	{ 0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
	{ 0 },
	{ 0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
	  0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05 },
	{ 0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
	  0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a },
};

/* p = 2^255 - 19 and L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
static const unsigned char field_p[32] = { 0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
static const unsigned char group_l[32] = { 0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
					   0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
					   0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10 };

/* Whether the little-endian number 'a' is below 'b' (32 bytes each). */
static int below(const unsigned char *a, const unsigned char *b)
{
	int i;

	for (i = 31; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* Why the raw public key cannot be trusted, or NULL: its y is not below p, or it is a point of small order. */
static const char *weak_key(const unsigned char pub[32])
{
	unsigned char y[32];
	size_t i;

	memcpy(y, pub, 32);
	y[31] &= 0x7f;
	if (!below(y, field_p))
		return "its encoding is not canonical (y is not below 2^255-19)";
	for (i = 0; i < sizeof small_order / sizeof small_order[0]; i++)
		if (!memcmp(y, small_order[i], 32))
			return "it is a point of small order, for which signatures can be forged without a private key";
	return NULL;
}

int lr_key_check(const char *public_hex)
{
	unsigned char raw[32];
	const char *why;

	if (from_hex(public_hex, raw, sizeof raw))
		return lr_error_set(LR_EINVAL, "'%s' is not an Ed25519 public key (64 hex digits)", public_hex);
	if (!(why = weak_key(raw)))
		return 0;
	lr_error_set(LR_EREFUSED, "Ed25519 public key %s is refused: %s", public_hex, why);
	lr_error_hint("no one's key is this: trust the key its owner exports ('labrun key export')");
	return LR_EREFUSED;
}

int lr_key_path(char **path)
{
	const char *env = getenv("LABRUN_KEY"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (env && *env)
		n = asprintf(path, "%s", env);
	else if (xdg && *xdg)
		n = asprintf(path, "%s/labrun/signing-key.pem", xdg);
	else if (home && *home)
		n = asprintf(path, "%s/.config/labrun/signing-key.pem", home);
	else
		return lr_error_set(LR_EINVAL, "cannot place the signing key: neither LABRUN_KEY nor HOME is set");
	if (n < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

int lr_key_generate(const char *path)
{
	EVP_PKEY *key = NULL;
	FILE *f = NULL;
	int fd = -1, rc = lr_mkdir_parents(path, 0700); /* ~/.config/labrun: made 0700 */

	if (!rc && (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		rc = lr_error_set(errno == EEXIST ? LR_EREFUSED : LR_EIO, "cannot create signing key '%s': %s", path,
				  strerror(errno));
		if (errno == EEXIST)
			lr_error_hint(
				"a key is never replaced: runs it signed name it; remove it yourself if you mean to");
	}
	if (!rc && !(key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")))
		rc = lr_error_set(LR_EIO, "cannot generate an Ed25519 key (OpenSSL)");
	if (!rc && (!(f = fdopen(fd, "w")) || !PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL)))
		rc = lr_error_set(LR_EIO, "cannot write signing key '%s'", path);
	if (f) {
		if (fclose(f) != 0 && !rc)
			rc = lr_error_set(LR_EIO, "cannot write signing key '%s': %s", path, strerror(errno));
	} else if (fd >= 0) {
		close(fd);
	}
	if (rc && fd >= 0)
		unlink(path);
	EVP_PKEY_free(key);
	return rc;
}

int lr_key_fingerprint(const char *public_hex, char fpr[LR_SHA256_HEX])
{
	unsigned char raw[32];

	if (from_hex(public_hex, raw, sizeof raw))
		return lr_error_set(LR_EINVAL, "'%s' is not an Ed25519 public key (64 hex digits)", public_hex);
	return lr_sha256_buf(raw, sizeof raw, fpr);
}

int lr_signer_load(const char *path, struct lr_signer **out)
{
	struct lr_signer *s;
	unsigned char raw[32];
	size_t len = sizeof raw;
	struct stat sb, db;
	char *dir;
	FILE *f;
	int rc, fd;

	*out = NULL;
	/* a FIFO named as the key must not hang every writing command */
	if ((rc = lr_open_input("signing key", path, LR_KEY_FILE_MAX, &fd)) == LR_ENOTFOUND)
		return 0;
	if (rc == LR_EREFUSED)
		lr_error_hint("point LABRUN_KEY at the key file itself; 'labrun key init' makes one");
	if (rc)
		return rc;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return lr_error_set(LR_EIO, "cannot read signing key '%s': %s", path, strerror(errno));
	}
	if (sb.st_uid != geteuid()) {
		close(fd);
		lr_error_set(LR_EREFUSED, "signing key '%s' belongs to another user (uid %ld)", path, (long)sb.st_uid);
		lr_error_hint("sign with a key of your own: 'labrun key init' makes one");
		return LR_EREFUSED;
	}
	if (sb.st_mode & 077) {
		close(fd);
		lr_error_set(LR_EREFUSED, "signing key '%s' can be read by others (mode %03o)", path,
			     sb.st_mode & 0777);
		lr_error_hint("chmod 600 '%s'", path);
		return LR_EREFUSED;
	}
	/* a directory others may write in lets them put their own key there */
	if ((dir = strdup(path)) && stat(dirname(dir), &db) == 0 && (db.st_mode & S_IWOTH) && !(db.st_mode & S_ISVTX)) {
		close(fd);
		lr_error_set(LR_EREFUSED, "signing key '%s' is in a directory others can write to (mode %03o)", path,
			     db.st_mode & 0777);
		lr_error_hint("keep the key in a directory only you can write to, e.g. ~/.config/labrun");
		free(dir);
		return LR_EREFUSED;
	}
	free(dir);
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return lr_error_set(LR_EIO, "cannot read signing key '%s': %s", path, strerror(errno));
	}
	if (!(s = calloc(1, sizeof *s))) {
		fclose(f);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	s->key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!s->key || EVP_PKEY_get_base_id(s->key) != EVP_PKEY_ED25519 ||
	    !EVP_PKEY_get_raw_public_key(s->key, raw, &len) || len != sizeof raw) {
		lr_signer_free(s);
		lr_error_set(LR_EINVAL, "'%s' is not an Ed25519 private key in PEM", path);
		lr_error_hint("'labrun key init' makes one (set LABRUN_KEY to use another path)");
		return LR_EINVAL;
	}
	to_hex(raw, sizeof raw, s->pub);
	if ((rc = lr_key_check(s->pub)) || (rc = lr_key_fingerprint(s->pub, s->fpr))) {
		lr_signer_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int lr_key_public_read(const char *path, char pub[LR_PUBKEY_HEX])
{
	unsigned char raw[32];
	size_t len = sizeof raw;
	EVP_PKEY *key = NULL;
	FILE *f;
	int rc;

	if ((rc = lr_fopen_input("key", path, LR_KEY_FILE_MAX, &f)))
		return rc;
	key = PEM_read_PUBKEY(f, NULL, NULL, NULL);
	if (!key && !fseek(f, 0, SEEK_SET))
		key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!key || EVP_PKEY_get_base_id(key) != EVP_PKEY_ED25519 || !EVP_PKEY_get_raw_public_key(key, raw, &len) ||
	    len != sizeof raw) {
		EVP_PKEY_free(key);
		return lr_error_set(LR_EINVAL, "'%s' is not an Ed25519 key in PEM", path);
	}
	EVP_PKEY_free(key);
	to_hex(raw, sizeof raw, pub);
	if ((rc = lr_key_check(pub)))
		lr_error_wrap("'%s'", path);
	return rc;
}

int lr_signer_public_pem(const struct lr_signer *s, char **pem)
{
	size_t len = 0;
	FILE *f = open_memstream(pem, &len);
	int ok;

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	ok = PEM_write_PUBKEY(f, s->key);
	if (fclose(f) != 0 || !ok) {
		free(*pem);
		*pem = NULL;
		return lr_error_set(LR_EIO, "cannot write the public key in PEM (OpenSSL)");
	}
	return 0;
}

void lr_signer_free(struct lr_signer *s)
{
	if (s) {
		EVP_PKEY_free(s->key);
		free(s);
	}
}

const char *lr_signer_public(const struct lr_signer *s)
{
	return s->pub;
}

const char *lr_signer_fingerprint(const struct lr_signer *s)
{
	return s->fpr;
}

int lr_sign_raw(const struct lr_signer *s, const void *msg, size_t len, unsigned char sig[64])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t siglen = 64;
	int ok;

	ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, s->key) == 1 &&
	     EVP_DigestSign(ctx, sig, &siglen, msg, len) == 1 && siglen == 64;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : lr_error_set(LR_EIO, "cannot sign with the Ed25519 key (OpenSSL)");
}

int lr_verify_raw(const char *public_hex, const void *msg, size_t len, const unsigned char *sig, size_t siglen)
{
	unsigned char pub[32];
	EVP_PKEY *key = NULL;
	EVP_MD_CTX *ctx = NULL;
	int ok;

	/* a small-order key or a non-canonical s (not below L) lets a signature be made without the private key */
	ok = siglen == 64 && !from_hex(public_hex, pub, sizeof pub) && !weak_key(pub) && below(sig + 32, group_l) &&
	     (key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, sizeof pub)) && (ctx = EVP_MD_CTX_new()) &&
	     EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 && EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	return ok ? 0 : LR_EINVAL;
}

int lr_sign(const struct lr_signer *s, const char *msg, char sig[LR_SIG_HEX])
{
	unsigned char raw[64];
	int rc;

	if ((rc = lr_sign_raw(s, msg, strlen(msg), raw)))
		return rc;
	to_hex(raw, sizeof raw, sig);
	return 0;
}

int lr_verify(const char *public_hex, const char *msg, const char *sig_hex)
{
	unsigned char sig[64];

	if (from_hex(sig_hex, sig, sizeof sig))
		return LR_EINVAL;
	return lr_verify_raw(public_hex, msg, strlen(msg), sig, sizeof sig);
}
