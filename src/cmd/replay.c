#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "experiment/replay.h"
#include "experiment/runner.h"
#include "store/experiments.h"
#include "store/runs.h"

extern char **environ;

static const char usage[] =
	"usage: labrun replay [--quiet] [--progress] [--foreign] [--fault-flip-bit ARM[@CONDITION]]\n"
	"                     [--binding K=V] [--tool NAME=VERSION] [--source PATH] [--geometry K=V] [--note TEXT] RUN\n"
	"\n"
	"Re-execute RUN from what the store holds and compare. An experiment run is run\n"
	"again from its stored definition text (not today's file), with the same seed and\n"
	"pinned CPU; each condition's outputs are compared with the original's. A recorded\n"
	"command is run again in its recorded working directory with its recorded\n"
	"(non-secret) environment; its exit code and declared artifacts are compared by\n"
	"sha256. The replay is recorded as a new run with replay_of set, and prints what\n"
	"drifted between the two runs. Exit 0 when the outputs match, 1 when not.\n"
	"\n"
	"A run pulled from another host (or a replay of one) is that host's command line,\n"
	"directory and environment: labrun shows them and runs them only with --foreign.\n";

static int print_exec(void *arg, const struct lr_replay_exec *e)
{
	FILE *f = arg;
	size_t i;

	if (e->arm) {
		fputs("  arm ", f);
		lr_term_text(f, e->arm);
		fputs(": ", f);
		lr_term_text(f, e->command);
	} else {
		char *text = lr_argv_text(e->argv_json);

		fputs("  command: ", f);
		lr_term_text(f, text ? text : e->argv_json);
		free(text);
	}
	fputs("\n    in: ", f);
	lr_term_text(f, e->cwd && *e->cwd ? e->cwd : "(the directory labrun runs in)");
	fputc('\n', f);
	for (i = 0; i < e->env->n; i++) {
		const struct lr_kv *v = &e->env->v[i];

		if (e->arm || !v->tag) { /* a recorded command's tagged values were withheld: not replayed */
			fputs("    env: ", f);
			lr_term_text(f, v->key);
			fputc('=', f);
			lr_term_text(f, v->value);
			fputs(lr_env_changes_start(v->key) ? "   <- changes which program starts or how it loads\n"
							   : "\n",
			      f);
		}
	}
	return 0;
}

/* A run from another host: say so and what it would run; refuse it unless --foreign. */
static int check_foreign(struct lr_store *st, const struct lr_run *orig, int foreign)
{
	struct lr_run_origin o;
	FILE *f = foreign ? stdout : stderr;
	int rc;

	if ((rc = lr_store_run_origin(st, orig->id, &o)) || !o.pulled_run)
		return rc;
	fprintf(f, "run %lld came from another host: ", (long long)orig->id);
	if (o.pulled_run != orig->id)
		fprintf(f, "it replays run %lld, ", (long long)o.pulled_run);
	fputs("pulled from remote '", f);
	lr_term_text(f, o.remote);
	fputs("', pushed from '", f);
	lr_term_text(f, o.host);
	fprintf(f, "'.\nA replay runs here what that host recorded:\n");
	if ((rc = lr_replay_execs(st, orig, print_exec, f)))
		return rc;
	if (foreign)
		return 0;
	lr_error_set(LR_EREFUSED, "refusing to replay run %lld: its commands come from another host",
		     (long long)orig->id);
	lr_error_hint("read what it would run above; 'labrun replay --foreign %lld' runs it", (long long)orig->id);
	return LR_EREFUSED;
}

static void print_replay(const struct lr_run *orig, const struct lr_replay *r)
{
	int i;

	if (orig->kind == LR_KIND_EXPERIMENT)
		printf("replay of run %lld recorded as run %lld (%s); its own parity: %d of %d condition(s) failed or missing\n",
		       (long long)orig->id, (long long)r->run.id, lr_status_name(r->run.status), r->exp.failed,
		       r->exp.nconditions);
	lr_render_comparison(stdout, orig, &r->run, &r->cmp, orig->kind == LR_KIND_RECORD);
	if (!r->nchecks)
		return;
	printf("checks against run %lld:\n", (long long)orig->id);
	printf("  exit code %s -> %s: %s\n", r->exit_original, r->exit_replay,
	       r->checks[0].matches ? "same" : "DIFFERENT");
	for (i = 1; i < r->nchecks; i++) {
		const struct lr_replay_check *c = &r->checks[i];
		size_t role = strcspn(c->item, " "); /* items are "ROLE NAME" */

		printf("  %.*s '%s' %.12s -> %.12s: %s\n", (int)role, c->item, c->item[role] ? c->item + role + 1 : "",
		       c->original ? c->original : "missing", c->replay ? c->replay : "missing",
		       c->matches ? "same" : "DIFFERENT");
	}
}

/* One verdict, saying what it compared; a changed log is a changed log. */
static void print_verdict(const struct lr_run *orig, const struct lr_replay *r)
{
	int i, differ = 0;

	if (orig->kind == LR_KIND_EXPERIMENT) {
		printf("replay %s\n", r->same ? "PASSED: outputs identical" : "FAILED: outputs differ");
		return;
	}
	for (i = 0; i < r->nchecks; i++)
		differ += !r->checks[i].matches;
	if (r->same)
		printf("replay PASSED: the exit code and every declared artifact and --log file are identical (%d check%s)",
		       r->nchecks, r->nchecks == 1 ? "" : "s");
	else
		printf("replay FAILED: %d of %d checks differ (the exit code, declared artifacts and --log files)",
		       differ, r->nchecks);
	if (r->logs_changed[0])
		printf("; its %s changed (a log: not part of the verdict)", r->logs_changed);
	putchar('\n');
}

int cmd_replay(const struct lr_global *g, int argc, char **argv)
{
	static struct lr_run_facts facts; /* --binding, --tool, ... (released at exit) */
	struct lr_runopts ro = {
		.envp = environ, .progress = cmd_run_progress, .flip_arm = -1, .flip_condition = -1, .facts = &facts
	};
	struct lr_replay_opts o = { .argv = g->argv,
				    .envp = environ,
				    .run = &ro,
				    .tee_out = STDOUT_FILENO,
				    .tee_err = STDERR_FILENO,
				    .facts = &facts };
	struct lr_replay r;
	struct lr_store *st = NULL;
	struct lr_run orig;
	int64_t id = 0;
	int rc, same = 0, quiet = 0, progress = 0, foreign = 0, first;
	const struct cmd_opt opts[] = {
		CMD_BOOL('q', "quiet", &quiet, "no progress, on a terminal either"),
		CMD_PROGRESS(&progress),
		CMD_BOOL(0, "foreign", &foreign,
			 "replay a run from another host (its commands, directory\nand environment are shown first)"),
		CMD_CALLBACK(0, "fault-flip-bit", &ro, cmd_opt_flip, "ARM[@C]",
			     "test fault (experiments): flip one output bit of arm\nARM in condition C of the replay"),
		CMD_HEADING("Where it ran and with what (over what the original stated):"),
		CMD_FACT_OPTS(&facts, cmd_opt_fact),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "replay", .usage = usage, .min = 1, .max = 1, .operands = "one RUN" };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if (!cmd_progress_begin("labrun replay", progress, quiet))
		ro.progress = NULL;
	lr_progress_sink_set(NULL); /* the runner's callback shows the experiment; the work inside it stays silent */
	if ((rc = cmd_store(&st, g)))
		return rc;
	lr_run_init(&orig);
	memset(&r, 0, sizeof r);
	if (!(rc = lr_store_run_resolve(st, argv[first], &id)) && !(rc = lr_store_run_load(st, id, &orig)) &&
	    !(rc = check_foreign(st, &orig, foreign))) {
		rc = lr_replay(st, &orig, &o, &r);
		cmd_progress_end();
	}
	if (!rc) {
		print_replay(&orig, &r);
		same = r.same;
		print_verdict(&orig, &r);
	}
	lr_replay_release(&r);
	lr_run_release(&orig);
	lr_run_facts_release(&facts);
	if (rc)
		return cmd_fail(rc);
	return same ? LR_EXIT_OK : LR_EXIT_FAIL;
}
