#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "record/spool.h"
#include "evidence/archive.h"
#include "store/objects.h"

static const char usage[] =
	"usage: labrun fsck\n"
	"\n"
	"Check the store: mark runs whose recorder died as abandoned (keeping their\n"
	"partial logs), remove stray spool files no run needs (older than a minute,\n"
	"lock not held), run SQLite's integrity check, and re-hash every object the\n"
	"database references. Exits 1 when anything is wrong, naming each problem.\n";

/* A new recorder's lock exists unheld for a moment; anything this old is not that. */
#define STRAY_MIN_AGE 60

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

static int check_archived(void *arg, const char *sha, const char *archive, const char *member)
{
	struct obj_ctx *c = arg;

	c->checked++;
	if (lr_archive_read_member(archive, member, sha, -1)) {
		c->bad++;
		printf("archived %s: %s\n", sha, lr_error_msg());
	}
	return 0;
}

int cmd_fsck(const struct lr_global *g, int argc, char **argv)
{
	struct lr_store *st = NULL;
	struct obj_ctx oc = { NULL, 0, 0 };
	int rc, first, abandoned = 0, stray = 0, problems = 0;

	if ((rc = cmd_parse_plain("fsck", usage, argc, argv, 0, 0, NULL, &first)))
		return rc < 0 ? LR_EXIT_OK : rc;
	if ((rc = cmd_open_store_counted(&st, g, 0, &abandoned)))
		return rc;
	printf("store:      %s (schema %d)\n", lr_store_dir(st), lr_store_schema_version(st));
	printf("abandoned:  %d run(s) marked now\n", abandoned);
	if (lr_spool_sweep(st, STRAY_MIN_AGE, &stray)) {
		printf("spool:      FAILED: %s\n", lr_error_msg());
		problems++;
	} else {
		printf("spool:      %d stray file(s) removed\n", stray);
	}
	if (lr_store_integrity(st)) {
		printf("integrity:  FAILED: %s\n", lr_error_msg());
		problems++;
	} else {
		printf("integrity:  ok\n");
	}
	oc.dir = lr_store_dir(st);
	rc = lr_store_objects(st, check_object, &oc);
	if (!rc)
		printf("objects:    %ld checked, %ld missing or corrupt\n", oc.checked, oc.bad);
	problems += oc.bad > 0;
	/* pruned logs: their archive must still hold them, unchanged */
	if (!rc) {
		struct obj_ctx ac = { NULL, 0, 0 };

		rc = lr_store_archived_each(st, check_archived, &ac);
		if (!rc)
			printf("archived:   %ld pruned log(s) checked in their archives, %ld missing or changed\n", ac.checked,
			       ac.bad);
		problems += ac.bad > 0;
	}
	lr_store_free(st);
	if (rc)
		return cmd_fail(rc);
	return problems ? LR_EXIT_FAIL : LR_EXIT_OK;
}
