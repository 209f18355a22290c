#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/sign.h"
#include "cmd/cmd.h"

static const char usage[] =
	"usage: labrun key init\n"
	"       labrun key show\n"
	"\n"
	"init makes an Ed25519 signing key at $LABRUN_KEY, else\n"
	"$XDG_CONFIG_HOME/labrun/signing-key.pem, else ~/.config/labrun/signing-key.pem (mode\n"
	"0600; an existing key is never replaced). While it exists, every ledger entry labrun\n"
	"appends (each run made final or amended) is signed, and its public key is stored\n"
	"once; 'labrun audit' verifies every signature and names the key of each entry.\n"
	"show prints the key's path, public key and fingerprint.\n";

int cmd_key(const struct lr_global *g, int argc, char **argv)
{
	struct lr_signer *signer = NULL;
	char *path = NULL;
	int rc;

	(void)g;
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return LR_EXIT_OK;
	}
	if (argc != 2 || (strcmp(argv[1], "init") && strcmp(argv[1], "show")))
		return cmd_usage_error("key", "expected 'key init' or 'key show'");
	if ((rc = lr_key_path(&path)))
		return cmd_fail(rc);
	if (!strcmp(argv[1], "init") && (rc = lr_key_generate(path)))
		goto out;
	if ((rc = lr_signer_load(path, &signer)))
		goto out;
	if (!signer) {
		rc = lr_error_set(LR_ENOTFOUND, "no signing key at '%s'", path);
		lr_error_hint("'labrun key init' makes one");
		goto out;
	}
	printf("%s key %s\npublic key:  %s\nfingerprint: %s\n", !strcmp(argv[1], "init") ? "made" : "signing", path,
	       lr_signer_public(signer), lr_signer_fingerprint(signer));
out:
	lr_signer_free(signer);
	free(path);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
