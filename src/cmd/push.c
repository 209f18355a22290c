/* labrun push: copy final runs, with their objects, seals and ledger entries, to a remote. */
#include "config.h"
#include "base/system.h"

#include "base/model.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/sync.h"
#include "report/sync.h"
#include "store/remote.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun push [NAME] [--issue REF | --run ID...] [-v] [--progress]\n"
			    "\n"
			    "Copy final runs to remote NAME (the only remote when there is one), every row\n"
			    "of each with its seal, ledger entries and signatures, and the objects it names\n"
			    "(sent once, in chunks). Each run is one transaction on the remote, so an\n"
			    "interrupted push leaves it consistent and pushing again resumes. Runs already\n"
			    "there are left alone; a run the remote holds with other content is refused\n"
			    "and named (exit 1). Runs still running are skipped.\n";

struct push_out {
	int verbose;
};

static void note(void *arg, const char *uuid, enum lr_sync_event what, const char *detail)
{
	const struct push_out *o = arg;

	cmd_progress_clear();
	if (what == LR_SYNC_REFUSED || what == LR_SYNC_SKIPPED)
		fprintf(stderr, "labrun: %s%s%s: %s\n", lr_sync_event_name(what), *uuid ? " " : "", uuid,
			detail ? detail : "");
	else if (o->verbose)
		lr_sync_write_run(stdout, what, uuid);
}

int cmd_push(const struct lr_global *g, int argc, char **argv)
{
	char issue[CMD_ISSUE_BUF] = "", *uri = NULL, *name = NULL, *objects = NULL;
	struct lr_strlist runs = { 0 };
	struct push_out out = { 0 };
	struct lr_sync_stats s;
	struct lr_remote *r = NULL;
	struct lr_store *st = NULL;
	int64_t *ids = NULL;
	int rc, first, n = 0, progress = 0;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF", "the runs of this issue (default: every run)"),
		CMD_LIST(0, "run", &runs, "ID", "this run (repeatable): short id, uuid, 'last' or 'last~N'"),
		CMD_BOOL('v', NULL, &out.verbose, "a line per run"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "push", .usage = usage, .max = 1, .operands = "at most the remote's NAME" };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (*issue && runs.n) {
		lr_strlist_release(&runs);
		return cmd_usage_error("push", "--issue and --run choose runs two ways: give one");
	}
	if ((rc = cmd_store(&st, g))) {
		lr_strlist_release(&runs);
		return rc;
	}
	if (!(rc = cmd_select_runs(st, "push", issue, &runs, &ids, &n)) &&
	    !(rc = lr_store_remote_get(st, first < argc ? argv[first] : NULL, &name, &uri, &objects)) &&
	    !(rc = lr_remote_open(&r, name, uri, objects, 0))) {
		int prc;

		cmd_progress_begin("labrun push", progress, out.verbose && !progress);
		prc = lr_push(st, r, ids, n, note, &out, &s);
		cmd_progress_end();

		if (!prc || prc == LR_EREFUSED)
			lr_sync_write_summary(stdout, name, 0, 0, &s);
		rc = prc;
	}
	lr_remote_free(r);
	lr_strlist_release(&runs);
	free(ids);
	free(uri);
	free(objects);
	free(name);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
