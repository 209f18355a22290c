/*
 * Each benchmark's results as tables: what 'labrun bench' prints and
 * 'labrun report --run' prints again, in any format, through table.c.
 */
#include "config.h"
#include "base/system.h"

#include "report/report.h"
#include "report/text.h"
#include "experiment/collectbench.h"
#include "experiment/importbench.h"
#include "experiment/ingestbench.h"
#include "experiment/remotebench.h"
#include "experiment/storebench.h"

const struct lr_column lr_render_bench_encoder_cols[] = {
	{ "shape", "shape", LR_COL_DATA },
	{ "variant", "variant", 0 },
	{ "kind", "kind", LR_COL_DATA },
	{ "median_ms", "median ms", LR_COL_NUMBER },
	{ "gbps", "GB/s", LR_COL_NUMBER },
	{ "x_ceiling", "x ceiling", LR_COL_NUMBER },
	{ "vs_lookup", "vs lookup", LR_COL_NUMBER },
	{ "role", "role", 0 },
};
const int lr_render_bench_encoder_ncols = sizeof lr_render_bench_encoder_cols / sizeof lr_render_bench_encoder_cols[0];

void lr_render_bench_encoder_rows(struct lr_table *t, const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	char shape[128];

	snprintf(shape, sizeof shape, "%lld,%lld,%lld,%lld,%lld", (long long)o->shape[0], (long long)o->shape[1],
		 (long long)o->shape[2], (long long)o->shape[3], (long long)o->shape[4]);
	for (int i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		lr_table_text(t, shape);
		lr_table_text(t, v->name);
		lr_table_text(t, lr_bench_kind_name(v->kind));
		lr_table_real(t, v->median_ms, 3);
		lr_table_real(t, v->gbps, 2);
		lr_table_real(t, lr_bench_x_ceiling(r, i), 2);
		if ((v->kind == LR_BENCH_ENCODE || v->kind == LR_BENCH_PERMUTED) && r->lookup >= 0)
			lr_table_real(t, r->var[r->lookup].median_ms / v->median_ms, 2);
		else
			lr_table_none(t);
		lr_table_text(t, i == r->ceiling || i == r->file_copy ? "ceiling" : i == r->best ? "best kernel" : "");
	}
}

void lr_render_bench_encoder_heading(char *buf, size_t size, const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	snprintf(buf, size, "[%lld,%lld,%lld,%lld,%lld]: %lld elements, %.1f MiB in + %.1f MiB out", (long long)o->shape[0],
		 (long long)o->shape[1], (long long)o->shape[2], (long long)o->shape[3], (long long)o->shape[4],
		 (long long)r->elements, r->elements * 2 / 1048576.0, r->elements * 2 / 1048576.0);
}

void lr_render_bench_encoder_summary(char *buf, size_t size, const struct lr_bench_result *r, const char *sep)
{
	size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (r->best >= 0)
		ADD("Best kernel %s: %.2fx the ceiling's throughput", r->var[r->best].kernel,
		    r->var[r->best].gbps / r->var[r->ceiling].gbps);
	if (r->best >= 0 && r->lookup >= 0)
		ADD(", %.2fx faster than lookup", r->var[r->lookup].median_ms / r->var[r->best].median_ms);
	if (r->best >= 0 && r->contiguous >= 0)
		ADD("%sAuto takes %s at this size%s%s%s: %.3f ms = %.2fx the best kernel's time", n ? sep : "",
		    r->var[r->contiguous].kernel, r->auto_why ? " (" : "", r->auto_why ? r->auto_why : "",
		    r->auto_why ? ")" : "", r->var[r->contiguous].median_ms,
		    r->var[r->contiguous].median_ms / r->var[r->best].median_ms);
	if (r->permuted >= 0 && r->contiguous >= 0)
		ADD("%sPermuted view (%s): %.3f ms = %.2fx the contiguous encode", n ? sep : "", r->var[r->permuted].kernel,
		    r->var[r->permuted].median_ms, r->var[r->permuted].median_ms / r->var[r->contiguous].median_ms);
	if (r->file_copy >= 0 && r->file_encode >= 0)
		/* a throughput ratio, as the table's 'x ceiling' column and the best kernel's line give it */
		ADD("%sFile to file (%s): labrun encode %.3f ms = %.2fx the throughput of cp of the same file (%.3f ms)",
		    n ? sep : "", r->var[r->file_encode].kernel, r->var[r->file_encode].median_ms,
		    r->var[r->file_encode].gbps / r->var[r->file_copy].gbps, r->var[r->file_copy].median_ms);
	if (n)
		ADD(".");
#undef ADD
}

json_t *lr_render_bench_json(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	struct lr_table t;
	json_t *vars;

	lr_table_init(&t, lr_render_bench_encoder_cols, lr_render_bench_encoder_ncols);
	lr_render_bench_encoder_rows(&t, o, r);
	vars = lr_table_error(&t) ? json_null() : lr_render_table_json(&t);
	lr_table_release(&t);
	return json_pack("{s:[I,I,I,I,I], s:I, s:s, s:s, s:s, s:s, s:o, s:o}", "shape", (json_int_t)o->shape[0],
			 (json_int_t)o->shape[1], (json_int_t)o->shape[2], (json_int_t)o->shape[3], (json_int_t)o->shape[4],
			 "elements", (json_int_t)r->elements, "output_sha256", r->digest, "ceiling", r->var[r->ceiling].name,
			 "best", r->var[r->best].name, "permuted", r->var[r->permuted].name, "file_encode_x_cp",
			 r->file_copy >= 0 && r->file_encode >= 0
				 ? json_real(r->var[r->file_encode].gbps / r->var[r->file_copy].gbps)
				 : json_null(),
			 "variants", vars);
}

static const struct lr_column store_cols[] = {
	{ "repetitions", "repetitions", LR_COL_NUMBER }, { "runs", "runs", LR_COL_NUMBER },
	{ "store_s", "store s", LR_COL_NUMBER },	 { "record_ms", "record ms", LR_COL_NUMBER },
	{ "report_ms", "report ms", LR_COL_NUMBER },	 { "audit_ms", "audit ms", LR_COL_NUMBER },
};

void lr_render_bench_store_table(struct lr_table *t)
{
	lr_table_init(t, store_cols, sizeof store_cols / sizeof store_cols[0]);
}

void lr_render_bench_store_row(struct lr_table *t, const struct lr_storebench_row *r)
{
	lr_table_int(t, r->reps);
	lr_table_int(t, r->runs);
	lr_table_real(t, r->generate_s, 3);
	for (int op = 0; op < LR_STOREBENCH_OPS; op++)
		lr_table_real(t, r->median_s[op] * 1e3, 1);
}

void lr_render_bench_import_table(struct lr_table *t, const struct lr_importbench_result *r)
{
	static const struct lr_column cols[] = {
		{ "variant", "variant", 0 },
		{ "import_ms", "import ms", LR_COL_NUMBER },
		{ "ceiling_ms", "ceiling ms", LR_COL_NUMBER },
		{ "import_x_ceiling", "import x ceiling", LR_COL_NUMBER },
		{ "command_ms", "command ms", LR_COL_NUMBER },
		{ "command_x_ceiling", "command x ceiling", LR_COL_NUMBER },
		{ "tree_hash_ms", "tree hash ms", LR_COL_NUMBER },
		{ "command_x_ceilings", "command x (copy + tree hash)", LR_COL_NUMBER },
	};

	lr_table_init(t, cols, sizeof cols / sizeof cols[0]);
	for (int i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
		const struct lr_importbench_variant *v = &r->v[i];

		lr_table_text(t, v->name);
		lr_table_real(t, v->import_ms, 2);
		lr_table_real(t, v->ceiling_ms, 2);
		lr_table_real(t, v->x_import, 2);
		lr_table_real(t, v->command_ms, 1);
		lr_table_real(t, v->x_command, 1);
		if (v->tree_ms > 0) {
			lr_table_real(t, v->tree_ms, 2);
			lr_table_real(t, v->x_ceilings, 2);
		} else { /* stored before the tree-hash ceiling was measured */
			lr_table_none(t);
			lr_table_none(t);
		}
	}
}

void lr_render_bench_remote_table(struct lr_table *t, const struct lr_remotebench_result *r)
{
	static const struct lr_column cols[] = {
		{ "command", "command", 0 },
		{ "wall_s", "wall s", LR_COL_NUMBER },
		{ "objects_mib_per_s", "objects MiB/s", LR_COL_NUMBER },
		{ "peak_rss_mib", "peak RSS MiB", LR_COL_NUMBER },
	};
	const double mib = (double)r->bytes / (1 << 20), wall[2] = { r->push_s, r->pull_s },
		     rss[2] = { r->push_rss_kib / 1024.0, r->pull_rss_kib / 1024.0 };

	lr_table_init(t, cols, sizeof cols / sizeof cols[0]);
	for (int i = 0; i < 2; i++) {
		lr_table_text(t, i ? "pull" : "push");
		lr_table_real(t, wall[i], 2);
		lr_table_real(t, mib / wall[i], 0);
		lr_table_real(t, rss[i], 1);
	}
}

void lr_render_bench_collect_table(struct lr_table *t, const struct lr_collectbench_result *r)
{
	static const struct lr_column cols[] = {
		{ "concurrency", "concurrency", LR_COL_NUMBER },
		{ "client", "client", 0 },
		{ "cpu_us_per_token", "CPU us/token", LR_COL_NUMBER },
		{ "requests_per_s", "requests/s", LR_COL_NUMBER },
		{ "server_us_per_token", "server CPU us/token", LR_COL_NUMBER },
		{ "server_busy", "server busy", LR_COL_NUMBER },
		{ "x_peer_cpu", "x python CPU", LR_COL_NUMBER },
	};

	lr_table_init(t, cols, sizeof cols / sizeof cols[0]);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < LR_COLLECTBENCH_CLIENTS; k++) {
			const struct lr_collectbench_client *c = &r->l[i].c[k];

			lr_table_int(t, r->l[i].concurrency);
			lr_table_text(t, lr_collectbench_clients[k]);
			lr_table_real(t, c->cpu_us_per_token, 2);
			lr_table_real(t, c->requests_per_s, 0);
			lr_table_real(t, c->server_us_per_token, 2);
			lr_table_real(t, c->server_busy, 2);
			if (k == LR_COLLECTBENCH_LABRUN)
				lr_table_real(t, r->l[i].ratio, 3);
			else
				lr_table_none(t);
		}
}

void lr_render_bench_ingest_table(struct lr_table *t, const struct lr_ingestbench_result *r)
{
	static const struct lr_column cols[] = {
		{ "command", "command", 0 },
		{ "median_ms", "median ms", LR_COL_NUMBER },
		{ "mb_per_s", "MB/s of the file", LR_COL_NUMBER },
		{ "x_python", "x python", LR_COL_NUMBER },
	};
	const char *names[3] = { "labrun ingest responses", "python json.loads loop", "labrun compare (two sets)" };
	const double ms[3] = { r->ingest_ms, r->python_ms, r->compare_ms };

	lr_table_init(t, cols, sizeof cols / sizeof cols[0]);
	for (int i = 0; i < 3; i++) {
		lr_table_text(t, names[i]);
		lr_table_real(t, ms[i], 1);
		if (i < 2 && ms[i] > 0)
			lr_table_real(t, (double)r->bytes / 1e3 / ms[i], 1);
		else
			lr_table_none(t);
		if (i == 0)
			lr_table_real(t, r->x_python, 2);
		else
			lr_table_none(t);
	}
}
