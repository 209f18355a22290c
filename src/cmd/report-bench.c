#include "config.h"
#include "base/system.h"

#include "base/csv.h"
#include "cmd/cmd.h"
#include "cmd/report-int.h"
#include "experiment/benchjob.h"
#include "experiment/importbench.h"
#include "experiment/remotebench.h"
#include "experiment/storebench.h"

/*
 * 'labrun report --run ID' of a 'bench' run: the benchmark's tables again,
 * every median recomputed from the stored time of each repetition.
 */

static const char bench_method[] =
	"Measured, not modelled. Every figure is recomputed from the stored time of each repetition\n"
	"(the first dropped as warm-up; the median of the rest). GB/s counts bytes read plus bytes\n"
	"written; x ceiling is a variant's throughput over the fastest copy of the same bytes, measured\n"
	"in the same run; vs lookup is the lookup kernel's time over the variant's.";

static const char *binding(const struct lr_run *run, const char *key)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, key);

	return e ? e->value : "?";
}

static void md_settings(FILE *f, const struct lr_run *run)
{
	char *cmdline = cmd_argv_text(run->argv_json);

	fprintf(f, "* Command: `%s` (started %s), %s%s%s\n", cmdline ? cmdline : run->argv_json,
		run->started_at ? run->started_at : "?", lr_status_name(run->status), run->failure ? ": " : "",
		run->failure ? run->failure : "");
	fprintf(f, "* Host: %s, %s, %lld CPUs, %s, kernel %s; timing thread pinned to CPU %s\n", run->host.hostname,
		run->host.cpu_model ? run->host.cpu_model : "unknown CPU", (long long)run->host.cores,
		run->host.os ? run->host.os : "unknown OS", run->host.kernel, binding(run, "pinned_cpu"));
	fprintf(f, "* Settings: %s repetitions per variant (first dropped), contract %s, seed %s, auto kernel %s, "
		   "%s thread(s)\n\n", binding(run, "reps"), binding(run, "contract"), binding(run, "seed"),
		binding(run, "auto_kernel"), binding(run, "threads"));
	free(cmdline);
}

static void md_shape(FILE *f, const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	const struct lr_bench_variant *ceil = &r->var[r->ceiling];
	int i;

	fprintf(f, "## [%lld,%lld,%lld,%lld,%lld]: %lld elements, %.1f MiB in + %.1f MiB out\n\n",
		(long long)o->shape[0], (long long)o->shape[1], (long long)o->shape[2], (long long)o->shape[3],
		(long long)o->shape[4], (long long)r->elements, r->elements * 2 / 1048576.0, r->elements * 2 / 1048576.0);
	fprintf(f, "Every encoder and the permuted view gave the same bytes, sha256 `%s`.\n\n", r->digest);
	fputs("| variant | median ms | GB/s | x ceiling | vs lookup |\n|---|---:|---:|---:|---:|\n", f);
	for (i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		fprintf(f, "| %s%s | %.3f | %.2f | %.2f |", v->name,
			i == r->ceiling || i == r->file_copy ? " (ceiling)" : i == r->best ? " (best kernel)" : "",
			v->median_ms, v->gbps, lr_bench_x_ceiling(r, i));
		if ((v->kind == LR_BENCH_ENCODE || v->kind == LR_BENCH_PERMUTED) && r->lookup >= 0)
			fprintf(f, " %.2fx |\n", r->var[r->lookup].median_ms / v->median_ms);
		else
			fputs(" |\n", f);
	}
	if (r->best >= 0)
		fprintf(f, "\nBest kernel %s: %.2fx the ceiling's throughput", r->var[r->best].kernel,
			r->var[r->best].gbps / ceil->gbps);
	if (r->best >= 0 && r->lookup >= 0)
		fprintf(f, ", %.2fx faster than lookup", r->var[r->lookup].median_ms / r->var[r->best].median_ms);
	if (r->permuted >= 0 && r->contiguous >= 0)
		fprintf(f, ". Permuted view (%s): %.3f ms = %.2fx the contiguous encode", r->var[r->permuted].kernel,
			r->var[r->permuted].median_ms, r->var[r->permuted].median_ms / r->var[r->contiguous].median_ms);
	if (r->file_copy >= 0 && r->file_encode >= 0)
		fprintf(f, ". File to file: labrun encode %.3f ms = %.2fx cp of the same file",
			r->var[r->file_encode].median_ms, r->var[r->file_encode].median_ms / r->var[r->file_copy].median_ms);
	fputs(".\n\n", f);
}

static int write_csv(FILE *f, const struct lr_bench_opts *o, const struct lr_bench_result *r, int n)
{
	static const char *const head[] = { "shape", "variant", "kind", "median_ms", "gbps", "x_ceiling", "vs_lookup" };
	char shape[128], a[LR_DOUBLE_TEXT], b[LR_DOUBLE_TEXT], c[LR_DOUBLE_TEXT], d[LR_DOUBLE_TEXT];
	int s, i, rc = lr_csv_write_row(f, head, 7);

	for (s = 0; !rc && s < n; s++)
		for (i = 0; !rc && i < r[s].nvar; i++) {
			const struct lr_bench_variant *v = &r[s].var[i];
			const char *row[7] = { shape, v->name,
					       lr_bench_kind_name(v->kind), lr_double_text(a, v->median_ms),
					       lr_double_text(b, v->gbps), lr_double_text(c, lr_bench_x_ceiling(&r[s], i)), "" };

			snprintf(shape, sizeof shape, "%lld,%lld,%lld,%lld,%lld", (long long)o[s].shape[0],
				 (long long)o[s].shape[1], (long long)o[s].shape[2], (long long)o[s].shape[3],
				 (long long)o[s].shape[4]);
			if ((v->kind == LR_BENCH_ENCODE || v->kind == LR_BENCH_PERMUTED) && r[s].lookup >= 0)
				row[6] = lr_double_text(d, r[s].var[r[s].lookup].median_ms / v->median_ms);
			rc = lr_csv_write_row(f, row, 7);
		}
	return rc;
}

static void write_json(FILE *f, const struct lr_run *run, const struct lr_bench_opts *o,
		       const struct lr_bench_result *r, int n)
{
	json_t *shapes = json_array();
	int s;

	for (s = 0; s < n; s++)
		json_array_append_new(shapes, cmd_bench_json(&o[s], &r[s]));
	json_t *root = json_pack("{s:I, s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:b, s:{s:s, s:s, s:I, s:s}, s:s, s:o}", "run",
				 (json_int_t)run->id, "status", lr_status_name(run->status), "failure", run->failure,
				 "reps", binding(run, "reps"), "threads", binding(run, "threads"), "contract", binding(run, "contract"), "seed",
				 binding(run, "seed"), "auto_kernel", binding(run, "auto_kernel"), "modelled", 0, "host",
				 "hostname", run->host.hostname, "cpu", run->host.cpu_model ? run->host.cpu_model : "unknown",
				 "cpus", (json_int_t)run->host.cores, "kernel", run->host.kernel, "cpu",
				 binding(run, "pinned_cpu"), "shapes", shapes);

	json_dumpf(root, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
}

/* The Markdown, as a page: the tables as HTML tables, the prose escaped. */
static void write_html(FILE *f, const struct lr_run *run, const struct lr_bench_opts *o,
		       const struct lr_bench_result *r, int n)
{
	char title[64];
	int s, i;

	snprintf(title, sizeof title, "run %lld (bench encoder)", (long long)run->id);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: ", f);
	cmd_html_text(f, title);
	fputs("</title>\n<style>body{font:14px/1.45 sans-serif;margin:24px;max-width:1100px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:3px 8px}"
	      "td.n{text-align:right}</style>\n</head><body>\n<h1>labrun report: ", f);
	cmd_html_text(f, title);
	fputs("</h1>\n<p>", f);
	cmd_html_text(f, bench_method);
	fputs("</p>\n<p>Host: ", f);
	cmd_html_text(f, run->host.hostname);
	fputs(", ", f);
	cmd_html_text(f, run->host.cpu_model ? run->host.cpu_model : "unknown CPU");
	fputs("; timing thread pinned to CPU ", f);
	cmd_html_text(f, binding(run, "pinned_cpu"));
	fputs("</p>\n", f);
	for (s = 0; s < n; s++) {
		fprintf(f, "<h2>[%lld,%lld,%lld,%lld,%lld]</h2>\n<table><tr><th>variant</th><th>median ms</th><th>GB/s</th>"
			   "<th>x ceiling</th></tr>\n", (long long)o[s].shape[0], (long long)o[s].shape[1],
			(long long)o[s].shape[2], (long long)o[s].shape[3], (long long)o[s].shape[4]);
		for (i = 0; i < r[s].nvar; i++) {
			fputs("<tr><td>", f);
			cmd_html_text(f, r[s].var[i].name);
			fprintf(f, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td></tr>\n",
				r[s].var[i].median_ms, r[s].var[i].gbps, lr_bench_x_ceiling(&r[s], i));
		}
		fputs("</table>\n", f);
	}
	fputs("</body></html>\n", f);
}

/* Print a JSON document and release it. */
static void dump(FILE *f, json_t *root)
{
	json_dumpf(root, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
}

/* ---- bench store ---------------------------------------------------------------- */

static const char store_method[] =
	"Measured, not modelled: the wall time of labrun itself, run as a user runs it on a store of N\n"
	"repetitions (record -q -- true outside a git work tree, report --issue 270, audit), the median\n"
	"of each command's runs with the first dropped. The repetitions in those stores are synthetic:\n"
	"stored, sealed and chained as 'labrun run' stores them, with generated times.";

static void store_cells(const struct lr_storebench_row *r, char cells[6][32])
{
	snprintf(cells[0], 32, "%lld", (long long)r->reps);
	snprintf(cells[1], 32, "%d", r->runs);
	snprintf(cells[2], 32, "%.3f", r->generate_s);
	snprintf(cells[3], 32, "%.1f", r->median_s[0] * 1e3);
	snprintf(cells[4], 32, "%.1f", r->median_s[1] * 1e3);
	snprintf(cells[5], 32, "%.1f", r->median_s[2] * 1e3);
}

static int store_report(FILE *f, const struct lr_run *run, const char *format)
{
	static const char *const head[6] = { "repetitions", "runs", "store_s", "record_ms", "report_ms", "audit_ms" };
	struct lr_storebench_row *rows = NULL;
	char cells[6][32];
	int n = 0, i, c, rc;

	if ((rc = lr_storebench_job_results(run, &rows, &n)))
		return rc;
	if (!strcmp(format, "csv")) {
		rc = lr_csv_write_row(f, head, 6);
		for (i = 0; !rc && i < n; i++) {
			const char *row[6];

			store_cells(&rows[i], cells);
			for (c = 0; c < 6; c++)
				row[c] = cells[c];
			rc = lr_csv_write_row(f, row, 6);
		}
	} else if (!strcmp(format, "json")) {
		json_t *scales = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(scales, json_pack("{s:I, s:i, s:f, s:f, s:f, s:f}", "repetitions",
								(json_int_t)rows[i].reps, "runs", rows[i].runs, "generate_s",
								rows[i].generate_s, "record_ms", rows[i].median_s[0] * 1e3,
								"report_ms", rows[i].median_s[1] * 1e3, "audit_ms",
								rows[i].median_s[2] * 1e3));
		json_t *root = json_pack("{s:I, s:s, s:s, s:s, s:b, s:{s:s, s:s, s:I}, s:o}", "run", (json_int_t)run->id,
					 "status", lr_status_name(run->status), "benchmark", "store", "reps",
					 binding(run, "reps"), "modelled", 0, "host", "hostname", run->host.hostname, "cpu",
					 run->host.cpu_model ? run->host.cpu_model : "unknown", "cpus",
					 (json_int_t)run->host.cores, "scales", scales);

		dump(f, root);
	} else {
		int html = !strcmp(format, "html");

		fprintf(f, html ? "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: run "
				  "%lld (bench store)</title></head><body>\n<h1>labrun report: run %lld (bench store)</h1>\n<p>"
				: "# labrun report: run %lld (bench store)\n\n", (long long)run->id, (long long)run->id);
		if (html)
			cmd_html_text(f, store_method);
		else
			fputs(store_method, f);
		fprintf(f, html ? "</p>\n<p>Host: " : "\n\n* Host: ");
		if (html)
			cmd_html_text(f, run->host.cpu_model ? run->host.cpu_model : "unknown CPU");
		else
			fputs(run->host.cpu_model ? run->host.cpu_model : "unknown CPU", f);
		fprintf(f, html ? ", %lld CPUs</p>\n<table><tr>" : ", %lld CPUs; %s runs of each command per scale\n\n|",
			(long long)run->host.cores, binding(run, "reps"));
		for (c = 0; c < 6; c++)
			fprintf(f, html ? "<th>%s</th>" : " %s |", head[c]);
		fputs(html ? "</tr>\n" : "\n|---:|---:|---:|---:|---:|---:|\n", f);
		for (i = 0; i < n; i++) {
			store_cells(&rows[i], cells);
			fputs(html ? "<tr>" : "|", f);
			for (c = 0; c < 6; c++)
				fprintf(f, html ? "<td>%s</td>" : " %s |", cells[c]);
			fputs(html ? "</tr>\n" : "\n", f);
		}
		if (html)
			fputs("</table>\n</body></html>\n", f);
	}
	free(rows);
	return rc;
}

/* ---- bench import ---------------------------------------------------------------- */

static int import_report(FILE *f, const struct lr_run *run, const char *format)
{
	static const char *const head[6] = { "variant", "import_ms", "ceiling_ms", "import_x_ceiling", "command_ms",
					     "command_x_ceiling" };
	const struct lr_kv *model = lr_kvlist_find(&run->geometry, "model"), *tokens = lr_kvlist_find(&run->geometry, "tokens");
	struct lr_importbench_result *r = malloc(sizeof *r);
	char cells[5][LR_DOUBLE_TEXT];
	int i, rc;

	if (!r)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_importbench_job_results(run, r)))
		goto out;
	if (!strcmp(format, "csv")) {
		rc = lr_csv_write_row(f, head, 6);
		for (i = 0; !rc && i < LR_IMPORTBENCH_VARIANTS; i++) {
			const struct lr_importbench_variant *v = &r->v[i];
			const char *row[6] = { v->name, lr_double_text(cells[0], v->import_ms), lr_double_text(cells[1], v->ceiling_ms),
					       lr_double_text(cells[2], v->x_import), lr_double_text(cells[3], v->command_ms),
					       lr_double_text(cells[4], v->x_command) };

			rc = lr_csv_write_row(f, row, 6);
		}
	} else if (!strcmp(format, "json")) {
		json_t *root = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:{s:s, s:s, s:I}, s:o}", "run",
					 (json_int_t)run->id, "status", lr_status_name(run->status), "benchmark", "import",
					 "model", model ? model->value : "?", "tokens", tokens ? tokens->value : "?", "reps",
					 binding(run, "reps"), "modelled", 0, "host", "hostname", run->host.hostname, "cpu",
					 run->host.cpu_model ? run->host.cpu_model : "unknown", "cpus", (json_int_t)run->host.cores,
					 "variants", cmd_bench_import_json(r));

		dump(f, root);
	} else {
		int html = !strcmp(format, "html");

		fprintf(f, html ? "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: run "
				  "%lld (bench import)</title></head><body>\n<h1>labrun report: run %lld (bench import)</h1>\n"
				  "<table><tr>" : "# labrun report: run %lld (bench import)\n\n", (long long)run->id, (long long)run->id);
		if (!html)
			fprintf(f, "'labrun import' of %s, %s tokens on the simulated device, %s runs of each variant (first "
				   "dropped), on %s (%lld CPUs). Each run's import total and whole-command wall time over the copy "
				   "ceiling that run measured (memcpy of the same bytes), median over runs. Measured, not "
				   "modelled.\n\n|", model ? model->value : "?", tokens ? tokens->value : "?", binding(run, "reps"),
				run->host.cpu_model ? run->host.cpu_model : "an unknown CPU", (long long)run->host.cores);
		for (i = 0; i < 6; i++)
			fprintf(f, html ? "<th>%s</th>" : " %s |", head[i]);
		fputs(html ? "</tr>\n" : "\n|---|---:|---:|---:|---:|---:|\n", f);
		for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
			const struct lr_importbench_variant *v = &r->v[i];

			fprintf(f, html ? "<tr><td>%s</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>%.1f</td></tr>\n"
					: "| %s | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
				v->name, v->import_ms, v->ceiling_ms, v->x_import, v->command_ms, v->x_command);
		}
		if (html)
			fputs("</table>\n</body></html>\n", f);
	}
out:
	free(r);
	return rc;
}

/* ---- bench remote ---------------------------------------------------------------- */

static int remote_report(FILE *f, const struct lr_run *run, const char *format)
{
	static const char *const head[4] = { "command", "wall_s", "objects_mib_per_s", "peak_rss_mib" };
	struct lr_remotebench_result r;
	char cells[3][LR_DOUBLE_TEXT];
	double mib, wall[2], rss[2];
	int i, rc, html = !strcmp(format, "html");

	if ((rc = lr_remotebench_job_results(run, &r)))
		return rc;
	mib = (double)r.bytes / (1 << 20);
	wall[0] = r.push_s, wall[1] = r.pull_s;
	rss[0] = r.push_rss_kib / 1024.0, rss[1] = r.pull_rss_kib / 1024.0;
	if (!strcmp(format, "csv")) {
		rc = lr_csv_write_row(f, head, 4);
		for (i = 0; !rc && i < 2; i++) {
			const char *row[4] = { i ? "pull" : "push", lr_double_text(cells[0], wall[i]),
					       lr_double_text(cells[1], mib / wall[i]), lr_double_text(cells[2], rss[i]) };

			rc = lr_csv_write_row(f, row, 4);
		}
		return rc;
	}
	if (!strcmp(format, "json")) {
		dump(f, json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:{s:s, s:s, s:I}, s:[{s:s, s:f, s:f, s:f}, "
				  "{s:s, s:f, s:f, s:f}]}", "run", (json_int_t)run->id, "status", lr_status_name(run->status),
				  "benchmark", "remote", "remote", binding(run, "remote"), "runs", binding(run, "runs"), "reps",
				  binding(run, "reps"), "object_bytes", (json_int_t)r.bytes, "modelled", 0, "host", "hostname",
				  run->host.hostname, "cpu", run->host.cpu_model ? run->host.cpu_model : "unknown", "cpus",
				  (json_int_t)run->host.cores, "commands", "command", "push", "wall_s", wall[0],
				  "objects_mib_per_s", mib / wall[0], "peak_rss_mib", rss[0], "command", "pull", "wall_s", wall[1],
				  "objects_mib_per_s", mib / wall[1], "peak_rss_mib", rss[1]));
		return 0;
	}
	fprintf(f, html ? "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: run %lld "
			  "(bench remote)</title></head><body>\n<h1>labrun report: run %lld (bench remote)</h1>\n<p>"
			: "# labrun report: run %lld (bench remote)\n\n", (long long)run->id, (long long)run->id);
	fprintf(f, "'labrun push' and then 'labrun pull' of %s synthetic runs with %s repetitions and %.0f MiB of objects, "
		   "to remote '%s' and back, on %s (%lld CPUs). Wall time and peak resident set size of each command, "
		   "measured, not modelled.%s", binding(run, "runs"), binding(run, "reps"), mib, binding(run, "remote"),
		run->host.cpu_model ? run->host.cpu_model : "an unknown CPU", (long long)run->host.cores,
		html ? "</p>\n<table><tr>" : "\n\n|");
	for (i = 0; i < 4; i++)
		fprintf(f, html ? "<th>%s</th>" : " %s |", head[i]);
	fputs(html ? "</tr>\n" : "\n|---|---:|---:|---:|\n", f);
	for (i = 0; i < 2; i++)
		fprintf(f, html ? "<tr><td>%s</td><td>%.2f</td><td>%.0f</td><td>%.1f</td></tr>\n" : "| %s | %.2f | %.0f | %.1f |\n",
			i ? "pull" : "push", wall[i], mib / wall[i], rss[i]);
	if (html)
		fputs("</table>\n</body></html>\n", f);
	return 0;
}

int cmd_report_bench(FILE *f, const struct lr_run *run, const char *format)
{
	struct lr_bench_result *r = NULL;
	struct lr_bench_opts *o = NULL;
	int n = 0, s, rc;

	if (!strcmp(binding(run, "benchmark"), "store"))
		return store_report(f, run, format);
	if (!strcmp(binding(run, "benchmark"), "import"))
		return import_report(f, run, format);
	if (!strcmp(binding(run, "benchmark"), "remote"))
		return remote_report(f, run, format);
	if ((rc = lr_bench_job_results(run, &r, &o, &n)))
		return rc;
	if (!strcmp(format, "csv")) {
		rc = write_csv(f, o, r, n);
	} else if (!strcmp(format, "json")) {
		write_json(f, run, o, r, n);
	} else if (!strcmp(format, "html")) {
		write_html(f, run, o, r, n);
	} else {
		fprintf(f, "# labrun report: run %lld (bench encoder)\n\n%s\n\n", (long long)run->id, bench_method);
		md_settings(f, run);
		for (s = 0; s < n; s++)
			md_shape(f, &o[s], &r[s]);
	}
	free(r);
	free(o);
	return rc;
}
