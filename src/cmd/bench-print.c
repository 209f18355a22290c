/* The benchmarks' tables and JSON, as 'labrun bench' prints them and 'labrun report' prints them again. */
#include "config.h"
#include "base/system.h"

#include "cmd/cmd.h"
#include "experiment/importbench.h"

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
