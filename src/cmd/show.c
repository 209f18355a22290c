#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/object.h"
#include "experiment/report.h"
#include "record/runjson.h"
#include "record/spool.h"
#include "store/remote.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun show [--json] [--tail N] RUN\n"
			    "\n"
			    "Show everything recorded about RUN (a short id, a uuid or uuid prefix, 'last', or\n"
			    "any of them followed by ~N for the Nth run recorded before it, as in 'last~1'):\n"
			    "status and exit, command, sources, host, binding, geometry, tools, environment,\n"
			    "artifacts and the last lines of both logs.\n";

/* Print the last 'lines' lines of a file, indented; reads at most 64 KiB. */
/*
 * One log line for a terminal: control characters (an escape sequence could
 * recolour, retitle or clear the reader's terminal) are shown as \xNN;
 * 'labrun cat' gives the bytes as they are.
 */
/* "LABEL VALUE\n", the value as text from the store (or another host) must reach a terminal: escaped. */
static void field(const char *label, const char *v)
{
	fputs(label, stdout);
	lr_term_text(stdout, v);
	putchar('\n');
}

static void print_line(const char *p, size_t len)
{
	size_t i;

	fputs("    ", stdout);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

static void print_tail(const char *path, int lines)
{
	char buf[65536];
	off_t size, from;
	ssize_t n;
	int fd, seen = 0;
	char *p, *start;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("    (not readable: %s)\n", path);
		return;
	}
	size = lseek(fd, 0, SEEK_END);
	from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
	n = pread(fd, buf, sizeof buf - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = buf + n;
	if (p > buf && p[-1] == '\n')
		p--;
	start = buf;
	while (p > buf) {
		p--;
		if (*p == '\n' && ++seen == lines) {
			start = p + 1;
			break;
		}
	}
	if (start == buf && from > 0) {
		start = strchr(buf, '\n');
		start = start ? start + 1 : buf;
	}
	if (start > buf || from > 0)
		printf("    ...\n");
	for (p = start; *p;) {
		char *nl = strchr(p, '\n');

		print_line(p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void show_log(struct lr_store *st, const struct lr_run *r, const char *name, int tail)
{
	struct lr_object obj = { 0 };
	char size[32], *spool = NULL;
	size_t i;
	int rc;

	for (i = 0; i < r->nartifacts && strcmp(r->artifacts[i].role, name); i++)
		;
	if (i == r->nartifacts && r->status == LR_RUNNING) {
		printf("%s (still being written):\n", name);
		if (tail > 0 && (spool = lr_spool_path(lr_store_dir(st), r->uuid, name)))
			print_tail(spool, tail);
		free(spool);
		return;
	}
	if (i == r->nartifacts) {
		printf("%s: not recorded\n", name);
		return;
	}
	printf("%s (%s, sha256 %.12s):\n", name, lr_human_size(size, sizeof size, r->artifacts[i].size),
	       r->artifacts[i].sha256);
	/* a log is shown only while it hashes to its name; from its remote first when pulled lazily */
	rc = lr_object_find(st, r->artifacts[i].sha256, tail > 0 ? LR_OBJECT_FETCH | LR_OBJECT_VERIFY : 0, &obj);
	if (obj.where == LR_OBJECT_ARCHIVED) /* pruned: say where it lives */
		printf("  (in archive '%s' as '%s'; 'labrun cat %lld %s' reads it)\n", obj.archive, obj.member,
		       (long long)r->id, name);
	else if (tail > 0 && rc)
		printf("  (not shown: %s)\n", lr_error_msg()); /* never print content that is not what was recorded */
	else if (tail > 0)
		print_tail(obj.path, tail);
	lr_error_clear();
	lr_object_release(&obj);
}

static void print_kvs(const char *title, const struct lr_kvlist *l, int show_tag)
{
	size_t i;

	printf("%s:", title);
	if (!l->n)
		printf(" (none)");
	putchar('\n');
	for (i = 0; i < l->n; i++) {
		fputs("  ", stdout);
		lr_term_text(stdout, l->v[i].key);
		putchar('=');
		lr_term_text(stdout, l->v[i].value);
		if (show_tag && l->v[i].tag)
			printf("  (%s)", l->v[i].tag);
		putchar('\n');
	}
}

/* An experiment run's conditions: status, parity counts and each arm's verdict against the baseline. */
static void print_conditions(struct lr_store *st, const struct lr_run *r)
{
	struct lr_report rep;

	if (r->kind != LR_KIND_EXPERIMENT || r->status == LR_RUNNING)
		return;
	if (lr_report_build(st, NULL, r->id, &rep)) {
		printf("conditions: (not shown: %s)\n", lr_error_msg());
		lr_error_clear();
		return;
	}
	if (rep.nruns == 1)
		lr_render_run_conditions(stdout, &rep.runs[0]);
	lr_report_release(&rep);
}

static void print_human(struct lr_store *st, const struct lr_run *r, int tail)
{
	char size[32], *cmd = lr_argv_text(r->argv_json);
	size_t i;

	printf("run %lld  %s\n", (long long)r->id, r->uuid);
	printf("status:     %s", lr_status_name(r->status));
	if (r->has_exit)
		printf(", exit code %d", r->exit_code);
	if (r->signal)
		printf(", killed by signal %d (%s)", r->signal, strsignal(r->signal));
	if (r->timed_out)
		printf(", timed out");
	putchar('\n');
	if (r->failure)
		field("failure:    ", r->failure);
	field("command:    ", cmd ? cmd : r->argv_json);
	field("cwd:        ", r->cwd);
	printf("kind:       %s    labrun %s\n", lr_run_kind_name(r->kind), r->labrun_version);
	if (r->experiment)
		field("experiment: ", r->experiment);
	if (r->issues.n) {
		printf("issues:    ");
		for (i = 0; i < r->issues.n; i++)
			printf(" %s", r->issues.v[i]);
		putchar('\n');
	}
	if (r->note)
		field("note:       ", r->note);
	printf("started:    %s\n", r->started_at);
	if (r->ended_at)
		printf("ended:      %s\n", r->ended_at);
	if (r->ended_at && r->status != LR_ABANDONED)
		printf("resources:  wall %.3f s, user %.3f s, sys %.3f s, peak RSS %s\n", r->wall_s, r->user_s,
		       r->sys_s, lr_human_size(size, sizeof size, r->peak_rss_kib * 1024));
	if (r->replay_of)
		printf("replay of:  run %lld\n", (long long)r->replay_of);
	printf("host:       %s, %s, %s %s\n", r->host.hostname, r->host.os ? r->host.os : "unknown OS", r->host.arch,
	       r->host.kernel);
	printf("cpu:        %s, %lld cores, %s memory\n", r->host.cpu_model ? r->host.cpu_model : "unknown",
	       (long long)r->host.cores, lr_human_size(size, sizeof size, r->host.memory_bytes));
	if (r->source.present) {
		field("source:     ", r->source.repo_path);
		printf("  HEAD %s%s%s%s\n", r->source.head ? r->source.head : "(no commit yet)",
		       r->source.branch ? " (branch " : "", r->source.branch ? r->source.branch : "",
		       r->source.branch ? ")" : " (detached)");
		printf("  dirty: %s    diff sha256 %s\n", r->source.dirty ? "yes" : "no", r->source.diff_sha256);
	} else {
		printf("source:     not inside a git work tree\n");
	}
	lr_render_run_files(stdout, r);
	print_kvs("geometry", &r->geometry, 0);
	print_kvs("binding", &r->binding, 1);
	print_kvs("tools", &r->tools, 0);
	lr_render_run_identity(stdout, r);
	print_kvs("environment", &r->env, 0);
	lr_render_run_artifacts(stdout, r);
	lr_render_run_measures(stdout, r);
	lr_render_run_checks(stdout, r);
	print_conditions(st, r);
	show_log(st, r, "stdout", tail);
	show_log(st, r, "stderr", tail);
	free(cmd);
}

int cmd_show(const struct lr_global *g, int argc, char **argv)
{
	struct lr_store *st = NULL;
	struct lr_run r;
	int64_t id = 0;
	int rc, json = 0, tail = 10, first;
	const struct cmd_opt opts[] = {
		CMD_BOOL(0, "json", &json, "the same as one JSON object (logs are named, not included)"),
		CMD_INT(0, "tail", &tail, 0, 1000000, "N", "log lines to show per stream (default 10, 0 for none)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "show", .usage = usage, .min = 1, .max = 1, .operands = "one RUN" };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if ((rc = cmd_store(&st, g)))
		return rc;
	lr_run_init(&r);
	rc = lr_store_run_resolve(st, argv[first], &id);
	if (!rc)
		rc = lr_store_run_load(st, id, &r);
	if (!rc) {
		if (json) {
			json_t *o = lr_run_json(&r, 1);

			cmd_json_print(o);
		} else {
			print_human(st, &r, tail);
		}
	}
	lr_run_release(&r);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
