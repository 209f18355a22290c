#ifndef LR_EXPDEF_INT_H
#define LR_EXPDEF_INT_H

/*
 * What expdef.c (reading a definition) and expdef-check.c (what the file as a
 * whole must hold) share: the parser's state and its one way to fail.
 */

#include "base/model.h"
#include "experiment/expdef.h"

/* Parser state shared by the line-counting reader and the handler. */
struct parse {
	struct lr_expdef *d;
	const char *text, *pos; /* the input, and where the reader is */
	int line;               /* line the reader returned last */
	int err_line;
	char err[512];
	/* sections as the reader saw them (inih skips empty ones) */
	char sections[32][64];
	int section_line[32];
	int nsections;
	/* keys seen per section, to refuse repeats and name their lines: "section\nkey" -> line */
	struct lr_kvlist seen;
	int seen_experiment_name;
	int collecting; /* first pass: note the section headers */
};

/*
 * Note the first error, "LINE: message", in p; returns 0, which makes inih
 * stop reporting success.
 */
int lr_expdef_fail(struct parse *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The line of [name], 0 when the file has no such section. */
int lr_expdef_section_line(const struct parse *p, const char *name);

/* The line of 'key' in [section], or the section's line when the key is not given. */
int lr_expdef_key_line(const struct parse *p, const char *section, const char *key);

/* Register the sections the reader saw: arms in file order, unknown or repeated names refused. 1: ok, 0: failed. */
int lr_expdef_check_sections(struct parse *p);

/* What only the whole file can tell: required sections and keys, keys of the wrong target. 1: ok, 0: failed. */
int lr_expdef_check_whole(struct parse *p);

/* ---- expdef-report.c: [report] ---- */

/* One key of [report] into r: 'metrics' or 'forms'. 1: ok, 0: failed (p says why). */
int lr_expdef_report_key(struct parse *p, struct lr_exp_report *r, const char *k, const char *v);

/* What [report] asks of the whole file: metrics of a command target, none the design's own. 1: ok, 0: failed. */
int lr_expdef_report_check(struct parse *p);

/* ---- expdef-record.c: [record] and an arm's binding.KEY ---- */

/* One key of [record] into d->record (binding.KEY, tool.NAME, probe.NAME, geometry.KEY, source, note). 1: ok, 0: failed. */
int lr_expdef_record_key(struct parse *p, const char *k, const char *v);

/* A built-in target's backend is sim or atom (a command target's any name). 1: ok, 0: failed. */
int lr_expdef_record_check(struct parse *p);

/* An arm's 'binding.KEY = VALUE' into a->binding. 1: ok, 0: failed. */
int lr_expdef_arm_binding(struct parse *p, struct lr_exp_arm *a, const char *k, const char *v);

/* ---- expdef-serving.c: target = serving ---- */

/* 1 when k is a key of a serving arm (endpoint, model, concurrency, ...). */
int lr_expdef_serving_key(const char *k);

/*
 * Turn each serving arm into the command arm that runs it: 'labrun collect
 * --out {outdir}/responses.jsonl' with the arm's settings, its responses
 * ingested under its route, the pass's figures its metrics (output
 * throughput compared unless [design] metric says otherwise). Checks every
 * value at its line. 1: ok, 0: failed.
 */
int lr_expdef_serving_expand(struct parse *p);

#endif
