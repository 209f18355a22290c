/* The user's trusted keys and known signed stores: files of the user's configuration, never of a store. */
#include "config.h"
#include "base/system.h"

#include <libgen.h>
#include <sys/file.h>

#include "base/error.h"
#include "base/list.h"
#include "base/trust.h"
#include "base/walk.h"

#define LR_TRUST_FILE_MAX ((size_t)1 << 20) /* a trusted-keys or signed-stores file: 1 MiB */

int lr_config_path(const char *name, char **path)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg)
		n = asprintf(path, "%s/labrun/%s", xdg, name);
	else if (home && *home)
		n = asprintf(path, "%s/.config/labrun/%s", home, name);
	else
		return lr_error_set(LR_EINVAL,
				    "cannot find labrun's configuration: neither XDG_CONFIG_HOME nor HOME is set");
	if (n < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

static int is_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static int add_key(struct lr_trust *t, const char *principal, const char *pub, const char *fpr, const char *origin)
{
	struct lr_trusted_key *k;
	int rc;

	if ((rc = LR_ALLOC_GROW(t->keys, t->nkeys + 1, t->capkeys)))
		return rc;
	k = &t->keys[t->nkeys];
	memset(k, 0, sizeof *k);
	snprintf(k->principal, sizeof k->principal, "%s", principal);
	if (pub) {
		snprintf(k->public_key, sizeof k->public_key, "%s", pub);
		if ((rc = lr_key_fingerprint(pub, k->fingerprint)))
			return rc;
	} else {
		snprintf(k->fingerprint, sizeof k->fingerprint, "%s", fpr);
	}
	k->origin = origin;
	t->nkeys++;
	return 0;
}

static const char *keep_origin(struct lr_trust *t, const char *path)
{
	char **v = realloc(t->origins, (t->norigins + 1) * sizeof *v);

	if (!v)
		return NULL;
	t->origins = v;
	if (!(v[t->norigins] = strdup(path)))
		return NULL;
	return v[t->norigins++];
}

/* Refuse line 'lineno' of the trusted-keys file 'path', saying why. */
static int bad_line(const char *path, long lineno, const char *why)
{
	lr_error_set(LR_EDATA, "invalid trusted key at %s:%ld: %s", path, lineno, why);
	lr_error_hint("'labrun key trust FILE' adds a key in this form; lines starting with # are comments");
	return LR_EDATA;
}

/* One line of a trusted-keys file: PRINCIPAL TYPE KEY and nothing after; 0 for a blank or comment line. */
static int parse_key_line(struct lr_trust *t, char *line, const char *path, long lineno, const char *origin)
{
	char *principal, *type, *key, *save = NULL;
	int rc;

	line[strcspn(line, "\r\n")] = 0;
	principal = strtok_r(line, " \t", &save);
	if (!principal || *principal == '#')
		return 0;
	type = strtok_r(NULL, " \t", &save);
	key = type ? strtok_r(NULL, " \t", &save) : NULL;
	if (!key || strlen(principal) >= LR_PRINCIPAL_MAX || !is_hex64(key) ||
	    (strcmp(type, "ed25519") && strcmp(type, "sha256")))
		return bad_line(path, lineno,
				"expected 'PRINCIPAL ed25519 PUBLIC-KEY-HEX' or 'PRINCIPAL sha256 FINGERPRINT'");
	if (strtok_r(NULL, " \t", &save)) /* a key with more after it is not the line someone meant */
		return bad_line(path, lineno, "text after the key (nothing may follow it, not even a comment)");
	if (!strcmp(type, "sha256"))
		return add_key(t, principal, NULL, key, origin);
	if ((rc = lr_key_check(key)))
		lr_error_wrap("refused trusted key at %s:%ld", path, lineno);
	return rc ? rc : add_key(t, principal, key, NULL, origin);
}

/* Why others than the user (or root) can write 'sb', or NULL. */
static const char *writable_by_others(const struct stat *sb)
{
	if (sb->st_uid != geteuid() && sb->st_uid != 0)
		return "belongs to another user";
	return sb->st_mode & 022 ? "can be written by others" : NULL;
}

/*
 * A trust file ('f', opened from 'path') is used only when no one but its
 * owner, the user or root, can write it or its directory: as ssh does with
 * authorized_keys, since whoever can write it chooses the keys trusted.
 */
static int check_writers(const char *path, FILE *f)
{
	struct stat sb;
	const char *why, *what = path;
	char *dir = strdup(path);
	int rc = 0;

	if (!dir)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (fstat(fileno(f), &sb) != 0)
		rc = lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	else if (!(why = writable_by_others(&sb)) && (what = dirname(dir)) && stat(what, &sb) == 0)
		why = writable_by_others(&sb);
	if (!rc && why) {
		lr_error_set(LR_EREFUSED,
			     "trust file '%s' is not used: %s%s %s (owner uid %ld, mode %03o), so another could "
			     "choose the keys and stores you trust",
			     path, what == path ? "it" : "its directory ", what == path ? "" : what, why,
			     (long)sb.st_uid, (unsigned)(sb.st_mode & 0777));
		lr_error_hint("chmod go-w '%s' (and own it yourself), as ssh asks of authorized_keys", what);
		rc = LR_EREFUSED;
	}
	free(dir);
	return rc;
}

/* A trusted-keys file; 'config': the user's own, where a file that is not there holds no key. */
static int read_keys(struct lr_trust *t, const char *path, int config)
{
	const char *origin = keep_origin(t, path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	FILE *f;
	int rc = 0;

	if (!origin)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_fopen_input("trusted keys", path, LR_TRUST_FILE_MAX, &f)))
		return rc == LR_ENOTFOUND && config ? 0 : rc;
	if (config)
		rc = check_writers(path, f);
	while (!rc && (len = getline(&line, &cap, f)) > 0) {
		lineno++;
		/* a NUL would end the line early for the parser: what follows it would go unread */
		rc = memchr(line, 0, (size_t)len) ? bad_line(path, lineno, "it holds a NUL byte")
						  : parse_key_line(t, line, path, lineno, origin);
	}
	if (!rc && ferror(f))
		rc = lr_error_set(LR_EIO, "cannot read trusted keys '%s'", path);
	free(line);
	fclose(f);
	return rc;
}

static int parse_store_line(struct lr_trust *t, char *line)
{
	char *id, *seq, *keys, *path, *save = NULL, *end;
	struct lr_known_store *s;
	int rc;

	line[strcspn(line, "\r\n")] = 0;
	id = strtok_r(line, " ", &save);
	if (!id || *id == '#')
		return 0;
	seq = strtok_r(NULL, " ", &save);
	keys = seq ? strtok_r(NULL, " ", &save) : NULL;
	path = keys ? save : NULL; /* the rest of the line: a path may hold blanks */
	if (!path || !*path || strlen(id) != 32 || strspn(id, "0123456789abcdef") != 32)
		return lr_error_set(LR_EDATA, "invalid line in the signed-stores file: '%s'", id);
	if ((rc = LR_ALLOC_GROW(t->stores, t->nstores + 1, t->capstores)))
		return rc;
	s = &t->stores[t->nstores];
	memset(s, 0, sizeof *s);
	memcpy(s->id, id, 33);
	s->from_seq = strtoll(seq, &end, 10);
	if (*end || s->from_seq < 1)
		return lr_error_set(LR_EDATA, "invalid sequence '%s' in the signed-stores file", seq);
	if (!(s->keys = strdup(keys)) || !(s->path = strdup(path))) {
		free(s->keys);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	t->nstores++;
	return 0;
}

static int read_stores(struct lr_trust *t, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (!rc && getline(&line, &cap, f) > 0)
		rc = parse_store_line(t, line);
	free(line);
	return rc;
}

int lr_trust_load(struct lr_trust *t)
{
	const char *env = getenv("LABRUN_TRUSTED_KEYS");
	struct lr_signer *own = NULL;
	char *keypath = NULL;
	FILE *f;
	int rc;

	memset(t, 0, sizeof *t);
	if (env && *env)
		t->keys_path = strdup(env);
	else if ((rc = lr_config_path("trusted-keys", &t->keys_path)))
		return rc;
	if (!t->keys_path)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_config_path("signed-stores", &t->stores_path)) || (rc = read_keys(t, t->keys_path, 1)))
		return rc;
	if (!(rc = lr_fopen_input("signed stores", t->stores_path, LR_TRUST_FILE_MAX, &f))) {
		if (!(rc = check_writers(t->stores_path, f)))
			rc = read_stores(t, f);
		fclose(f);
	}
	if (rc && rc != LR_ENOTFOUND)
		return rc;
	rc = 0;
	/* the user's own signing key: trusted as the file that holds it is the user's */
	if (!lr_key_path(&keypath) && !lr_signer_load(keypath, &own) && own &&
	    !lr_trust_find(t, lr_signer_fingerprint(own)))
		rc = add_key(t, "(your signing key)", lr_signer_public(own), NULL, keep_origin(t, keypath));
	lr_signer_free(own);
	free(keypath);
	if (!rc)
		lr_error_clear();
	return rc;
}

void lr_trust_release(struct lr_trust *t)
{
	size_t i;

	for (i = 0; i < t->nstores; i++) {
		free(t->stores[i].keys);
		free(t->stores[i].path);
	}
	for (i = 0; i < t->norigins; i++)
		free(t->origins[i]);
	free(t->origins);
	free(t->stores);
	free(t->keys);
	free(t->keys_path);
	free(t->stores_path);
	memset(t, 0, sizeof *t);
}

int lr_trust_add_file(struct lr_trust *t, const char *path)
{
	char pub[LR_PUBKEY_HEX];
	const char *origin;
	int rc;

	/* an Ed25519 public key in PEM (what 'labrun key export' and openssl write) */
	if (!(rc = lr_key_public_read(path, pub))) {
		if (!(origin = keep_origin(t, path)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		return add_key(t, path, pub, NULL, origin);
	}
	if (rc == LR_EREFUSED) /* an Ed25519 key, but one labrun refuses (lr_key_check) */
		return rc;
	lr_error_clear();
	return read_keys(t, path, 0);
}

const struct lr_trusted_key *lr_trust_find(const struct lr_trust *t, const char *fpr)
{
	size_t i;

	for (i = 0; fpr && i < t->nkeys; i++)
		if (!strcmp(t->keys[i].fingerprint, fpr))
			return &t->keys[i];
	return NULL;
}

const struct lr_known_store *lr_trust_store(const struct lr_trust *t, const char *id, const char *path, int *by_path)
{
	size_t i;

	*by_path = 0;
	for (i = 0; id && i < t->nstores; i++)
		if (!strcmp(t->stores[i].id, id))
			return &t->stores[i];
	for (i = t->nstores; path && i > 0; i--)
		if (!strcmp(t->stores[i - 1].path, path)) {
			*by_path = 1;
			return &t->stores[i - 1];
		}
	return NULL;
}

/*
 * Rewrite the configuration file 'path' under an exclusive lock on
 * 'path.lock': 'edit' reads the old file (NULL when there is none) and
 * writes the new one to 'out'. The new file replaces the old by rename.
 */
static int rewrite_config(const char *path, int (*edit)(void *arg, FILE *old, FILE *out), void *arg)
{
	char *lock = NULL, *tmp = NULL;
	FILE *old = NULL, *out = NULL;
	int lfd = -1, fd = -1, rc;

	if ((rc = lr_mkdir_parents(path, 0700)))
		return rc;
	if (asprintf(&lock, "%s.lock", path) < 0 || asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		free(lock);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if ((lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 || flock(lfd, LOCK_EX) != 0) {
		rc = lr_error_set(LR_EIO, "cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	if ((rc = lr_fopen_input("trust file", path, LR_TRUST_FILE_MAX, &old)) && rc != LR_ENOTFOUND)
		goto out;
	rc = 0;
	if (old && (rc = check_writers(path, old)))
		goto out;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 || !(out = fdopen(fd, "w"))) {
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if ((rc = edit(arg, old, out)))
		goto out;
	if (fflush(out) != 0 || fsync(fileno(out)) != 0 || ferror(out)) {
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path) != 0)
		rc = lr_error_set(LR_EIO, "cannot replace '%s': %s", path, strerror(errno));
out:
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	if (old)
		fclose(old);
	if (lfd >= 0)
		close(lfd); /* releases the lock */
	free(lock);
	free(tmp);
	return rc;
}

struct store_edit {
	const char *id, *path, *fpr;
	int64_t seq;
};

static int edit_stores(void *arg, FILE *old, FILE *out)
{
	struct store_edit *e = arg;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int found = 0;

	if (!old)
		fputs("# labrun: the stores you sign, and from which ledger entry on (STORE-ID FROM-SEQ KEYS PATH).\n"
		      "# 'labrun audit' fails when one of them holds an unsigned or untrusted entry from then on.\n",
		      out);
	while (old && (len = getline(&line, &cap, old)) > 0) {
		size_t idlen = strcspn(line, " ");
		char *keys, *rest;

		if (idlen == 32 && !strncmp(line, e->id, 32) && (keys = strchr(line + 33, ' ')) &&
		    (rest = strchr(keys + 1, ' '))) {
			found = 1;
			*rest = 0;
			if (strstr(keys + 1, e->fpr)) /* the key is listed already */
				fprintf(out, "%s %s", line, rest + 1);
			else
				fprintf(out, "%s,%s %s", line, e->fpr, rest + 1);
			continue;
		}
		fputs(line, out);
		if (line[len - 1] != '\n')
			fputc('\n', out);
	}
	free(line);
	if (!found)
		fprintf(out, "%s %" PRId64 " %s %s\n", e->id, e->seq, e->fpr, e->path);
	return 0;
}

int lr_trust_remember_store(const char *id, const char *path, int64_t seq, const char *fpr)
{
	struct store_edit e = { id, path, fpr, seq };
	char *file = NULL;
	int rc;

	if ((rc = lr_config_path("signed-stores", &file)))
		return rc;
	rc = rewrite_config(file, edit_stores, &e);
	free(file);
	return rc;
}

struct key_edit {
	const char *principal, *pub, *fpr;
	char removed[LR_SHA256_HEX];
	int nremoved;
};

/* The fingerprint a trusted-keys line names, or "" for a comment or blank line. */
static void line_fingerprint(const char *line, char fpr[LR_SHA256_HEX])
{
	char type[16], key[80];

	fpr[0] = 0;
	if (line[0] == '#' || sscanf(line, "%*s %15s %79s", type, key) != 2 || !is_hex64(key))
		return;
	if (!strcmp(type, "sha256"))
		snprintf(fpr, LR_SHA256_HEX, "%s", key);
	else if (!strcmp(type, "ed25519") && lr_key_fingerprint(key, fpr))
		fpr[0] = 0;
}

static int edit_keys(void *arg, FILE *old, FILE *out)
{
	struct key_edit *e = arg;
	char *line = NULL, fpr[LR_SHA256_HEX];
	size_t cap = 0;
	ssize_t len;

	if (!old)
		fputs("# labrun: the keys you trust (PRINCIPAL ed25519 PUBLIC-KEY | PRINCIPAL sha256 FINGERPRINT).\n",
		      out);
	while (old && (len = getline(&line, &cap, old)) > 0) {
		line_fingerprint(line, fpr);
		if (fpr[0] && !strncmp(fpr, e->fpr, strlen(e->fpr))) {
			memcpy(e->removed, fpr, sizeof fpr);
			e->nremoved++;
			continue;
		}
		fputs(line, out);
		if (line[len - 1] != '\n')
			fputc('\n', out);
	}
	free(line);
	if (e->principal)
		fprintf(out, "%s %s %s\n", e->principal, e->pub ? "ed25519" : "sha256", e->pub ? e->pub : e->fpr);
	else if (e->nremoved != 1)
		return e->nremoved ? lr_error_set(LR_EINVAL, "'%s' names %d trusted keys: give more of the fingerprint",
						  e->fpr, e->nremoved)
				   : lr_error_set(LR_ENOTFOUND, "no trusted key has the fingerprint '%s'", e->fpr);
	return 0;
}

int lr_trust_keys_add(const char *path, const char *principal, const char *public_key, const char *fpr)
{
	struct key_edit e = { principal, public_key, fpr, "", 0 };
	char own[LR_SHA256_HEX];
	int rc;

	if (public_key) {
		if ((rc = lr_key_check(public_key)) || (rc = lr_key_fingerprint(public_key, own)))
			return rc;
		e.fpr = own;
	}
	if (!*principal || strlen(principal) >= LR_PRINCIPAL_MAX || strpbrk(principal, " \t\r\n#"))
		return lr_error_set(LR_EINVAL, "invalid principal '%s': one word of at most %d characters, without '#'",
				    principal, LR_PRINCIPAL_MAX - 1);
	return rewrite_config(path, edit_keys, &e);
}

int lr_trust_keys_remove(const char *path, const char *fpr, char removed[LR_SHA256_HEX])
{
	struct key_edit e = { NULL, NULL, fpr, "", 0 };
	int rc;

	if (strlen(fpr) < 8 || strlen(fpr) > 64 || strspn(fpr, "0123456789abcdef") != strlen(fpr))
		return lr_error_set(LR_EINVAL, "invalid fingerprint '%s': 8 to 64 lowercase hex digits", fpr);
	if (!(rc = rewrite_config(path, edit_keys, &e)))
		memcpy(removed, e.removed, LR_SHA256_HEX);
	return rc;
}
