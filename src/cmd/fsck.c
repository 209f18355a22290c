#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/archive.h"
#include "record/spool.h"
#include "store/archives.h"
#include "store/objects.h"

static const char usage[] = "usage: labrun fsck [--json]\n"
			    "\n"
			    "Check the store: mark runs whose recorder died as abandoned (keeping their\n"
			    "partial logs), remove stray spool files no run needs and temporary object\n"
			    "files of writers that died (older than a minute, lock not held: the space a\n"
			    "killed ingest or a full disk left), run SQLite's integrity check, and re-hash\n"
			    "every object the database references. Exits 1 when anything is wrong, naming\n"
			    "each problem. On a disk too full to recover a dead recorder's run, it says what\n"
			    "waits and the space it needs, keeps the spool, and checks the rest.\n";

/* A new recorder's lock exists unheld for a moment; anything this old is not that. */
#define STRAY_MIN_AGE 60

struct obj_ctx {
	const char *dir;
	long checked, bad;
	json_t *bad_list; /* --json: [{sha256, error}]; NULL: print each */
};

static void bad_object(struct obj_ctx *c, const char *kind, const char *sha)
{
	c->bad++;
	if (c->bad_list)
		json_array_append_new(c->bad_list, json_pack("{s:s, s:s, s:s}", "kind", kind, "sha256", sha, "error",
							     lr_error_msg()));
	else
		printf("%s %s: %s\n", kind, sha, lr_error_msg());
}

static int check_object(void *arg, const char *sha)
{
	struct obj_ctx *c = arg;

	c->checked++;
	if (lr_obj_verify(c->dir, sha))
		bad_object(c, "object", sha);
	return 0;
}

static int check_archived(void *arg, const char *sha, const char *archive, const char *member)
{
	struct obj_ctx *c = arg;

	c->checked++;
	if (lr_archive_read_member(archive, member, sha, -1))
		bad_object(c, "archived", sha);
	return 0;
}

/* "ok", or the failure of one check, as text and JSON. */
static json_t *step_json(int failed)
{
	return failed ? json_pack("{s:b, s:s}", "ok", 0, "error", lr_error_msg()) : json_pack("{s:b}", "ok", 1);
}

/* The temporary files of dead object writers removed from store 'dir' so far. */
struct sweep {
	int removed, bad;
	int64_t bytes;
};

static void sweep_tmp(const char *dir, struct sweep *w)
{
	int n = 0;
	int64_t bytes = 0;

	if (!w->bad && !(w->bad = lr_obj_sweep_tmp(dir, STRAY_MIN_AGE, &n, &bytes) != 0)) {
		w->removed += n;
		w->bytes += bytes;
	}
}

/* The spool and temporary-file lines, or their JSON members. */
static void print_sweeps(json_t *o, int spool_bad, int stray, const struct sweep *w)
{
	char size[32];

	if (o) {
		json_object_set_new(o, "spool", step_json(spool_bad));
		json_object_set_new(json_object_get(o, "spool"), "removed", json_integer(stray));
		json_object_set_new(o, "temporary", step_json(w->bad));
		json_object_set_new(json_object_get(o, "temporary"), "removed", json_integer(w->removed));
		json_object_set_new(json_object_get(o, "temporary"), "bytes", json_integer(w->bytes));
		return;
	}
	if (spool_bad)
		printf("spool:      FAILED: %s\n", lr_error_msg());
	else
		printf("spool:      %d stray file(s) removed\n", stray);
	if (w->bad)
		printf("temporary:  FAILED: %s\n", lr_error_msg());
	else
		printf("temporary:  %d file(s) of writers that died removed (%s)\n", w->removed,
		       lr_human_size(size, sizeof size, w->bytes));
}

/*
 * On a disk without room to recover (short): the runs whose recorder died,
 * what their partial logs hold, the space there is and the space recovery
 * needs. Nothing is adopted, so nothing is lost: the next fsck with room
 * does it. 1 when runs wait (a problem), else 0.
 */
static int report_recovery(struct lr_store *st, int short_disk, int64_t avail, json_t *o)
{
	char size[3][32];
	int64_t bytes = 0;
	int runs = 0, bad;

	bad = short_disk && lr_spool_pending(st, &runs, &bytes) != 0;
	if (o) {
		json_object_set_new(o, "recovery", step_json(bad));
		json_object_set_new(json_object_get(o, "recovery"), "waiting", json_integer(runs));
		json_object_set_new(json_object_get(o, "recovery"), "bytes", json_integer(bytes));
		json_object_set_new(json_object_get(o, "recovery"), "available", json_integer(avail));
		json_object_set_new(json_object_get(o, "recovery"), "needs",
				    json_integer(short_disk && runs ? LR_SPOOL_RECOVER_SPACE : 0));
		if (runs)
			json_object_set_new(json_object_get(o, "recovery"), "ok", json_false());
	} else if (bad) {
		printf("recovery:   FAILED: %s\n", lr_error_msg());
	} else if (runs) {
		printf("recovery:   WAITING: %d run(s) whose recorder died keep %s of partial logs in the spool; the "
		       "store's disk has %s free and recovering them needs %s: free space there and run "
		       "'labrun fsck' again (until then the logs stay in the spool, nothing is lost)\n",
		       runs, lr_human_size(size[0], sizeof size[0], bytes),
		       lr_human_size(size[1], sizeof size[1], avail < 0 ? 0 : avail),
		       lr_human_size(size[2], sizeof size[2], LR_SPOOL_RECOVER_SPACE));
	}
	return bad || runs;
}

/* The global options with the store opened only to read when its disk has no room to recover. */
static struct lr_global fsck_global(const struct lr_global *g, int short_disk)
{
	struct lr_global r = *g;

	if (short_disk)
		r.mode = CMD_READS; /* recovery is then best effort, and cannot succeed: report_recovery says so */
	return r;
}

int cmd_fsck(const struct lr_global *g, int argc, char **argv)
{
	struct lr_store *st = NULL;
	struct obj_ctx oc = { NULL, 0, 0, NULL }, ac = { NULL, 0, 0, NULL };
	int rc, first, json = 0, abandoned = 0, stray = 0, problems = 0, spool_bad, integrity_bad, exists = 0;
	int short_disk = 0;
	int64_t avail = -1;
	struct sweep tmp = { 0 };
	struct lr_global opened;
	char cwd[PATH_MAX], *dir = NULL;
	json_t *o = NULL;

	if ((rc = cmd_parse_plain_json("fsck", usage, argc, argv, 0, 0, NULL, &first, &json,
				       "one JSON object (docs/labrun.md gives its shape)")))
		return rc;
	/* what failed writers left first, by the directory alone: on a full disk the store may not open */
	if (getcwd(cwd, sizeof cwd) && !lr_store_find(&dir, &exists, g->store, cwd, 0) && exists) {
		sweep_tmp(dir, &tmp);
		avail = lr_spool_disk_avail(dir);
		short_disk = avail >= 0 && avail < LR_SPOOL_RECOVER_SPACE;
	}
	free(dir);
	opened = fsck_global(g, short_disk);
	if ((rc = cmd_store(&st, &opened)))
		return rc;
	abandoned = g->held->abandoned; /* marked as the store opened (CMD_REPAIRS: it had to succeed) */
	if (json) {
		o = json_pack("{s:s, s:i, s:i}", "store", lr_store_dir(st), "schema", lr_store_schema_version(st),
			      "abandoned", abandoned);
		oc.bad_list = json_array();
		ac.bad_list = json_array();
	} else {
		printf("store:      %s (schema %d)\n", lr_store_dir(st), lr_store_schema_version(st));
		printf("abandoned:  %d run(s) marked now\n", abandoned);
	}
	spool_bad = lr_spool_sweep(st, STRAY_MIN_AGE, &stray) != 0;
	sweep_tmp(lr_store_dir(st), &tmp); /* again, now that recovery has run */
	print_sweeps(o, spool_bad, stray, &tmp);
	problems = report_recovery(st, short_disk, avail, o);
	integrity_bad = lr_store_integrity(st) != 0;
	if (json)
		json_object_set_new(o, "integrity", step_json(integrity_bad));
	else
		printf(integrity_bad ? "integrity:  FAILED: %s\n" : "integrity:  ok\n", lr_error_msg());
	problems += spool_bad + tmp.bad + integrity_bad;
	oc.dir = lr_store_dir(st);
	if (!(rc = lr_store_objects(st, check_object, &oc)) && !json)
		printf("objects:    %ld checked, %ld missing or corrupt\n", oc.checked, oc.bad);
	/* pruned logs: their archive must still hold them, unchanged */
	if (!rc && !(rc = lr_store_archived_each(st, check_archived, &ac)) && !json)
		printf("archived:   %ld pruned log(s) checked in their archives, %ld missing or changed\n", ac.checked,
		       ac.bad);
	problems += (oc.bad > 0) + (ac.bad > 0);
	if (!rc && json) {
		json_object_set_new(o, "objects",
				    json_pack("{s:I, s:o}", "checked", (json_int_t)oc.checked, "bad", oc.bad_list));
		json_object_set_new(o, "archived",
				    json_pack("{s:I, s:o}", "checked", (json_int_t)ac.checked, "bad", ac.bad_list));
		oc.bad_list = ac.bad_list = NULL;
		json_object_set_new(o, "ok", json_boolean(!problems));
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(o);
	json_decref(oc.bad_list);
	json_decref(ac.bad_list);
	if (rc)
		return cmd_fail(rc);
	return problems ? LR_EXIT_FAIL : LR_EXIT_OK;
}
