/* Printing that several commands share: an experiment's outcome, its progress, run comparisons. */
#include "config.h"
#include "base/system.h"

#include <stdarg.h>

#include "base/clock.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "experiment/compare.h"
#include "experiment/expdef.h"
#include "experiment/runner.h"
#include "serving/report.h"

/* ---- progress ---------------------------------------------------------------- */

/*
 * How commands show progress (base/progress.h is how work reports it): on a
 * terminal, one line rewritten in place; off a terminal, with --progress or
 * LABRUN_PROGRESS=1, a line every few seconds (for a CI log or a script's
 * output); otherwise nothing, so output captured by a script stays as it was.
 */
#define TERMINAL_INTERVAL_S 0.2
#define LINES_INTERVAL_S 5.0

static const char *command;
static enum cmd_progress_mode mode;
static double next;	/* cmd_progress_text's: its own callers are not rate-limited */
static int pending;	/* a terminal line is showing */

static void emit(const char *text, int final)
{
	if (mode == CMD_PROGRESS_TERMINAL) {
		/* the final state is cleared: the command's own summary follows */
		fprintf(stderr, final ? "\r\033[K" : "\r%s: %s\033[K", command, text);
		pending = !final;
	} else {
		fprintf(stderr, "%s: %s\n", command, text);
	}
	fflush(stderr);
}

static void show(void *arg, const char *title, const char *unit, int64_t done, int64_t total, double elapsed_s,
		 int final)
{
	char text[256];

	(void)arg;
	if (total >= 0)
		snprintf(text, sizeof text, "%s %lld of %lld %s, %.0f s%s", title, (long long)done, (long long)total, unit,
			 elapsed_s, final ? ", done" : "");
	else
		snprintf(text, sizeof text, "%s %lld %s, %.0f s%s", title, (long long)done, unit, elapsed_s,
			 final ? ", done" : "");
	emit(text, final && mode == CMD_PROGRESS_TERMINAL);
}

enum cmd_progress_mode cmd_progress_begin(const char *cmd, int asked, int quiet)
{
	const char *env = getenv("LABRUN_PROGRESS");
	struct lr_progress_sink sink = { show, NULL, TERMINAL_INTERVAL_S, 1 };

	command = cmd;
	mode = CMD_PROGRESS_OFF;
	if (quiet)
		;
	else if (isatty(STDERR_FILENO) && (asked || !env || strcmp(env, "0")))
		mode = CMD_PROGRESS_TERMINAL;
	else if (!isatty(STDERR_FILENO) && (asked || (env && !strcmp(env, "1"))))
		mode = CMD_PROGRESS_LINES;
	if (mode == CMD_PROGRESS_LINES) { /* a log gets a line every few seconds, however fast the work goes */
		sink.interval_s = LINES_INTERVAL_S;
		sink.percent = 0;
	}
	lr_progress_sink_set(mode == CMD_PROGRESS_OFF ? NULL : &sink);
	next = 0;
	return mode;
}

void cmd_progress_text(int force, const char *fmt, ...)
{
	double now = lr_monotonic_s();
	char text[256];
	va_list ap;

	if (mode == CMD_PROGRESS_OFF || (!force && now < next))
		return;
	next = now + (mode == CMD_PROGRESS_TERMINAL ? TERMINAL_INTERVAL_S : LINES_INTERVAL_S);
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	emit(text, 0);
}

void cmd_progress_clear(void)
{
	if (pending)
		emit("", 1);
}

void cmd_progress_end(void)
{
	cmd_progress_clear();
	lr_progress_sink_set(NULL);
	mode = CMD_PROGRESS_OFF;
}

void cmd_run_progress(void *arg, const struct lr_run_progress *p)
{
	(void)arg;
	cmd_progress_text(0, "condition %d/%d, block %d/%d, %.0f s elapsed, about %.0f s left", p->condition + 1,
			  p->nconditions, p->block + 1, p->nblocks, p->elapsed_s, p->eta_s);
}

/* The serving evidence of a run: every cell accounted for, then every failing case and uncollected cell. */
static void print_serving(const struct lr_serving_report *sv)
{
	char text[512];
	size_t i;

	printf("\nserving evidence: %s\n", cmd_render_cells_text(text, sizeof text, sv));
	if (!sv->failing.n)
		return;
	printf("failing and missing cases:\n");
	for (i = 0; i < sv->failing.n; i++) {
		fputs("  ", stdout);
		cmd_term_text(stdout, sv->failing.v[i]);
		putchar('\n');
	}
}

void cmd_print_experiment(const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r,
			  const struct lr_report_run *rr, const struct lr_serving_report *sv)
{
	int a, ci, passed = 0, failed = 0, missing = 0, cmd = d->target == LR_TARGET_COMMAND;

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
	       d->serving ? "serving" : lr_exp_target_name(d->target), d->backend, (unsigned long long)d->seed,
	       d->order == LR_ORDER_ABBA ? "abba" : "random", d->blocks, d->warmup, d->margin * 100, r->cpu);
	printf("arms:");
	for (a = 0; a < d->narms; a++)
		if (cmd)
			printf("%s %s (route %s)%s", a ? "," : "", d->arms[a].name, d->arms[a].route, a == 0 ? " [baseline]" : "");
		else
			printf("%s %s (kernel %s%s%s%s)%s", a ? "," : "", d->arms[a].name, r->kernel[a],
			       d->target == LR_TARGET_IMPORT ? ", " : "",
			       d->target == LR_TARGET_IMPORT ? lr_import_mode_name(d->arms[a].mode) : "",
			       d->target == LR_TARGET_IMPORT ? (d->arms[a].layout == LR_PATH_COPY ? "/copy" : "/strided") : "",
			       a == 0 ? " [baseline]" : "");
	printf("\nparity: %d passed, %d failed, %d missing\n", passed, failed, missing);
	cmd_render_tables(stdout, rr);
	if (failed || missing) {
		printf("\nfailed or missing conditions:\n");
		for (ci = 0; ci < r->nconditions; ci++)
			if (strcmp(r->cond[ci].status, "passed"))
				printf("  %s: %s: %s\n", r->cond[ci].c.label, r->cond[ci].status, r->cond[ci].failure);
	}
	if (sv->nrows)
		print_serving(sv);
	if (cmd)
		printf("\nValues are medians over the timed blocks (%s); change = exp(median ln((B1+B2)/(A1+A2))) - 1; the\n"
		       "interval is the sign-test 95%% interval of the block ratios.\n",
		       d->metric[0] ? "the metric each execution reported" : "measured wall-clock time per execution");
	else
		printf("\nTimes are measured wall-clock medians per execution; reduction = 1 - exp(median ln((B1+B2)/(A1+A2))) over\n"
		       "the timed blocks; the interval is the sign-test 95%% interval of the block ratios.\n");
	printf("\nrun %lld %s: %d of %d condition(s) passed parity, %d failed, %d missing", (long long)run->id,
	       lr_status_name(run->status), passed, r->nconditions, failed, missing);
	if (sv->nrows)
		printf("; serving: %d failing comparison case(s), %d failing gate case(s), %d uncollected cell(s)%s",
		       sv->failing_compared, sv->failing_gated, sv->uncollected, sv->failing.n ? " (listed above)" : "");
	printf("\n");
}

/* One line: how many differences of each kind, in the order they were found. */
static void print_difference_summary(const struct lr_comparison *cmp, int replay)
{
	size_t i, j;
	int n, first = 1;

	if (!cmp->ndrift)
		goto outputs;
	printf("differences:");
	for (i = 0; i < cmp->ndrift; i++) {
		for (j = 0; j < i && strcmp(cmp->drift[j].what, cmp->drift[i].what); j++)
			;
		if (j < i)
			continue; /* counted with its first */
		for (n = 0, j = i; j < cmp->ndrift; j++)
			n += !strcmp(cmp->drift[j].what, cmp->drift[i].what);
		printf("%s %d %s", first ? "" : ",", n, cmp->drift[i].what);
		first = 0;
	}
	putchar('\n');
outputs:
	if (!cmp->experiments && !replay)
		printf("outputs: %s\n", cmp->outputs_match ? "identical (logs, artifacts and digests)" : "DIFFER (see 'output' above)");
}

void cmd_print_comparison(const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp, int replay)
{
	size_t i;
	int c;

	printf("run %lld (%s, %s) against run %lld (%s, %s)\n", (long long)b->id, lr_run_kind_name(b->kind),
	       lr_status_name(b->status), (long long)a->id, lr_run_kind_name(a->kind), lr_status_name(a->status));
	printf("drift:\n");
	for (i = 0; i < cmp->ndrift; i++)
		printf("  %-12s %-24s %s -> %s\n", cmp->drift[i].what, cmp->drift[i].key, cmp->drift[i].a, cmp->drift[i].b);
	if (!cmp->ndrift)
		printf("  none: sources, binding, geometry, host and tool versions are the same\n");
	print_difference_summary(cmp, replay); /* a replay gives its own verdict on its outputs */
	if (!cmp->experiments)
		return;
	if (!cmp->comparable) {
		printf("outputs: not comparable: the definitions differ in conditions or arms (%s vs %s)\n",
		       cmp->a_definition, cmp->b_definition);
		return;
	}
	printf("outputs and timing, condition by condition (baseline arm '%s'; ratio = run %lld / run %lld):\n",
	       cmp->baseline, (long long)b->id, (long long)a->id);
	for (c = 0; c < cmp->ncond; c++) {
		const struct lr_cond_compare *x = &cmp->cond[c];

		printf("  %s: ", cmp->where[c].label);
		if (x->outputs_match)
			printf("outputs identical");
		else
			printf("OUTPUTS DIFFER: arm '%s' sha256 %.12s -> %.12s", cmp->arm_names[x->first_arm], x->a_sha,
			       x->b_sha);
		if (x->has_timing && x->timing.k)
			printf("; timing ratio %.3f [%.3f, %.3f] over %d blocks\n", x->timing.ratio, x->timing.lo,
			       x->timing.hi, x->timing.n);
		else if (x->has_timing)
			printf("; timing ratio %.3f (too few blocks for an interval)\n", x->timing.ratio);
		else
			printf("; no timing to compare\n");
	}
}
