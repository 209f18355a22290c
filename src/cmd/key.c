#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sign.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/options.h"

static const char usage[] = "usage: labrun key init\n"
			    "       labrun key show\n"
			    "       labrun key export\n"
			    "       labrun key trust FILE|FINGERPRINT [PRINCIPAL]\n"
			    "       labrun key untrust FINGERPRINT\n"
			    "       labrun key list\n"
			    "\n"
			    "init makes an Ed25519 signing key at $LABRUN_KEY, else\n"
			    "$XDG_CONFIG_HOME/labrun/signing-key.pem, else ~/.config/labrun/signing-key.pem (mode\n"
			    "0600; an existing key is never replaced), and adds it to your trusted keys. While it\n"
			    "exists, every ledger entry labrun appends (each run made final or amended) is signed,\n"
			    "its public key is stored once, and your configuration remembers the store as signed\n"
			    "from that entry on. show prints the key's path, public key and fingerprint; export\n"
			    "prints its public key in PEM, for others to trust and for openssl.\n"
			    "\n"
			    "Trusted keys live in your configuration, never in a store: $LABRUN_TRUSTED_KEYS, else\n"
			    "$XDG_CONFIG_HOME/labrun/trusted-keys, else ~/.config/labrun/trusted-keys, one key a line\n"
			    "('PRINCIPAL ed25519 PUBLIC-KEY-HEX' or 'PRINCIPAL sha256 FINGERPRINT'). trust adds the\n"
			    "key of FILE (a PEM public key, or a file of such lines) or a fingerprint; untrust\n"
			    "removes one (a unique prefix of 8 digits or more will do); list shows them. audit,\n"
			    "verify and pull hold every signature to these keys (and to your own signing key).\n"
			    "A line with anything after its key is refused, and so is a key whose signatures\n"
			    "anyone can forge (a small-order or non-canonical Ed25519 key); the trusted-keys and\n"
			    "signed-stores files are used only when no one but you (or root) can write them or\n"
			    "their directory ('chmod go-w' them otherwise; docs/verify.md, the trust files).\n";

/* The user's trusted-keys file: $LABRUN_TRUSTED_KEYS, else in the configuration directory. */
static int keys_file(char **path)
{
	const char *env = getenv("LABRUN_TRUSTED_KEYS");

	if (env && *env)
		return (*path = strdup(env)) ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
	return lr_config_path("trusted-keys", path);
}

static int key_init(const char *path)
{
	struct lr_signer *signer = NULL;
	char *file = NULL;
	int rc;

	if (!(rc = lr_key_generate(path)) && !(rc = lr_signer_load(path, &signer)) && !(rc = keys_file(&file)) &&
	    !(rc = lr_trust_keys_add(file, "self", lr_signer_public(signer), NULL)))
		printf("made key %s\npublic key:  %s\nfingerprint: %s\ntrusted in %s\n", path, lr_signer_public(signer),
		       lr_signer_fingerprint(signer), file);
	lr_signer_free(signer);
	free(file);
	return rc;
}

static int key_show(const char *path, int pem)
{
	struct lr_signer *signer = NULL;
	char *text = NULL;
	int rc;

	if ((rc = lr_signer_load(path, &signer)))
		return rc;
	if (!signer) {
		lr_error_hint("'labrun key init' makes one");
		return lr_error_set(LR_ENOTFOUND, "no signing key at '%s'", path);
	}
	if (pem && !(rc = lr_signer_public_pem(signer, &text)))
		fputs(text, stdout);
	else if (!pem)
		printf("signing key %s\npublic key:  %s\nfingerprint: %s\n", path, lr_signer_public(signer),
		       lr_signer_fingerprint(signer));
	free(text);
	lr_signer_free(signer);
	return rc;
}

static int key_trust(const char *what, const char *principal)
{
	struct lr_trust t = { 0 };
	char *file = NULL;
	size_t i;
	int rc, fpr = strlen(what) == 64 && strspn(what, "0123456789abcdef") == 64;

	if ((rc = keys_file(&file)))
		return rc;
	if (fpr) {
		if (!(rc = lr_trust_keys_add(file, principal ? principal : "unnamed", NULL, what)))
			printf("trusted key %s (%s, by fingerprint) in %s\n", what, principal ? principal : "unnamed",
			       file);
		goto out;
	}
	if ((rc = lr_trust_add_file(&t, what))) {
		if (rc != LR_EREFUSED) /* a refused key has its own reason */
			lr_error_hint(
				"give an Ed25519 public key in PEM (labrun key export, openssl pkey -pubout), a file of "
				"trusted-key lines, or a fingerprint of 64 hex digits");
		goto out;
	}
	for (i = 0; i < t.nkeys && !rc; i++) {
		const struct lr_trusted_key *k = &t.keys[i];
		const char *name = principal ? principal : strcmp(k->principal, what) ? k->principal : "unnamed";

		if (!(rc = lr_trust_keys_add(file, name, k->public_key[0] ? k->public_key : NULL, k->fingerprint)))
			printf("trusted key %s (%s) in %s\n", k->fingerprint, name, file);
	}
	if (!rc && !t.nkeys)
		rc = lr_error_set(LR_EINVAL, "'%s' holds no key", what);
out:
	lr_trust_release(&t);
	free(file);
	return rc;
}

static int key_untrust(const char *fpr)
{
	char *file = NULL, removed[LR_SHA256_HEX];
	int rc;

	if (!(rc = keys_file(&file)) && !(rc = lr_trust_keys_remove(file, fpr, removed)))
		printf("no longer trusted: key %s (removed from %s)\n", removed, file);
	free(file);
	return rc;
}

static int key_list(void)
{
	struct lr_trust t;
	size_t i;
	int rc;

	if (!(rc = lr_trust_load(&t))) {
		for (i = 0; i < t.nkeys; i++)
			printf("%s %s %s\n", t.keys[i].fingerprint, t.keys[i].principal,
			       t.keys[i].public_key[0] ? "(public key)" : "(fingerprint only)");
		if (!t.nkeys)
			fprintf(stderr, "labrun: no trusted keys (%s): 'labrun key init' or 'labrun key trust FILE'\n",
				t.keys_path);
		for (i = 0; i < t.nstores; i++)
			printf("signed store %s from entry %lld by %s: %s\n", t.stores[i].id,
			       (long long)t.stores[i].from_seq, t.stores[i].keys, t.stores[i].path);
	}
	lr_trust_release(&t);
	return rc;
}

/* 'key SUB' with min to max operands, else the usage error; 'key SUB -h' is the usage (CMD_HELP_SHOWN). */
static int operands(const char *sub, int argc, char **argv, int min, int max, const char *what)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return CMD_HELP_SHOWN;
	}
	if (argc - 1 >= min && argc - 1 <= max)
		return 0;
	return cmd_usage_error("key", "'key %s' takes %s", sub, what);
}

/* 'key -h' (cmd_run_sub gives options to the first subcommand) and 'key help'. */
static int sub_help(const struct lr_global *g, int argc, char **argv)
{
	(void)g;
	if (argc > 1 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help"))
		return cmd_usage_error("key", "unknown option '%s' for 'labrun key'", argv[1]);
	fputs(usage, stdout);
	return CMD_HELP_SHOWN;
}

static int sub_path(const char *sub, int argc, char **argv, int (*fn)(const char *path, int arg), int arg)
{
	char *path = NULL;
	int rc;

	if ((rc = operands(sub, argc, argv, 0, 0, "nothing")))
		return rc;
	if (!(rc = lr_key_path(&path)))
		rc = fn(path, arg);
	free(path);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}

static int init_path(const char *path, int arg)
{
	(void)arg;
	return key_init(path);
}

static int sub_init(const struct lr_global *g, int argc, char **argv)
{
	(void)g;
	return sub_path("init", argc, argv, init_path, 0);
}

static int sub_show(const struct lr_global *g, int argc, char **argv)
{
	(void)g;
	return sub_path("show", argc, argv, key_show, 0);
}

static int sub_export(const struct lr_global *g, int argc, char **argv)
{
	(void)g;
	return sub_path("export", argc, argv, key_show, 1);
}

static int sub_trust(const struct lr_global *g, int argc, char **argv)
{
	int rc;

	(void)g;
	if ((rc = operands("trust", argc, argv, 1, 2, "FILE|FINGERPRINT [PRINCIPAL]")))
		return rc;
	return (rc = key_trust(argv[1], argc == 3 ? argv[2] : NULL)) ? cmd_fail(rc) : LR_EXIT_OK;
}

static int sub_untrust(const struct lr_global *g, int argc, char **argv)
{
	int rc;

	(void)g;
	if ((rc = operands("untrust", argc, argv, 1, 1, "FINGERPRINT")))
		return rc;
	return (rc = key_untrust(argv[1])) ? cmd_fail(rc) : LR_EXIT_OK;
}

static int sub_list(const struct lr_global *g, int argc, char **argv)
{
	int rc;

	(void)g;
	if ((rc = operands("list", argc, argv, 0, 0, "nothing")))
		return rc;
	return (rc = key_list()) ? cmd_fail(rc) : LR_EXIT_OK;
}

int cmd_key(const struct lr_global *g, int argc, char **argv)
{
	static const struct cmd_sub subs[] = {
		{ "help", sub_help },   { "init", sub_init },       { "show", sub_show }, { "export", sub_export },
		{ "trust", sub_trust }, { "untrust", sub_untrust }, { "list", sub_list }, { NULL, NULL },
	};

	return cmd_run_sub(g, "key", "subcommand", subs, argc, argv);
}
