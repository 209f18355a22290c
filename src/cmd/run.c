#include "config.h"

#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "base/error.h"
#include "experiment/expdef.h"
#include "record/record.h"
#include "experiment/runner.h"
#include "record/spool.h"

extern char **environ;

static const char usage[] =
	"usage: labrun run [--quiet] [--fault-flip-bit ARM[@CONDITION]] FILE\n"
	"\n"
	"Run the experiment defined in FILE (docs/experiments.md): for every condition,\n"
	"check that all arms give bit-identical output, then time paired blocks\n"
	"(ABBA/BAAB) and store every repetition, parity check and the definition itself.\n"
	"Prints the comparison of every arm with the first (the baseline): medians,\n"
	"the paired ratio with its 95% interval, and the verdict. Ctrl-C stops after the\n"
	"current repetition and keeps what was measured (the run is 'cancelled').\n"
	"Exit 0 when every condition passed, 1 otherwise.\n"
	"\n"
	"  -q, --quiet                 no progress on the terminal\n"
	"  --fault-flip-bit ARM[@C]    test fault: flip one output bit of arm number ARM\n"
	"                              (0 = baseline) in condition C (default: all)\n";

static volatile int cancel_requested;

static void on_cancel(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

void cmd_run_progress(void *arg, const struct lr_run_progress *p)
{
	(void)arg;
	fprintf(stderr, "\rcondition %d/%d, block %d/%d, %.0f s elapsed, about %.0f s left   ", p->condition + 1,
		p->nconditions, p->block + 1, p->nblocks, p->elapsed_s, p->eta_s);
	fflush(stderr);
}

void cmd_print_experiment(const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r)
{
	int a, ci, passed = 0, failed = 0, missing = 0;
	char verdict[160];

	for (ci = 0; ci < r->nconditions; ci++) {
		if (!strcmp(r->cond[ci].status, "passed"))
			passed++;
		else if (!strcmp(r->cond[ci].status, "missing"))
			missing++;
		else
			failed++;
	}
	printf("experiment %s (run %lld, %s)%s%s\n", d->name, (long long)run->id, lr_status_name(run->status),
	       d->title[0] ? ": " : "", d->title);
	printf("definition %s, sha256 %s\n", d->path, d->sha256);
	printf("target %s, backend %s, seed %llu; design %s, %d timed blocks after %d warm-up, margin %g%%, timing thread on CPU %d\n",
	       d->target == LR_TARGET_ENCODE ? "encode" : "import", d->backend, (unsigned long long)d->seed,
	       d->order == LR_ORDER_ABBA ? "abba" : "random", d->blocks, d->warmup, d->margin * 100, r->cpu);
	printf("arms:");
	for (a = 0; a < d->narms; a++)
		printf("%s %s (kernel %s%s%s%s)%s", a ? "," : "", d->arms[a].name, r->kernel[a],
		       d->target == LR_TARGET_IMPORT ? ", " : "", d->target == LR_TARGET_IMPORT ? d->arms[a].mode : "",
		       d->target == LR_TARGET_IMPORT ? (strcmp(d->arms[a].layout, "copy") ? "/strided" : "/copy") : "",
		       a == 0 ? " [baseline]" : "");
	printf("\nparity: %d passed, %d failed, %d missing\n", passed, failed, missing);
	for (a = 1; a < d->narms; a++) {
		printf("\n| Condition layers/tokens | %s median ms | %s median ms | Reduction | 95%% interval | blocks | flagged reps | drift | verdict |\n",
		       d->arms[0].name, d->arms[a].name);
		printf("|---|---|---|---|---|---|---|---|---|\n");
		for (ci = 0; ci < r->nconditions; ci++) {
			const struct lr_run_condition *c = &r->cond[ci];
			const struct lr_paired *p = &c->paired[a];

			if (strcmp(c->status, "passed") || c->timed_blocks == 0) {
				printf("| %s %lld/%lld | - | - | - | - | %d | - | - | %s: %s |\n", c->c.model,
				       (long long)c->c.layers, (long long)c->c.tokens, c->timed_blocks, c->status, c->failure);
				continue;
			}
			if (p->k)
				printf("| %s %lld/%lld | %.3f | %.3f | %.1f%% | [%.1f%%, %.1f%%] | %d | %d | %+.1f%% | %s |\n",
				       c->c.model, (long long)c->c.layers, (long long)c->c.tokens, c->median_ms[0],
				       c->median_ms[a], (1 - p->ratio) * 100, (1 - p->hi) * 100, (1 - p->lo) * 100,
				       c->timed_blocks, c->interfered, c->drift[a] * 100,
				       lr_verdict_text(verdict, sizeof verdict, p, d->margin, d->arms[a].name));
			else
				printf("| %s %lld/%lld | %.3f | %.3f | %.1f%% | none (too few blocks) | %d | %d | %+.1f%% | %s |\n",
				       c->c.model, (long long)c->c.layers, (long long)c->c.tokens, c->median_ms[0],
				       c->median_ms[a], (1 - p->ratio) * 100, c->timed_blocks, c->interfered,
				       c->drift[a] * 100, lr_verdict_text(verdict, sizeof verdict, p, d->margin, d->arms[a].name));
		}
	}
	if (failed || missing) {
		printf("\nfailed or missing conditions:\n");
		for (ci = 0; ci < r->nconditions; ci++)
			if (strcmp(r->cond[ci].status, "passed"))
				printf("  %s %lld/%lld: %s: %s\n", r->cond[ci].c.model, (long long)r->cond[ci].c.layers,
				       (long long)r->cond[ci].c.tokens, r->cond[ci].status, r->cond[ci].failure);
	}
	printf("\nTimes are measured wall-clock medians per execution; reduction = 1 - exp(median ln((B1+B2)/(A1+A2))) over\n"
	       "the timed blocks; the interval is the sign-test 95%% interval of the block ratios.\n");
}

int cmd_parse_flip(const char *cmd, const char *arg, struct lr_runopts *ro)
{
	char *end;

	ro->flip_arm = (int)strtol(arg, &end, 10);
	if (*end == '@')
		ro->flip_condition = (int)strtol(end + 1, &end, 10);
	if (*end || end == arg || ro->flip_arm < 0)
		return cmd_usage_error(cmd, "invalid --fault-flip-bit '%s': expected ARM or ARM@CONDITION", arg);
	return 0;
}

int cmd_experiment_execute(struct lr_store *st, struct lr_expdef *d, char **argv, int64_t replay_of,
			   const struct lr_runopts *ro, struct lr_run *run, struct lr_run_result *res)
{
	struct sigaction sa, old_int, old_term;
	int rc, lock = -1;
	char num[32];

	if ((rc = lr_run_capture(st, run, "experiment", argv, environ, d->name, NULL, &d->issues)))
		return rc;
	run->replay_of = replay_of;
	if (d->cpu < 0)
		d->cpu = sched_getcpu();
	snprintf(num, sizeof num, "%d", d->cpu);
	lr_kvlist_set(&run->binding, "pinned_cpu", num, "auto");
	lr_kvlist_set(&run->binding, "backend", d->backend, "user");
	lr_kvlist_set(&run->geometry, "target", d->target == LR_TARGET_ENCODE ? "encode" : "import", NULL);
	run->started_at = lr_now_iso();
	if ((rc = lr_spool_lock(lr_store_dir(st), run->uuid, &lock)) || (rc = lr_store_run_begin(st, run)))
		goto out;
	cancel_requested = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_cancel;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = lr_experiment_run(st, run->id, d, ro, res);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (ro->progress)
		fputc('\n', stderr);
	if (rc)
		goto out; /* the run stays 'running' and is marked abandoned with what was stored */
	run->status = res->cancelled ? LR_CANCELLED : res->failed ? LR_FAILED : LR_PASSED;
	if (run->status != LR_PASSED) {
		char f[128];

		snprintf(f, sizeof f, "%d of %d condition(s) failed or missing%s", res->failed, res->nconditions,
			 res->cancelled ? "; cancelled" : "");
		run->failure = strdup(f);
	}
	run->ended_at = lr_now_iso();
	if ((rc = lr_store_run_finish(st, run, 0)))
		goto out;
	lr_spool_unlock(lr_store_dir(st), run->uuid, lock);
	lock = -1;
out:
	if (lock >= 0 && !run->id)
		lr_spool_unlock(lr_store_dir(st), run->uuid, lock);
	else if (lock >= 0)
		close(lock);
	return rc;
}

int cmd_run(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "fault-flip-bit", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lr_runopts ro = { &cancel_requested, cmd_run_progress, NULL, -1, -1 };
	struct lr_store *st = NULL;
	struct lr_run_result res;
	struct lr_expdef d;
	struct lr_run run;
	int c, rc, quiet = 0, exit_code = LR_EXIT_OK;

	memset(&res, 0, sizeof res);
	memset(&d, 0, sizeof d);
	lr_run_init(&run);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'f':
			if ((rc = cmd_parse_flip("run", optarg, &ro)))
				return rc;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("run", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error("run", "'labrun run' takes one experiment file");
	if ((rc = lr_expdef_load(&d, argv[optind], NULL))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (quiet || !isatty(STDERR_FILENO))
		ro.progress = NULL;
	if ((rc = cmd_open_store(&st, g, 1))) {
		exit_code = rc;
		goto out;
	}
	if ((rc = cmd_experiment_execute(st, &d, g->argv, 0, &ro, &run, &res)))
		goto fail;
	cmd_print_experiment(&d, &run, &res);
	exit_code = run.status == LR_PASSED ? LR_EXIT_OK : LR_EXIT_FAIL;
	goto out;
fail:
	exit_code = cmd_fail(rc);
out:
	free(res.cond);
	lr_expdef_release(&d);
	lr_run_release(&run);
	lr_store_free(st);
	return exit_code;
}
