#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "objects.h"
#include "spool.h"

static const char usage[] =
	"usage: labrun fsck\n"
	"\n"
	"Check the store: mark runs whose recorder died as abandoned (keeping their\n"
	"partial logs), run SQLite's integrity check, and re-hash every object the\n"
	"database references. Exits 1 when anything is wrong, naming each problem.\n";

struct obj_ctx {
	const char *dir;
	long checked, bad;
};

static int check_object(void *arg, const char *sha)
{
	struct obj_ctx *c = arg;

	c->checked++;
	if (lr_obj_verify(c->dir, sha)) {
		c->bad++;
		printf("object %s: %s\n", sha, lr_error_msg());
	}
	return 0;
}

int cmd_fsck(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	struct lr_store *st = NULL;
	struct obj_ctx oc = { NULL, 0, 0 };
	char cwd[PATH_MAX], *dir = NULL;
	int c, rc, exists = 0, abandoned = 0, problems = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return LR_EXIT_OK;
		}
		return cmd_bad_option("fsck", argv, c);
	}
	if (optind < argc)
		return cmd_usage_error("fsck", "unexpected argument '%s'", argv[optind]);
	if (!getcwd(cwd, sizeof cwd))
		return cmd_fail(lr_error_set(LR_EIO, "cannot read the working directory"));
	if ((rc = lr_store_find(&dir, &exists, g->store, cwd, 0)))
		return cmd_fail(rc);
	rc = lr_store_open(&st, dir, 0);
	free(dir);
	if (rc)
		return cmd_fail(rc);
	if ((rc = lr_spool_recover(st, &abandoned)))
		goto out;
	printf("store:      %s (schema %d)\n", lr_store_dir(st), lr_store_schema_version(st));
	printf("abandoned:  %d run(s) marked now\n", abandoned);
	if (lr_store_integrity(st)) {
		printf("integrity:  FAILED: %s\n", lr_error_msg());
		problems++;
	} else {
		printf("integrity:  ok\n");
	}
	oc.dir = lr_store_dir(st);
	if ((rc = lr_store_objects(st, check_object, &oc)))
		goto out;
	printf("objects:    %ld checked, %ld missing or corrupt\n", oc.checked, oc.bad);
	problems += oc.bad > 0;
out:
	lr_store_free(st);
	if (rc)
		return cmd_fail(rc);
	return problems ? LR_EXIT_FAIL : LR_EXIT_OK;
}
