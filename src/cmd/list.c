#include "config.h"
#include "base/system.h"

#include <sys/ioctl.h>

#include <jansson.h>

#include "base/error.h"
#include "base/issueref.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "record/runjson.h"
#include "store/archives.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun list [--issue REF] [--experiment NAME] [--status S] [-n N] [--json]\n"
			    "       labrun list --registered [--json]\n"
			    "\n"
			    "List recorded runs, newest first.\n";

struct list_ctx {
	int json;
	json_t *arr;
	int rows;
	int wide;     /* --wide: no cell is cut */
	size_t width; /* the terminal's, 0 when not a terminal */
};

static int print_registration(void *arg, const struct lr_registration *g)
{
	struct list_ctx *c = arg;

	if (c->json) {
		json_t *ids = json_array(), *o;
		const char *p = g->runs;
		char *end;

		while (*p) { /* "3 5": the ids of its runs */
			json_array_append_new(ids, json_integer(strtoll(p, &end, 10)));
			p = end + strspn(end, " ");
		}
		o = json_pack("{sI ss ss ss ss so}", "id", (json_int_t)g->id, "hub", g->hub, "crate", g->path,
			      "manifest_sha256", g->sha, "registered_at", g->when, "runs", ids);
		if (o && g->archive_sha)
			json_object_set_new(o, "archive_sha256", json_string(g->archive_sha));
		json_array_append_new(c->arr, o);
		return 0;
	}
	lr_render_registration_row(stdout, !c->rows++, g);
	return 0;
}

/* The terminal's width when stdout is one ($COLUMNS first); 0: do not cut the command. */
static size_t terminal_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (cols && atoi(cols) > 0)
		return (size_t)atoi(cols);
	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 0;
}

static int print_row(void *arg, const struct lr_run *r)
{
	struct list_ctx *c = arg;

	if (c->json)
		json_array_append_new(c->arr, lr_run_json(r, 0));
	else
		lr_render_run_row(stdout, !c->rows++, r, c->width, c->wide);
	return 0;
}

int cmd_list(const struct lr_global *g, int argc, char **argv)
{
	struct lr_run_filter f = { .status = -1 };
	struct list_ctx ctx = { 0, NULL, 0, 0, terminal_width() };
	struct lr_store *st = NULL;
	char issue[CMD_ISSUE_BUF] = "";
	int status = -1, rc, registered = 0, first;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF",
			     "only runs that are evidence for REF (270, owner/repo#827)"),
		CMD_STRING(0, "experiment", &f.experiment, "NAME", "only runs of this experiment"),
		CMD_CHOICE(0, "status", &status, cmd_status_choices, "S",
			   "running, passed, failed, cancelled or abandoned"),
		CMD_I64('n', "limit", &f.limit, 1, INT64_MAX, "N", "at most N runs"),
		CMD_BOOL(0, "json", &ctx.json, "one JSON array of objects instead of a table"),
		CMD_BOOL(0, "registered", &registered, "crates registered with a hub (labrun register), not runs"),
		CMD_BOOL(
			0, "wide", &ctx.wide,
			"never cut a cell (by default long experiment names and issue\nlists end in '...', and the command fits the terminal)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "list", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	f.issue = issue[0] ? issue : NULL;
	f.status = status;
	if (registered && (f.issue || f.experiment || status >= 0 || f.limit || ctx.wide))
		return cmd_usage_error("list",
				       "--registered lists registrations: it takes only --json, not the run filters");
	if ((rc = cmd_store(&st, g)))
		return rc;
	if (ctx.json)
		ctx.arr = json_array();
	if (registered) {
		rc = lr_store_registrations(st, print_registration, &ctx);
		if (!rc && !ctx.json && !ctx.rows)
			printf("no registrations\n");
	} else {
		rc = lr_store_run_list(st, &f, print_row, &ctx);
	}
	if (!rc && ctx.json) {
		json_dumpf(ctx.arr, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(ctx.arr);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
