#include "config.h"
#include "base/system.h"

#include "report/doc.h"
#include "report/report.h"
#include "report/text.h"
#include "experiment/benchjob.h"
#include "experiment/collectbench.h"
#include "experiment/importbench.h"
#include "experiment/ingestbench.h"
#include "experiment/remotebench.h"
#include "experiment/storebench.h"

/*
 * 'labrun report --run ID' of a 'bench' run: the benchmark's tables again
 * (bench-tables.c, written by table.c), every median recomputed from the
 * stored time of each repetition.
 */

static const char encoder_method[] =
	"Measured, not modelled. Every figure is recomputed from the stored time of each repetition\n"
	"(the first dropped as warm-up; the median of the rest). GB/s counts bytes read plus bytes\n"
	"written; x ceiling is a variant's throughput over the fastest copy of the same bytes, measured\n"
	"in the same run; vs lookup is the lookup kernel's time over the variant's.";

static const char store_method[] =
	"Measured, not modelled: the wall time of labrun itself, run as a user runs it on a store of N\n"
	"repetitions (record -q -- true outside a git work tree, report --issue 270, audit), the median\n"
	"of each command's runs with the first dropped. The repetitions in those stores are synthetic:\n"
	"stored, sealed and chained as 'labrun run' stores them, with generated times.";

static const char *binding(const struct lr_run *run, const char *key)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, key);

	return e ? e->value : "?";
}

static const char *cpu_model(const struct lr_run *run)
{
	return run->host.cpu_model ? run->host.cpu_model : "unknown CPU";
}

/* Markdown's heading, or an HTML page's head and heading: "labrun report: run N (bench WHAT)". */
static void open_doc(FILE *f, int html, const struct lr_run *run)
{
	char title[96];

	snprintf(title, sizeof title, "labrun report: run %lld (bench %s)", (long long)run->id, binding(run, "benchmark"));
	if (!html) {
		fprintf(f, "# %s\n\n", title);
		return;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
	lr_html_text(f, title);
	fputs("</title>\n<style>body{font:14px/1.45 sans-serif;margin:24px;max-width:1100px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:3px 8px}"
	      "td.n{text-align:right}</style>\n</head><body>\n<h1>", f);
	lr_html_text(f, title);
	fputs("</h1>\n", f);
}

/* A paragraph of prose. */
static void para(FILE *f, int html, const char *s)
{
	if (!html) {
		fprintf(f, "%s\n\n", s);
		return;
	}
	fputs("<p>", f);
	lr_html_text(f, s);
	fputs("</p>\n", f);
}

static json_t *envelope(const struct lr_run *run)
{
	return json_pack("{s:I, s:s, s:s?, s:s, s:s, s:b, s:{s:s, s:s, s:I, s:s}}", "run", (json_int_t)run->id, "status",
			 lr_status_name(run->status), "failure", run->failure, "benchmark", binding(run, "benchmark"),
			 "reps", binding(run, "reps"), "modelled", 0, "host", "hostname", run->host.hostname, "cpu",
			 cpu_model(run), "cpus", (json_int_t)run->host.cores, "kernel", run->host.kernel);
}

static void dump(FILE *f, json_t *root)
{
	json_dumpf(root, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
}

/*
 * A benchmark's report of one table in FORMAT: title, a paragraph, the
 * table; as JSON the envelope with the table's rows under 'key'.
 */
static int write_doc(FILE *f, enum lr_format format, const struct lr_run *run, const char *prose, const struct lr_table *t,
		     json_t *root, const char *key)
{
	int rc = lr_table_error(t), html = format == LR_FORMAT_HTML;

	if (rc || format == LR_FORMAT_CSV) {
		json_decref(root);
		return rc ? rc : lr_render_table_csv(f, t, 1);
	}
	if (format == LR_FORMAT_JSON) {
		json_object_set_new(root, key, lr_render_table_json(t));
		dump(f, root);
		return 0;
	}
	json_decref(root);
	open_doc(f, html, run);
	para(f, html, prose);
	if (html) {
		lr_render_table_html(f, t);
		fputs("</body></html>\n", f);
	} else {
		lr_render_table_md(f, t);
	}
	return 0;
}

static int store_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_storebench_row *rows = NULL;
	struct lr_table t;
	char prose[1024];
	int n = 0, i, rc;

	if ((rc = lr_storebench_job_results(run, &rows, &n)))
		return rc;
	lr_render_bench_store_table(&t);
	for (i = 0; i < n; i++)
		lr_render_bench_store_row(&t, &rows[i]);
	snprintf(prose, sizeof prose, "%s\n\nHost: %s, %lld CPUs; %s runs of each command per scale.", store_method,
		 cpu_model(run), (long long)run->host.cores, binding(run, "reps"));
	rc = write_doc(f, format, run, prose, &t, envelope(run), "scales");
	lr_table_release(&t);
	free(rows);
	return rc;
}

static int import_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	const struct lr_kv *model = lr_kvlist_find(&run->geometry, "model"), *tokens = lr_kvlist_find(&run->geometry, "tokens");
	struct lr_importbench_result *r = malloc(sizeof *r);
	struct lr_table t;
	char prose[1024];
	json_t *root;
	int rc;

	if (!r)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_importbench_job_results(run, r))) {
		free(r);
		return rc;
	}
	lr_render_bench_import_table(&t, r);
	snprintf(prose, sizeof prose, "'labrun import' of %s, %s tokens on the simulated device, %s runs of each variant "
		 "(first dropped), on %s (%lld CPUs). Each run's import total and whole-command wall time over the copy "
		 "ceiling that run measured (memcpy of the same bytes), median over runs. Measured, not modelled.",
		 model ? model->value : "?", tokens ? tokens->value : "?", binding(run, "reps"), cpu_model(run),
		 (long long)run->host.cores);
	root = envelope(run);
	json_object_set_new(root, "model", json_string(model ? model->value : "?"));
	json_object_set_new(root, "tokens", json_string(tokens ? tokens->value : "?"));
	rc = write_doc(f, format, run, prose, &t, root, "variants");
	lr_table_release(&t);
	free(r);
	return rc;
}

static int ingest_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_ingestbench_result *r = malloc(sizeof *r);
	struct lr_table t;
	char prose[1024];
	json_t *root;
	int rc;

	if (!r)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_ingestbench_job_results(run, r))) {
		free(r);
		return rc;
	}
	lr_render_bench_ingest_table(&t, r);
	snprintf(prose, sizeof prose, "'labrun ingest responses' of %s responses of %s tokens (%.1f MB) into a fresh run, "
		 "beside %s running 'for line in f: json.loads(line)' over the same file, and 'labrun compare' of two such "
		 "sets; %s repetitions alternated (first dropped), on %s (%lld CPUs). Wall time of each process, median "
		 "over repetitions. Measured, not modelled.", binding(run, "responses"), binding(run, "tokens"),
		 (double)r->bytes / 1e6, binding(run, "python"), binding(run, "reps"), cpu_model(run),
		 (long long)run->host.cores);
	root = envelope(run);
	json_object_set_new(root, "responses", json_string(binding(run, "responses")));
	json_object_set_new(root, "tokens", json_string(binding(run, "tokens")));
	rc = write_doc(f, format, run, prose, &t, root, "commands");
	lr_table_release(&t);
	free(r);
	return rc;
}

static int remote_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_remotebench_result r;
	struct lr_table t;
	char prose[1024];
	json_t *root;
	int rc;

	if ((rc = lr_remotebench_job_results(run, &r)))
		return rc;
	lr_render_bench_remote_table(&t, &r);
	snprintf(prose, sizeof prose, "'labrun push' and then 'labrun pull' of %s synthetic runs with %s repetitions and "
		 "%.0f MiB of objects, to remote '%s' and back, on %s (%lld CPUs). Wall time and peak resident set size "
		 "of each command, measured, not modelled.", binding(run, "runs"), binding(run, "reps"),
		 (double)r.bytes / (1 << 20), binding(run, "remote"), cpu_model(run), (long long)run->host.cores);
	root = envelope(run);
	json_object_set_new(root, "remote", json_string(binding(run, "remote")));
	json_object_set_new(root, "runs", json_string(binding(run, "runs")));
	json_object_set_new(root, "object_bytes", json_integer(r.bytes));
	rc = write_doc(f, format, run, prose, &t, root, "commands");
	lr_table_release(&t);
	return rc;
}

static int collect_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_collectbench_result *r = malloc(sizeof *r);
	int64_t requests, tokens;
	struct lr_table t;
	char prose[1024];
	json_t *root;
	int reps, rc;

	if (!r)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_collectbench_job_results(run, r, &requests, &tokens, &reps))) {
		free(r);
		return rc;
	}
	lr_render_bench_collect_table(&t, r);
	snprintf(prose, sizeof prose, "'labrun collect', storing everything, beside a Python asyncio client (%s, %s) "
		 "sending the same %lld requests of %lld tokens and writing the same responses to a file, against a null "
		 "streaming server writing %s token chunk(s) at once; %d passes of each client a level, alternated, the first "
		 "dropped; medians. CPU: the client process's user + sys time over the tokens it streamed, start-up included; "
		 "requests/s over its own pass; server: the null server's CPU in the same pass (busy: over the pass time). "
		 "On %s (%lld CPUs). Measured, not modelled.", binding(run, "peer"), binding(run, "python"),
		 (long long)requests, (long long)tokens, binding(run, "burst"), reps, cpu_model(run),
		 (long long)run->host.cores);
	root = envelope(run);
	json_object_set_new(root, "requests", json_integer(requests));
	json_object_set_new(root, "tokens", json_integer(tokens));
	json_object_set_new(root, "peer", json_string(binding(run, "peer")));
	rc = write_doc(f, format, run, prose, &t, root, "levels");
	lr_table_release(&t);
	free(r);
	return rc;
}

/* The encoder benchmark as a document: its method and settings, then per shape a heading, a table, a summary. */
static int encoder_doc(FILE *f, int html, const struct lr_run *run, const struct lr_bench_opts *o,
		       const struct lr_bench_result *r, int n)
{
	char *cmdline = lr_argv_text(run->argv_json), text[1024];
	struct lr_table t;
	int s, rc = 0;

	open_doc(f, html, run);
	para(f, html, encoder_method);
	snprintf(text, sizeof text, "Command: %s (started %s), %s%s%s. Host: %s, %s, %lld CPUs, %s, kernel %s; timing "
		 "thread pinned to CPU %s. Settings: %s repetitions per variant (first dropped), contract %s, seed %s, "
		 "auto kernel %s, %s thread(s).", cmdline ? cmdline : run->argv_json, run->started_at ? run->started_at : "?",
		 lr_status_name(run->status), run->failure ? ": " : "", run->failure ? run->failure : "", run->host.hostname,
		 cpu_model(run), (long long)run->host.cores, run->host.os ? run->host.os : "unknown OS", run->host.kernel,
		 binding(run, "pinned_cpu"), binding(run, "reps"), binding(run, "contract"), binding(run, "seed"),
		 binding(run, "auto_kernel"), binding(run, "threads"));
	free(cmdline);
	para(f, html, text);
	for (s = 0; s < n && !rc; s++) {
		lr_table_init(&t, lr_render_bench_encoder_cols, lr_render_bench_encoder_ncols);
		lr_render_bench_encoder_rows(&t, &o[s], &r[s]);
		if (!(rc = lr_table_error(&t))) {
			lr_render_bench_encoder_heading(text, sizeof text, &o[s], &r[s]);
			if (html) {
				fputs("<h2>", f);
				lr_html_text(f, text);
				fputs("</h2>\n", f);
			} else {
				fprintf(f, "## %s\n\n", text);
			}
			snprintf(text, sizeof text, "Every encoder and the permuted view gave the same bytes, sha256 %s.",
				 r[s].digest);
			para(f, html, text);
			if (html) {
				lr_render_table_html(f, &t);
			} else {
				lr_render_table_md(f, &t);
				fputc('\n', f);
			}
			lr_render_bench_encoder_summary(text, sizeof text, &r[s], ". ");
			para(f, html, text);
		}
		lr_table_release(&t);
	}
	if (html)
		fputs("</body></html>\n", f);
	return rc;
}

/* The encoder benchmark: a document with a table per shape, one CSV of every shape's rows, or JSON. */
static int encoder_report(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_bench_result *r = NULL;
	struct lr_bench_opts *o = NULL;
	struct lr_table t;
	int n = 0, s, rc;

	if ((rc = lr_bench_job_results(run, &r, &o, &n)))
		return rc;
	if (format == LR_FORMAT_CSV) {
		lr_table_init(&t, lr_render_bench_encoder_cols, lr_render_bench_encoder_ncols);
		for (s = 0; s < n; s++)
			lr_render_bench_encoder_rows(&t, &o[s], &r[s]);
		if (!(rc = lr_table_error(&t)))
			rc = lr_render_table_csv(f, &t, 1);
		lr_table_release(&t);
	} else if (format == LR_FORMAT_JSON) {
		json_t *root = envelope(run), *shapes = json_array();

		for (s = 0; s < n; s++)
			json_array_append_new(shapes, lr_render_bench_json(&o[s], &r[s]));
		json_object_set_new(root, "threads", json_string(binding(run, "threads")));
		json_object_set_new(root, "contract", json_string(binding(run, "contract")));
		json_object_set_new(root, "seed", json_string(binding(run, "seed")));
		json_object_set_new(root, "auto_kernel", json_string(binding(run, "auto_kernel")));
		json_object_set_new(root, "cpu", json_string(binding(run, "pinned_cpu")));
		json_object_set_new(root, "shapes", shapes);
		dump(f, root);
	} else {
		rc = encoder_doc(f, format == LR_FORMAT_HTML, run, o, r, n);
	}
	free(r);
	free(o);
	return rc;
}

int lr_render_bench_run(FILE *f, const struct lr_run *run, enum lr_format format)
{
	const char *b = binding(run, "benchmark");

	if (!strcmp(b, "store"))
		return store_report(f, run, format);
	if (!strcmp(b, "import"))
		return import_report(f, run, format);
	if (!strcmp(b, "remote"))
		return remote_report(f, run, format);
	if (!strcmp(b, "collect"))
		return collect_report(f, run, format);
	if (!strcmp(b, "ingest"))
		return ingest_report(f, run, format);
	return encoder_report(f, run, format);
}
