/*
 * What a command says when it has run an experiment or compared two runs, as
 * text for a terminal: the experiment's outcome ('run') and a comparison
 * ('diff', 'replay').
 */
#include "config.h"
#include "base/system.h"

#include "experiment/compare.h"
#include "record/facts.h"
#include "experiment/expdef.h"
#include "experiment/report.h"
#include "experiment/runner.h"
#include "report/report.h"
#include "report/text.h"
#include "serving/report.h"

/* The serving evidence of a run: every cell accounted for, then every failing case and uncollected cell. */
static void print_serving(FILE *f, const struct lr_serving_report *sv)
{
	char text[512];
	size_t i;

	fprintf(f, "\nserving evidence: %s\n", lr_render_cells_text(text, sizeof text, sv));
	if (!sv->failing.n)
		return;
	fprintf(f, "failing and missing cases:\n");
	for (i = 0; i < sv->failing.n; i++) {
		fputs("  ", f);
		lr_term_text(f, sv->failing.v[i]);
		fputc('\n', f);
	}
}

/*
 * What parity was checked, and only that: a command experiment whose arms
 * declare no outputs compared none, and its responses' parity is the
 * serving evidence's (issue 42: 'parity: 1 passed' beside a failing
 * within-route parity said what was not so).
 */
static int print_parity(FILE *f, const struct lr_expdef *d, int cmd, int passed, int failed, int missing,
			const struct lr_serving_report *sv)
{
	int declared = !cmd;

	for (int a = 0; cmd && a < d->narms; a++)
		declared |= d->arms[a].outputs[0] != '\0';
	if (declared)
		fprintf(f, "\nparity: %d passed, %d failed, %d missing\n", passed, failed, missing);
	else
		fprintf(f,
			"\nconditions: %d passed, %d failed, %d missing (no arm declares outputs: no output parity checked)\n",
			passed, failed, missing);
	if (cmd && sv && sv->nrows)
		fprintf(f,
			"response parity: within-route %d exact, %d failing, %d never compared; cross-route %d exact, %d failing, %d never compared\n",
			sv->within.exact, sv->within.failing, sv->within.unchecked, sv->cross.exact, sv->cross.failing,
			sv->cross.unchecked);
	return declared;
}

void lr_render_outcome(FILE *f, const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r,
		       const struct lr_report_run *rr, const struct lr_serving_report *sv)
{
	int a, ci, passed = 0, failed = 0, missing = 0, cmd = d->target == LR_TARGET_COMMAND, declared;

	for (ci = 0; ci < r->nconditions; ci++) {
		if (!strcmp(r->cond[ci].status, "passed"))
			passed++;
		else if (!strcmp(r->cond[ci].status, "missing"))
			missing++;
		else
			failed++;
	}
	fprintf(f, "experiment %s (run %lld, %s)%s%s\n", d->name, (long long)run->id, lr_status_name(run->status),
		d->title[0] ? ": " : "", d->title);
	fprintf(f, "definition %s, sha256 %s\n", d->path, d->sha256);
	fprintf(f,
		"target %s, backend %s, seed %llu; design %s, %d timed blocks after %d warm-up, margin %g%%, timing thread on CPU %d\n",
		d->serving ? "serving" : lr_exp_target_name(d->target), lr_run_backend(run, d->backend),
		(unsigned long long)d->seed, lr_exp_order_name(d->order), d->blocks, d->warmup, d->margin * 100,
		r->cpu);
	fprintf(f, "arms:");
	for (a = 0; a < d->narms; a++)
		if (cmd)
			fprintf(f, "%s %s (route %s)%s", a ? "," : "", d->arms[a].name, d->arms[a].route,
				a == 0 ? " [baseline]" : "");
		else
			fprintf(f, "%s %s (kernel %s%s%s%s)%s", a ? "," : "", d->arms[a].name, r->kernel[a],
				d->target == LR_TARGET_IMPORT ? ", " : "",
				d->target == LR_TARGET_IMPORT ? lr_import_mode_name(d->arms[a].mode) : "",
				d->target == LR_TARGET_IMPORT
					? (d->arms[a].layout == LR_PATH_COPY ? "/copy" : "/strided")
					: "",
				a == 0 ? " [baseline]" : "");
	declared = print_parity(f, d, cmd, passed, failed, missing, sv);
	if (rr->ntables && (fputc('\n', f), lr_render_tables(f, rr)))
		fprintf(f, "(%s: the tables are missing)\n", lr_error_msg());
	if (sv) {
		char routes[256];
		int n, bad = lr_render_invalid_passes(sv, run->id, &n, routes, sizeof routes);

		if (bad)
			fprintf(f, "validity: %d of %d passes INVALID (%s); the comparison above includes them\n", bad,
				n, routes);
	}
	if (failed || missing) {
		fprintf(f, "\nfailed or missing conditions:\n");
		for (ci = 0; ci < r->nconditions; ci++)
			if (strcmp(r->cond[ci].status, "passed"))
				fprintf(f, "  %s: %s: %s\n", r->cond[ci].c.label, r->cond[ci].status,
					r->cond[ci].failure);
	}
	if (sv->nrows)
		print_serving(f, sv);
	if (cmd)
		fprintf(f,
			"\nValues are medians over the timed blocks (%s); change = exp(median ln((B1+B2)/(A1+A2))) - 1; the\n"
			"interval is the sign-test 95%% interval of the block ratios.\n",
			d->metric[0] ? "the metric each execution reported" : "measured wall-clock time per execution");
	else
		fprintf(f,
			"\nTimes are measured wall-clock medians per execution; reduction = 1 - exp(median ln((B1+B2)/(A1+A2))) over\n"
			"the timed blocks; the interval is the sign-test 95%% interval of the block ratios.\n");
	fprintf(f, "\nrun %lld %s: %d of %d condition(s) passed %s, %d failed, %d missing", (long long)run->id,
		lr_status_name(run->status), passed, r->nconditions, declared ? "parity" : "(no output parity checked)",
		failed, missing);
	if (sv->nrows)
		fprintf(f,
			"; serving: %d failing comparison case(s), %d failing gate case(s), %d uncollected cell(s)%s",
			sv->failing_compared, sv->failing_gated, sv->uncollected,
			sv->failing.n ? " (listed above)" : "");
	fprintf(f, "\n");
}

/* One line: how many differences of each kind, in the order they were found. */
static void print_difference_summary(FILE *f, const struct lr_comparison *cmp, int replay)
{
	size_t i, j;
	int n, first = 1;

	if (!cmp->ndrift)
		goto outputs;
	fprintf(f, "differences:");
	for (i = 0; i < cmp->ndrift; i++) {
		for (j = 0; j < i && strcmp(cmp->drift[j].what, cmp->drift[i].what); j++)
			;
		if (j < i)
			continue; /* counted with its first */
		for (n = 0, j = i; j < cmp->ndrift; j++)
			n += !strcmp(cmp->drift[j].what, cmp->drift[i].what);
		fprintf(f, "%s %d %s", first ? "" : ",", n, cmp->drift[i].what);
		first = 0;
	}
	fputc('\n', f);
outputs:
	if (!cmp->experiments && !replay)
		fprintf(f, "outputs: %s\n",
			cmp->outputs_match ? "identical (logs, artifacts and digests)" : "DIFFER (see 'output' above)");
}

void lr_render_comparison(FILE *f, const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp,
			  int replay)
{
	size_t i;
	int c;

	fprintf(f, "run %lld (%s, %s) against run %lld (%s, %s)\n", (long long)b->id, lr_run_kind_name(b->kind),
		lr_status_name(b->status), (long long)a->id, lr_run_kind_name(a->kind), lr_status_name(a->status));
	fprintf(f, "drift:\n");
	for (i = 0; i < cmp->ndrift; i++)
		fprintf(f, "  %-12s %-24s %s -> %s\n", cmp->drift[i].what, cmp->drift[i].key, cmp->drift[i].a,
			cmp->drift[i].b);
	if (!cmp->ndrift)
		fprintf(f, "  none: sources, binding, geometry, host and tool versions are the same\n");
	for (i = 0; i < 2; i++) {
		char cards[512];

		lr_run_cards_said(i ? b : a, cards, sizeof cards);
		if (cards[0])
			fprintf(f, "cards: in run %lld %s\n", (long long)(i ? b : a)->id, cards);
	}
	print_difference_summary(f, cmp, replay); /* a replay gives its own verdict on its outputs */
	if (!cmp->experiments)
		return;
	if (!cmp->comparable) {
		fprintf(f, "outputs: not comparable: the definitions differ in conditions or arms (%s vs %s)\n",
			cmp->a_definition, cmp->b_definition);
		return;
	}
	fprintf(f, "outputs and timing, condition by condition (baseline arm '%s'; ratio = run %lld / run %lld):\n",
		cmp->baseline, (long long)b->id, (long long)a->id);
	for (c = 0; c < cmp->ncond; c++) {
		const struct lr_cond_compare *x = &cmp->cond[c];

		fprintf(f, "  %s: ", cmp->where[c].label);
		if (x->outputs_match)
			fprintf(f, "outputs identical");
		else
			fprintf(f, "OUTPUTS DIFFER: arm '%s' sha256 %.12s -> %.12s", cmp->arm_names[x->first_arm],
				x->a_sha, x->b_sha);
		if (x->has_timing && x->timing.k)
			fprintf(f, "; timing ratio %.3f [%.3f, %.3f] over %d blocks\n", x->timing.ratio, x->timing.lo,
				x->timing.hi, x->timing.n);
		else if (x->has_timing)
			fprintf(f, "; timing ratio %.3f (too few blocks for an interval)\n", x->timing.ratio);
		else
			fprintf(f, "; no timing to compare\n");
	}
}
