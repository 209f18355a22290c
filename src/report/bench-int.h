#ifndef LR_REPORT_BENCH_INT_H
#define LR_REPORT_BENCH_INT_H

/*
 * What the benchmark document's builder (bench.c: one document for every
 * benchmark, and its formats) and the benchmarks' definitions (bench-tables.c:
 * each one's words and columns) share.
 */

#include <jansson.h>

#include "base/table.h"
#include "experiment/benchjob.h"
#include "report/doc.h"

/* One row of a benchmark's table: a subject and, where the definition lists them, one of its variants. */
struct lr_bench_row {
	const struct lr_run *run;
	const struct lr_bench *b;
	const char *subject;
	const char *variant; /* NULL for a row a subject */
	int index;           /* of variant in the definition's list */
};

/*
 * A benchmark as it is shown: a table with these columns, a row a subject or
 * a row for each listed variant of each subject, or (per_subject) a table for
 * each subject, a row for each of its variants, between lines of its own.
 */
struct lr_bench_def {
	const struct lr_column *cols;
	int ncols;
	const char *rows_key;        /* JSON: the member holding the rows */
	const char *const *variants; /* NULL-terminated; NULL: a row a subject (per_subject: a variant) */
	int per_subject;
	const char *sections_key; /* per_subject: the member holding a section a subject in JSON */
	void (*row)(struct lr_table *t, const struct lr_bench_row *r);
	/* the lines above the tables: the settings, and the host */
	void (*head)(struct lr_doc *d, const struct lr_run *run);
	/* the lines under the tables once the run has ended: what the figures are */
	void (*notes)(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b);
	/* per_subject: what comes before and after a subject's table, and its facts in JSON */
	int (*section_head)(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b, const char *subject);
	void (*section_tail)(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b, const char *subject);
	json_t *(*section_json)(const struct lr_run *run, const struct lr_bench *b, const char *subject);
	/* when set, the whole table (its columns too, which may depend on b) instead of 'row' */
	void (*table)(struct lr_table *t, const struct lr_run *run, const struct lr_bench *b);
};

/* A definition's columns: the array and its length. */
#define COLS(c) .cols = c, .ncols = (int)(sizeof c / sizeof c[0])

/* What every definition's words use (bench-words.c). */
const char *lr_benchdoc_set(const struct lr_run *run, const char *key);    /* binding, else geometry, or "?" */
double lr_benchdoc_setnum(const struct lr_run *run, const char *key);      /* NAN when none or no number */
const char *lr_benchdoc_plural(const struct lr_run *run, const char *key); /* "" when the setting is 1, else "s" */
/* a line of prose: what ran, or what a table says */
void lr_benchdoc_say(struct lr_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a line under the tables: what the figures are */
void lr_benchdoc_note(struct lr_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "host NAME: CPU, N CPUs, KERNEL; labrun V" and 'extra': the line every benchmark's head ends with */
void lr_benchdoc_host(struct lr_doc *d, const struct lr_run *run, const char *extra);
void lr_benchdoc_cell(struct lr_table *t, double v, int digits); /* a number, or no value when NAN */

/* 'labrun bench encoder' (bench-encoder.c) */
extern const struct lr_bench_def lr_benchdoc_encoder;

/* The definition of benchmark 'which' (bench-tables.c). */
const struct lr_bench_def *lr_render_bench_def(enum lr_benchmark which);

#endif
