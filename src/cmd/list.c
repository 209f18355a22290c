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

static const char usage[] =
	"usage: labrun list [--issue REF] [--experiment NAME] [--status S] [-n N] [--json]\n"
	"       labrun list --registered [--json]\n"
	"\n"
	"List recorded runs, newest first.\n";

struct list_ctx {
	int json;
	json_t *arr;
	int rows;
	int wide;		/* --wide: no cell is cut */
	size_t width;		/* the terminal's, 0 when not a terminal */
};

static int print_registration(void *arg, int64_t id, const char *hub, const char *path, const char *sha,
			      const char *when, const char *runs)
{
	struct list_ctx *c = arg;
	int *n = &c->rows;

	if (c->json) {
		json_t *ids = json_array();
		const char *p = runs;
		char *end;

		while (*p) { /* "3 5": the ids of its runs */
			json_array_append_new(ids, json_integer(strtoll(p, &end, 10)));
			p = end + strspn(end, " ");
		}
		json_array_append_new(c->arr, json_pack("{sI ss ss ss ss so}", "id", (json_int_t)id, "hub", hub, "crate", path,
							"manifest_sha256", sha, "registered_at", when, "runs", ids));
		return 0;
	}
	if (!(*n)++)
		printf("%5s  %-16s  %-20s  %-16s  %-12s  %s\n", "REG", "HUB", "REGISTERED", "MANIFEST", "RUNS", "CRATE");
	printf("%5lld  %-16s  %-20.19s  %-16.16s  %-12s  %s\n", (long long)id, hub, when, sha, *runs ? runs : "-", path);
	return 0;
}

/*
 * 'text' fitted to 'width' bytes in 'out': longer text ends in "..." (cut at
 * a UTF-8 character boundary). width 0: the whole text.
 */
static const char *fit(char *out, size_t len, const char *text, size_t width)
{
	size_t n = strlen(text);

	if (!width || n <= width || width < 4 || width >= len)
		return text;
	n = width - 3;
	while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
		n--;
	snprintf(out, len, "%.*s...", (int)n, text);
	return out;
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
	char exitbuf[16] = "-", wall[24] = "-", issues[512] = "", *cmd, e[64], is[64], cm[4096];
	/* the columns before COMMAND take 5+2+9+2+4+2+9+2+20+2+16+2+12+2 bytes */
	size_t i, off = 0, cmdw = c->wide || c->width <= 89 + 10 ? 0 : c->width - 89;

	if (c->json) {
		json_array_append_new(c->arr, lr_run_json(r, 0));
		return 0;
	}
	if (!c->rows++)
		printf("%5s  %-9s  %4s  %9s  %-20s  %-16s  %-12s  %s\n", "ID", "STATUS", "EXIT", "WALL",
		       "STARTED", "EXPERIMENT", "ISSUES", "COMMAND");
	if (r->has_exit)
		snprintf(exitbuf, sizeof exitbuf, "%d", r->exit_code);
	else if (r->signal)
		snprintf(exitbuf, sizeof exitbuf, "s%d", r->signal);
	if (r->ended_at)
		snprintf(wall, sizeof wall, "%.2fs", r->wall_s);
	for (i = 0; i < r->issues.n && off < sizeof issues; i++)
		off += (size_t)snprintf(issues + off, sizeof issues - off, "%s%s", i ? "," : "", r->issues.v[i]);
	cmd = lr_argv_text(r->argv_json);
	printf("%5lld  %-9s  %4s  %9s  %-20.19s  %-16s  %-12s  %s\n", (long long)r->id,
	       lr_status_name(r->status), exitbuf, wall, r->started_at,
	       fit(e, sizeof e, r->experiment ? r->experiment : "-", c->wide ? 0 : 16),
	       fit(is, sizeof is, *issues ? issues : "-", c->wide ? 0 : 12), fit(cm, sizeof cm, cmd ? cmd : "", cmdw));
	free(cmd);
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
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF", "only runs that are evidence for REF (270, owner/repo#827)"),
		CMD_STRING(0, "experiment", &f.experiment, "NAME", "only runs of this experiment"),
		CMD_CHOICE(0, "status", &status, cmd_status_choices, "S", "running, passed, failed, cancelled or abandoned"),
		CMD_I64('n', "limit", &f.limit, 1, INT64_MAX, "N", "at most N runs"),
		CMD_BOOL(0, "json", &ctx.json, "one JSON array of objects instead of a table"),
		CMD_BOOL(0, "registered", &registered, "crates registered with a hub (labrun register), not runs"),
		CMD_BOOL(0, "wide", &ctx.wide, "never cut a cell (by default long experiment names and issue\nlists end in '...', and the command fits the terminal)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "list", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	f.issue = issue[0] ? issue : NULL;
	f.status = status;
	if (registered && (f.issue || f.experiment || status >= 0 || f.limit || ctx.wide))
		return cmd_usage_error("list", "--registered lists registrations: it takes only --json, not the run filters");
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
