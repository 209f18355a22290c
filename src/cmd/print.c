/* Printing that several commands share: experiment reports, progress, run comparisons. */
#include "config.h"
#include "base/system.h"

#include "cmd/cmd.h"
#include "experiment/compare.h"
#include "experiment/expdef.h"
#include "experiment/importbench.h"
#include "experiment/runner.h"

void cmd_run_progress(void *arg, const struct lr_run_progress *p)
{
	(void)arg;
	fprintf(stderr, "\rcondition %d/%d, block %d/%d, %.0f s elapsed, about %.0f s left   ", p->condition + 1,
		p->nconditions, p->block + 1, p->nblocks, p->elapsed_s, p->eta_s);
	fflush(stderr);
}

void cmd_print_experiment(const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r,
			  const struct lr_report_run *rr)
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
	       lr_exp_target_name(d->target), d->backend, (unsigned long long)d->seed,
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
	if (cmd)
		printf("\nValues are medians over the timed blocks (%s); change = exp(median ln((B1+B2)/(A1+A2))) - 1; the\n"
		       "interval is the sign-test 95%% interval of the block ratios.\n",
		       d->metric[0] ? "the metric each execution reported" : "measured wall-clock time per execution");
	else
		printf("\nTimes are measured wall-clock medians per execution; reduction = 1 - exp(median ln((B1+B2)/(A1+A2))) over\n"
		       "the timed blocks; the interval is the sign-test 95%% interval of the block ratios.\n");
}

/* One line: how many differences of each kind, in the order they were found. */
static void print_difference_summary(const struct lr_comparison *cmp)
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
	if (!cmp->experiments)
		printf("outputs: %s\n", cmp->outputs_match ? "identical (logs, artifacts and digests)" : "DIFFER (see 'output' above)");
}

void cmd_print_comparison(const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp)
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
	print_difference_summary(cmp);
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

/* One shape of an encoder benchmark as the tables print it. */
void cmd_bench_print(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	const struct lr_bench_variant *ceil = &r->var[r->ceiling];
	int i;

	printf("\nshape [%lld,%lld,%lld,%lld,%lld]: %lld elements, %.1f MiB in + %.1f MiB out\n",
	       (long long)o->shape[0], (long long)o->shape[1], (long long)o->shape[2], (long long)o->shape[3],
	       (long long)o->shape[4], (long long)r->elements, r->elements * 2 / 1048576.0,
	       r->elements * 2 / 1048576.0);
	printf("parity: every encoder and the permuted view give identical bytes (sha256 %.16s...)\n", r->digest);
	printf("  %-34s %10s %8s %10s %9s\n", "variant", "median ms", "GB/s", "x ceiling", "vs lookup");
	for (i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		printf("  %-34s %10.3f %8.2f %10.2f", v->name, v->median_ms, v->gbps, lr_bench_x_ceiling(r, i));
		if ((v->kind == LR_BENCH_ENCODE || v->kind == LR_BENCH_PERMUTED) && r->lookup >= 0)
			printf(" %8.2fx", r->var[r->lookup].median_ms / v->median_ms);
		else
			printf(" %9s", "");
		if (i == r->ceiling || i == r->file_copy)
			printf("  <- ceiling");
		if (i == r->best)
			printf("  <- best kernel");
		putchar('\n');
	}
	printf("best kernel %s: %.2fx the ceiling's throughput, %.2fx faster than lookup\n",
	       r->var[r->best].kernel, r->var[r->best].gbps / ceil->gbps,
	       r->lookup >= 0 ? r->var[r->lookup].median_ms / r->var[r->best].median_ms : 0.0);
	printf("permuted view (%s): %.3f ms = %.2fx the contiguous encode\n", r->var[r->permuted].kernel,
	       r->var[r->permuted].median_ms, r->var[r->permuted].median_ms / r->var[r->contiguous].median_ms);
	if (r->file_copy >= 0 && r->file_encode >= 0)
		printf("file to file (%s): labrun encode %.3f ms = %.2fx cp of the same file (%.3f ms)\n",
		       r->var[r->file_encode].kernel, r->var[r->file_encode].median_ms,
		       r->var[r->file_encode].median_ms / r->var[r->file_copy].median_ms, r->var[r->file_copy].median_ms);
}

/* One shape's result as JSON: every variant measured, the ratios the tables print. */
json_t *cmd_bench_json(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	const struct lr_bench_variant *ceil = &r->var[r->ceiling];
	json_t *vars = json_array();
	int i;

	for (i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		json_array_append_new(vars, json_pack("{s:s, s:s, s:f, s:f, s:f, s:o}", "name", v->name, "kind",
						      lr_bench_kind_name(v->kind), "median_ms", v->median_ms, "gbps", v->gbps,
						      "x_ceiling", lr_bench_x_ceiling(r, i), "vs_lookup",
						      (v->kind == LR_BENCH_ENCODE || v->kind == LR_BENCH_PERMUTED) && r->lookup >= 0
									   ? json_real(r->var[r->lookup].median_ms / v->median_ms)
									   : json_null()));
	}
	return json_pack("{s:[I,I,I,I,I], s:I, s:s, s:s, s:s, s:s, s:o, s:o}", "shape", (json_int_t)o->shape[0],
			 (json_int_t)o->shape[1], (json_int_t)o->shape[2], (json_int_t)o->shape[3], (json_int_t)o->shape[4],
			 "elements", (json_int_t)r->elements, "output_sha256", r->digest, "ceiling", ceil->name, "best",
			 r->var[r->best].name, "permuted", r->var[r->permuted].name, "file_encode_x_cp",
			 r->file_copy >= 0 && r->file_encode >= 0
				 ? json_real(r->var[r->file_encode].median_ms / r->var[r->file_copy].median_ms)
				 : json_null(),
			 "variants", vars);
}

/* An import benchmark's table. */
void cmd_bench_import_print(const struct lr_importbench_result *r)
{
	int i;

	printf("  %-16s %11s %11s %10s %12s %10s\n", "variant", "import ms", "ceiling ms", "x ceiling", "command ms",
	       "x ceiling");
	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
		const struct lr_importbench_variant *v = &r->v[i];

		printf("  %-16s %11.2f %11.2f %10.2f %12.1f %10.1f\n", v->name, v->import_ms, v->ceiling_ms, v->x_import,
		       v->command_ms, v->x_command);
	}
}

/* An import benchmark's variants as JSON. */
json_t *cmd_bench_import_json(const struct lr_importbench_result *r)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
		const struct lr_importbench_variant *v = &r->v[i];

		json_array_append_new(a, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "variant", v->name, "import_ms",
						   v->import_ms, "ceiling_ms", v->ceiling_ms, "import_x_ceiling", v->x_import,
						   "command_ms", v->command_ms, "command_x_ceiling", v->x_command));
	}
	return a;
}
