/* labrun pull: bring runs from a remote into this store, checked against their seals and signatures. */
#include "config.h"
#include "base/system.h"

#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/sync.h"
#include "report/sync.h"
#include "store/remote.h"

static const char usage[] =
	"usage: labrun pull [NAME] [--issue REF] [--host HOST] [--run UUID...] [--objects all|lazy] [-v]\n"
	"                   [--progress]\n"
	"\n"
	"Bring runs from remote NAME (the only remote when there is one) into this store,\n"
	"so report, audit, manifest, archive, diff and sql work on them with the local\n"
	"runs. Each run's bundle is checked first: its rows must give the seal it was\n"
	"pushed with and its ledger entries must verify, signatures included. A pulled\n"
	"run keeps its origin host; it is sealed and entered in this store's ledger as\n"
	"it arrives, in one transaction. Runs it points at (a replay's original, another\n"
	"run's responses) come with it. Runs already here are left alone.\n";
static const char usage_after[] =
	"A run with a ledger entry signed by a key you do not trust (labrun key list) is refused\n"
	"and named; unsigned runs are taken, as audit then says. A run that comes unsigned from a\n"
	"host whose earlier runs came signed is taken and named (labrun: unsigned UUID: ...), and\n"
	"audit counts it as a problem.\n";

static void note(void *arg, const char *uuid, enum lr_sync_event what, const char *detail)
{
	cmd_progress_clear();
	if (what == LR_SYNC_REFUSED || what == LR_SYNC_UNSIGNED)
		fprintf(stderr, "labrun: %s %s: %s\n", lr_sync_event_name(what), uuid, detail ? detail : "");
	else if (*(int *)arg)
		lr_sync_write_run(stdout, what, uuid);
}

int cmd_pull(const struct lr_global *g, int argc, char **argv)
{
	static const char *const objects[] = { "all", "lazy", NULL };
	char issue[CMD_ISSUE_BUF] = "", *uri = NULL, *name = NULL, *bucket = NULL;
	const char *host = NULL;
	struct lr_strlist runs = { 0 }, trust_files = { 0 };
	struct lr_trust trust = { 0 };
	struct lr_sync_stats s;
	struct lr_remote *r = NULL;
	struct lr_store *st = NULL;
	int rc, first, lazy = 0, verbose = 0, progress = 0;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF", "runs of this issue"),
		CMD_NONEMPTY(0, "host", &host, "HOST", "runs recorded on this host (its hostname)"),
		CMD_LIST(0, "run", &runs, "UUID", "this run, or the runs whose uuid starts so (repeatable)"),
		CMD_CHOICE(0, "objects", &lazy, objects, "lazy", "fetch each object the first time something reads it"),
		CMD_LIST(0, "trust", &trust_files, "FILE", "also trust the keys of FILE (repeatable)"),
		CMD_BOOL('v', NULL, &verbose, "a line per run"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "pull", .usage = usage, .max = 1, .operands = "at most the remote's NAME", .after = usage_after
	};

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if ((rc = cmd_store(&st, g))) {
		lr_strlist_release(&runs);
		return rc;
	}
	rc = cmd_trust_load(&trust, &trust_files, NULL);
	if (!rc && !(rc = lr_store_remote_get(st, first < argc ? argv[first] : NULL, &name, &uri, &bucket)) &&
	    !(rc = lr_remote_open(&r, name, uri, bucket, 0))) {
		struct lr_remote_filter f = { *issue ? issue : NULL, host, &runs };
		int prc;

		cmd_progress_begin("labrun pull", progress, verbose && !progress);
		prc = lr_pull(st, r, name, &f, &trust, lazy, note, &verbose, &s);
		cmd_progress_end();

		if (!prc || prc == LR_EREFUSED)
			lr_sync_write_summary(stdout, name, 1, lazy, &s);
		rc = prc;
	}
	lr_remote_free(r);
	lr_trust_release(&trust);
	lr_strlist_release(&trust_files);
	lr_strlist_release(&runs);
	free(uri);
	free(bucket);
	free(name);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
