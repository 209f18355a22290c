#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "cmd.h"

static const char usage[] =
	"usage: labrun init\n"
	"\n"
	"Create a store: '.labrun/' at the top of the enclosing git work tree, or in the\n"
	"working directory outside git (or the directory given by --store / LABRUN_STORE).\n"
	"Recording creates one the same way, so init is optional. Running it on an\n"
	"existing store checks it and upgrades its schema.\n";

int cmd_init(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct lr_store *st = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return LR_EXIT_OK;
		}
		return cmd_bad_option("init", argv, c);
	}
	if (optind < argc)
		return cmd_usage_error("init", "unexpected argument '%s'", argv[optind]);
	if ((rc = cmd_open_store(&st, g, 1)))
		return rc;
	printf("store '%s' ready (schema %d)\n", lr_store_dir(st), lr_store_schema_version(st));
	lr_store_free(st);
	return LR_EXIT_OK;
}
