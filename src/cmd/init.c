#include "config.h"
#include "base/system.h"

#include "cmd/cmd.h"
#include "cmd/options.h"

static const char usage[] = "usage: labrun init\n"
			    "\n"
			    "Create a store: '.labrun/' at the top of the enclosing git work tree, or in the\n"
			    "working directory outside git (or the directory given by --store / LABRUN_STORE).\n"
			    "Recording creates one the same way, so init is optional. Running it on an\n"
			    "existing store checks it and upgrades its schema.\n";

int cmd_init(const struct lr_global *g, int argc, char **argv)
{
	struct lr_store *st = NULL;
	int rc, first;

	if ((rc = cmd_parse_plain("init", usage, argc, argv, 0, 0, NULL, &first)))
		return rc;
	if ((rc = cmd_store(&st, g)))
		return rc;
	printf("store '%s' ready (schema %d)\n", lr_store_dir(st), lr_store_schema_version(st));
	return LR_EXIT_OK;
}
