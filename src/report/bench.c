/*
 * A benchmark run as one document, whatever the benchmark: what ran and on
 * what host, its tables, what its figures are (each benchmark's words and
 * columns are bench-tables.c's), built from the run and its model
 * (experiment/benchjob.h). 'labrun bench' shows it as the run goes, 'labrun
 * report --run' in every format: Markdown, HTML and text through the
 * document's writers, CSV and JSON from the same tables.
 */
#include "config.h"
#include "base/system.h"

#include "report/bench-int.h"
#include "report/report.h"
#include "report/text.h"

/* "labrun report: run N (bench WHAT)". */
static void title(char *buf, size_t size, const struct lr_run *run, const struct lr_bench *b)
{
	snprintf(buf, size, "labrun report: run %lld (bench %s)", (long long)run->id, lr_benchmark_name(b->which));
}

/* The title, and the command with how it ended: what a report says of a run that 'bench' itself does not. */
static void run_lines(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	char *cmdline = lr_argv_text(run->argv_json), head[128];
	struct lr_buf *t;

	title(head, sizeof head, run, b);
	lr_doc_add(&lr_doc_heading(d, 1)->text, head);
	t = &lr_doc_prose(d)->text;
	lr_doc_add(t, "Command: ");
	lr_doc_code(t, cmdline ? cmdline : run->argv_json);
	lr_doc_addf(t, " (started %s), %s%s%s.", run->started_at ? run->started_at : "?", lr_status_name(run->status),
		    run->failure ? ": " : "", run->failure ? run->failure : "");
	free(cmdline);
}

/*
 * The rows of one subject (or, with subject NULL, of every subject) into t:
 * a row for each variant the definition lists, or for each variant timed in
 * the subject (a table a subject), or else one row.
 */
static void rows(struct lr_table *t, const struct lr_bench_def *def, const struct lr_run *run, const struct lr_bench *b,
		 const char *subject)
{
	struct lr_bench_row r = { run, b, NULL, NULL, 0 };

	if (def->table) {
		def->table(t, run, b);
		return;
	}
	lr_table_init(t, def->cols, def->ncols);
	for (size_t s = 0; s < b->subjects.n; s++) {
		r.subject = b->subjects.v[s];
		if (subject && strcmp(subject, r.subject))
			continue;
		if (def->variants) {
			for (r.index = 0; (r.variant = def->variants[r.index]); r.index++)
				def->row(t, &r);
		} else if (def->per_subject) {
			for (size_t i = 0; i < b->n; i++)
				if (!strcmp(b->s[i].subject, r.subject) && !strcmp(b->s[i].unit, "s")) {
					r.variant = b->s[i].variant;
					def->row(t, &r);
				}
		} else {
			def->row(t, &r);
		}
	}
}

/* A table of the rows of 'subject' (NULL: all); none until there is a row, so that a printout can grow it. */
static void table(struct lr_doc *d, const struct lr_bench_def *def, const struct lr_run *run, const struct lr_bench *b,
		  const char *subject)
{
	struct lr_table t;

	rows(&t, def, run, b, subject);
	if (t.nrows || lr_table_error(&t))
		lr_doc_table(d, lr_table_error(&t), &t);
	lr_table_release(&t);
}

int lr_render_bench_doc(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b, int live)
{
	const struct lr_bench_def *def = lr_render_bench_def(b->which);
	int rc;

	if (!live)
		run_lines(d, run, b);
	def->head(d, run);
	for (size_t s = 0; def->per_subject && s < b->subjects.n; s++) {
		if ((rc = def->section_head(d, run, b, b->subjects.v[s])))
			return rc;
		table(d, def, run, b, b->subjects.v[s]);
		def->section_tail(d, run, b, b->subjects.v[s]);
	}
	if (!def->per_subject)
		table(d, def, run, b, NULL);
	if (run->status != LR_RUNNING && b->subjects.n) /* what the figures are, once there are all there will be */
		def->notes(d, run, b);
	return lr_doc_error(d);
}

/* Every table's rows as CSV, under one header: each has the same columns. */
/* The tables of a bench's document as one CSV (they share their columns), or as tidy records ("bench"). */
static int write_csv(FILE *f, const struct lr_doc *d, int tidy)
{
	int rc = 0, header = 1;

	for (size_t i = 0; i < d->n && !rc; i++)
		if (d->v[i].kind == LR_BLOCK_TABLE && !d->v[i].missing) {
			rc = tidy ? lr_render_table_tidy(f, "bench", &d->v[i].table, header)
				  : lr_render_table_csv(f, &d->v[i].table, header);
			header = 0;
		}
	return rc;
}

/* A setting as JSON: a number when it is one, else the text. */
static json_t *setting(const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	return *v && !*end && !errno && (v[0] != '0' || !v[1]) ? json_integer(n) : json_string(v);
}

/* The run, its host, and every setting (binding, geometry) by its key. */
static json_t *envelope(const struct lr_run *run, const struct lr_bench *b)
{
	const struct lr_kvlist *l[2] = { &run->binding, &run->geometry };
	json_t *root =
		json_pack("{s:I, s:s, s:s?, s:s, s:b, s:s?, s:{s:s, s:s, s:I, s:s}}", "run", (json_int_t)run->id,
			  "status", lr_status_name(run->status), "failure", run->failure, "benchmark",
			  lr_benchmark_name(b->which), "modelled", 0, "labrun", run->labrun_version, "host", "hostname",
			  run->host.hostname, "cpu", run->host.cpu_model ? run->host.cpu_model : "unknown CPU", "cpus",
			  (json_int_t)run->host.cores, "kernel", run->host.kernel);

	for (int k = 0; k < 2 && root; k++)
		for (size_t i = 0; i < l[k]->n; i++)
			if (!json_object_get(root, l[k]->v[i].key))
				json_object_set_new(root, l[k]->v[i].key, setting(l[k]->v[i].value));
	return root;
}

/* The rows of 'subject' (NULL: all) as JSON objects. */
static json_t *rows_json(const struct lr_bench_def *def, const struct lr_run *run, const struct lr_bench *b,
			 const char *subject)
{
	struct lr_table t;
	json_t *j;

	rows(&t, def, run, b, subject);
	j = lr_table_error(&t) ? NULL : lr_render_table_json(&t);
	lr_table_release(&t);
	return j;
}

/* The envelope with the rows, or a section a subject holding its rows; the document was built, so subjects read. */
static int write_json(FILE *f, const struct lr_run *run, const struct lr_bench *b)
{
	const struct lr_bench_def *def = lr_render_bench_def(b->which);
	json_t *root = envelope(run, b), *sections = def->per_subject ? json_array() : NULL;
	int rc = 0;

	for (size_t s = 0; sections && s < b->subjects.n; s++) {
		json_t *o = def->section_json(run, b, b->subjects.v[s]);

		json_object_set_new(o, def->rows_key, rows_json(def, run, b, b->subjects.v[s]));
		json_array_append_new(sections, o);
	}
	if (sections)
		json_object_set_new(root, def->sections_key, sections);
	else
		json_object_set_new(root, def->rows_key, rows_json(def, run, b, NULL));
	if (!root || json_dumpf(root, f, JSON_INDENT(2)) || fputc('\n', f) == EOF)
		rc = lr_error_set(LR_EIO, "cannot write the report of run %lld", (long long)run->id);
	json_decref(root);
	return rc;
}

/* An HTML page around the document. */
static int write_html(FILE *f, const struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	char head[128];
	int rc;

	title(head, sizeof head, run, b);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
	lr_html_text(f, head);
	fputs("</title>\n<style>body{font:14px/1.45 sans-serif;margin:24px;max-width:1100px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:3px 8px}"
	      "td.n{text-align:right}code{background:#f3f3f3;padding:0 3px}</style>\n</head><body>\n",
	      f);
	rc = lr_doc_write(f, d, LR_FORMAT_HTML);
	fputs("</body></html>\n", f);
	return rc;
}

int lr_render_bench(FILE *f, const struct lr_run *run, const struct lr_bench *b, enum lr_format format)
{
	struct lr_doc d;
	int rc;

	lr_doc_init(&d);
	if (!(rc = lr_render_bench_doc(&d, run, b, 0))) {
		switch (format) {
		case LR_FORMAT_CSV: rc = write_csv(f, &d, 0); break;
		case LR_FORMAT_TIDY: rc = write_csv(f, &d, 1); break;
		case LR_FORMAT_JSON: rc = write_json(f, run, b); break;
		case LR_FORMAT_HTML: rc = write_html(f, &d, run, b); break;
		default: rc = lr_doc_write(f, &d, format); break;
		}
	}
	lr_doc_release(&d);
	return rc;
}

int lr_render_bench_run(FILE *f, const struct lr_run *run, enum lr_format format)
{
	struct lr_bench b;
	int rc;

	if ((rc = lr_bench_read(&b, run)))
		return rc;
	rc = lr_render_bench(f, run, &b, format);
	lr_bench_release(&b);
	return rc;
}
