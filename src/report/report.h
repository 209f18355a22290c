#ifndef LR_REPORT_REPORT_H
#define LR_REPORT_REPORT_H

/*
 * The presentation layer: every table, report, chart and page labrun shows,
 * written to a stream the caller gives (never to stdout or stderr by
 * itself). Below it the domain models (experiment/, serving/), above it the
 * commands and the evidence that publishes these files.
 */

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "base/model.h"
#include "report/doc.h"
#include "base/table.h"
#include "store/archives.h"
#include "store/store.h"

struct lr_expdef;
struct lr_run_result;
struct lr_report;
struct lr_report_run;
struct lr_serving_report;
struct lr_comparison;

/*
 * What an experiment run just did (outcome.c), as text for a terminal: its design and arms, then its
 * tables as the report writes them (rr, the run's report, built from the
 * store), its failed or missing conditions, its serving evidence (sv: every
 * cell, failing case and uncollected cell), how the figures are made, and a
 * closing line that counts condition, comparison and gate failures.
 */
void lr_render_outcome(FILE *f, const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r,
		       const struct lr_report_run *rr, const struct lr_serving_report *sv);

struct lr_comparison;
/* The comparison (outcome.c) of run b against run a: drift, and per-condition parity and timing for experiment runs. */
void lr_render_comparison(FILE *f, const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp,
			  int replay);

/* ---- table.c: one writer per format for a table of typed cells ---- */

/* As Markdown, as HTML (a <table>), as CSV (RFC 4180, the header when 'header'), as JSON (an object a row). */
void lr_render_table_md(FILE *f, const struct lr_table *t);
void lr_render_table_html(FILE *f, const struct lr_table *t);
LR_MUST_CHECK int lr_render_table_csv(FILE *f, const struct lr_table *t, int header);
/*
 * As long ("tidy") CSV, a record a cell: 'table,row,column,value,text' (the header when 'header'),
 * every cell of the columns CSV shows; a number in value, text in text, so that pandas reads
 * the tables of a report whole and pivot_table(index=["table", "row"], columns="column") gives
 * each back.
 */
LR_MUST_CHECK int lr_render_table_tidy(FILE *f, const char *name, const struct lr_table *t, int header);
json_t *lr_render_table_json(const struct lr_table *t);

/* On a terminal, 'indent' spaces in: the head and every row from 0, else rows from..end (as they come). */
LR_MUST_CHECK int lr_render_table_text(FILE *f, const struct lr_table *t, int indent, size_t from);

/* ---- runlist.c: 'list' and 'sql' on a terminal ---- */

/* A crate registered with a hub, as 'list --registered' shows it: runs is "3 5", its runs' ids. */
/* One row of 'list --registered', the head line before it when 'first'. */
void lr_render_registration_row(FILE *f, int first, const struct lr_registration *g);
/*
 * One row of 'list' (the head line before it when 'first'): long experiment
 * names and issue lists end in "...", and the command fits 'width' (0: not a
 * terminal); 'wide': no cell is cut.
 */
void lr_render_run_row(FILE *f, int first, const struct lr_run *r, size_t width, int wide);
/* A query's rows as 'sql' shows them: cells[0..ncol) the names, a rule under them, then the rows. */
LR_MUST_CHECK int lr_render_sql_table(FILE *f, char *const *cells, size_t ncells, int ncol);

/* ---- runshow.c: the lists 'show' prints about a run ---- */

/* Its changed files; its artifacts; its measurements (a bench run's: how many); an experiment run's conditions. */
void lr_render_run_files(FILE *f, const struct lr_run *r);
void lr_render_run_artifacts(FILE *f, const struct lr_run *r);
void lr_render_run_measures(FILE *f, const struct lr_run *r);
/* The checks its command reported ($LABRUN_CHECKS), "NAME: PASSED/TOTAL" a line, a failing one marked; nothing when none. */
void lr_render_run_checks(FILE *f, const struct lr_run *r);

/*
 * Where it ran and with what, beyond the binding and tools 'show' lists:
 * each tool probe (its command and what it printed), the cards when a run's
 * arms ran on different ones, and the labrun that recorded it (binary
 * sha256, build options). lr_render_run_identity_doc adds the same as items
 * of facts block b of a report.
 */
void lr_render_run_identity(FILE *f, const struct lr_run *r);
struct lr_doc;
struct lr_doc_block;
void lr_render_run_identity_doc(struct lr_doc *d, struct lr_doc_block *b, const struct lr_run *r);
void lr_render_run_conditions(FILE *f, const struct lr_report_run *rr);

/* ---- stages.c: 'import' a line a stage, 'encode --check' a line a kernel and contract ---- */

struct lr_import_job;
struct lr_import_job_opts;
struct lr_dlf16_kernel;
void lr_render_import(FILE *f, const struct lr_import_job *j, const struct lr_import_job_opts *o);
void lr_render_kernel_unavailable(FILE *f, const struct lr_dlf16_kernel *k);
/* Kernel k under contract (enum lr_dlf16_contract): 'bad' mismatches, the first at BF16 'first'. */
void lr_render_kernel_check(FILE *f, const struct lr_dlf16_kernel *k, int contract, uint32_t bad, uint16_t first);

/* ---- bench.c: a benchmark run's document, for 'bench' as it runs and 'report --run' ---- */

struct lr_bench;

/*
 * Benchmark run 'run', whose samples are b (experiment/benchjob.h), as a
 * document: the title and the command ('live': not, as 'bench' shows what it
 * is running), its settings and host, its tables (the encoder's: a table a
 * shape, with its heading, parity and summary), and once the run has ended
 * with figures what they are. The same rows, in the same order, as b grows: a
 * printout can show what is new. LR_EINVAL when a sample does not fit the
 * benchmark (a subject that is not a shape); out of memory as lr_doc_error.
 */
LR_MUST_CHECK int lr_render_bench_doc(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b, int live);

/*
 * That document in 'format': Markdown, HTML (a page) or text; or its data, CSV
 * (every table's rows) or JSON (the run, its settings and its rows).
 */
LR_MUST_CHECK int lr_render_bench(FILE *f, const struct lr_run *run, const struct lr_bench *b, enum lr_format format);

/* ---- render.c, data.c, serving.c, html.c, site*.c: the report's writers ---- */

struct lr_report;
struct lr_serving_report;
struct lr_serving_cell;

/* The comparison tables of one run of a report, as Markdown: what 'run' prints. */
struct lr_report_run;
LR_MUST_CHECK int lr_render_tables(FILE *f, const struct lr_report_run *rr);

/*
 * The report as a document (report/doc.h): its title and method, the ledger
 * head, then a summary (the serving sentence, each experiment run's verdict
 * tables, with 'charts' a chart per condition, and failed or missing
 * conditions, the route matrix, the failing cases grouped, the recorded runs
 * and their checks) and the detail in
 * folded sections (each run's facts without the recording machine's paths,
 * the serving evidence's timing, cases and passes). Out of memory is kept
 * in d (lr_doc_error).
 */
struct lr_doc;
struct lr_report_label {
	const char *title;   /* "issue 270" */
	const char *version; /* the labrun that made it; NULL: this one */
};
void lr_render_report_doc(struct lr_doc *d, const struct lr_report *rep, const struct lr_serving_report *sv,
			  const struct lr_report_label *l, int charts);

/*
 * The same as labrun wrote it before summaries and folds, for 'verify' of
 * the crates of then: the signed head's envelope after the head, then each
 * run whole (lr_render_run_doc: paths as recorded) and the serving evidence
 * (lr_render_serving_doc).
 */
void lr_render_report_doc_flat(struct lr_doc *d, const struct lr_report *rep, const struct lr_serving_report *sv,
			       const struct lr_report_label *l, int charts);

/*
 * The report as data ('report --format json', a crate's report.json): every
 * figure of the document at full precision, and the document itself under
 * "document" (lr_doc_json). NULL when out of memory. Its "format" counts the
 * changes of its members: a member added raises it, so that verify asks a
 * crate only for the members of its own format (verify-report.c).
 */
#define LR_REPORT_DATA_FORMAT 3
json_t *lr_render_report_data(const struct lr_report *rep, const struct lr_serving_report *sv,
			      const struct lr_report_label *l);
void lr_render_run_doc(struct lr_doc *d, const struct lr_report_run *rr, int charts);
void lr_render_tables_doc(struct lr_doc *d, const struct lr_report_run *rr, int charts);
void lr_render_serving_doc(struct lr_doc *d, const struct lr_serving_report *sv);

/*
 * The report's recorded runs (rep->records, records.c): one section, a fact
 * a run (its command made short, how it ended) with its checks under it,
 * "name: passed/total", a failing one marked FAILED; nothing when there are
 * none. And the same as the data's "records" array (NULL when out of memory).
 */
void lr_render_records_doc(struct lr_doc *d, const struct lr_report *rep);
json_t *lr_render_records_json(const struct lr_report *rep);

/*
 * One comparison table of a run, a row per condition (its estimate,
 * interval, drift and verdict; a further metric's direction instead of a
 * verdict; the means and the ratio as x when its definition's [report]
 * forms ask for them), for every format; its heads live in *h.
 */
struct lr_report_table;
struct lr_render_heads {
	struct lr_column cols[12];
	char text[5][160];
};
void lr_render_table(struct lr_table *t, struct lr_render_heads *h, const struct lr_report_run *rr,
		     const struct lr_report_table *tb);

/*
 * The report in 'format' to f: its document (Markdown, HTML, text), or its
 * data (CSV, JSON). Markdown is pasted as an issue comment: it is cut to
 * fit in 'max_chars' characters (lr_render_report_fit; 0: no cap), and
 * lr_render_report cuts it to LR_REPORT_MAX_CHARS, GitHub's limit.
 */
#define LR_REPORT_MAX_CHARS 65536
LR_MUST_CHECK int lr_render_report_max(FILE *f, enum lr_format format, const struct lr_report *rep,
				       const struct lr_serving_report *sv, const char *title, size_t max_chars);
LR_MUST_CHECK int lr_render_report(FILE *f, enum lr_format format, const struct lr_report *rep,
				   const struct lr_serving_report *sv, const char *title);

/*
 * The report's document d (lr_render_report_doc) cut to 'max_chars'
 * characters as Markdown (lr_doc_fit; 0: not cut), its closing paragraph
 * saying where the whole report is: what 'report' writes, and what 'verify'
 * renders again to compare with a crate's report.md.
 */
void lr_render_report_fit(struct lr_doc *d, size_t max_chars);

/*
 * The serving matrix (a row per run and condition, a column per route; its
 * columns malloc'd: lr_render_matrix_release), the per-route timing
 * table, and the sentence that accounts for every cell (within-route,
 * cross-route and gate checks apart), with the prose before and after the
 * matrix: what every format shows.
 */
LR_MUST_CHECK int lr_render_matrix(struct lr_table *t, const struct lr_serving_report *sv);
void lr_render_matrix_release(struct lr_table *t);
LR_MUST_CHECK int lr_render_route_stats(struct lr_table *t, const struct lr_serving_report *sv);
const char *lr_render_cells_text(char *buf, size_t len, const struct lr_serving_report *sv);
extern const char lr_render_cells_intro[], lr_render_cells_outro[];
/* The collected passes: throughput and the concurrency self-check; TTFT, TPOT, ITL and E2EL. */
LR_MUST_CHECK int lr_render_passes(struct lr_table *t, const struct lr_serving_report *sv);
LR_MUST_CHECK int lr_render_latency(struct lr_table *t, const struct lr_serving_report *sv);
LR_MUST_CHECK int lr_render_occupancy(struct lr_table *t, const struct lr_serving_report *sv);
extern const char lr_render_passes_intro[];
/* How many of run 'run''s collected passes are INVALID, of *n, and their routes ("r1, r2"). */
int lr_render_invalid_passes(const struct lr_serving_report *sv, int64_t run, int *n, char *routes, size_t len);
/* A note under run 'run''s paired tables when passes of it are INVALID: never compared silently. */
void lr_render_invalid_note(struct lr_doc *d, int64_t run, const struct lr_serving_report *sv);
/* Each pass's verdict and failed rules, the server's gauge gaps, and the cut streams against the reference. */
void lr_render_validity_doc(struct lr_doc *d, const struct lr_serving_report *sv);
/* The passes' JSON (passes, as data.c builds it) with their checks and verdicts; the cut streams into serving. */
json_t *lr_render_passes_checks_json(json_t *passes, const struct lr_serving_report *sv, json_t *serving);
/* The footnote under a table with a row marked "(a)": its medians and its estimate differ in sign. */
extern const char lr_render_sign_note[];
int lr_render_sign_noted(const struct lr_report_table *tb);

/* A serving matrix cell in words: parity over its comparisons, then its gate. */
const char *lr_render_cell_text(char *buf, size_t len, const struct lr_serving_cell *c);

/*
 * The report in HTML (html.c): the whole page 'report --format html' writes;
 * and its parts for the pages of the site: each experiment run's facts,
 * tables and charts, and the serving evidence.
 */
LR_MUST_CHECK int lr_render_html(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv,
				 const char *title);
LR_MUST_CHECK int lr_render_html_runs(FILE *f, const struct lr_report *rep);
LR_MUST_CHECK int lr_render_html_serving(FILE *f, const struct lr_serving_report *sv);

struct lr_trust;
struct lr_ledger_entry;
/*
 * The static site of runs ids[0..n) (site.c) into 'dir', which exists
 * and is empty: index pages, a page and a data file per run, a page per
 * issue the runs name, the diff page, style and script, and the logs the
 * pages link to. Signers are held to o->trust. 'labrun site' and 'labrun
 * manifest --site' write it; 'labrun verify' rebuilds a crate's site with
 * each run's ledger entries given by 'ledger' (the store's when NULL), the
 * entries the crate carries, as the store that wrote it had them. 'object'
 * copies a stored object (a log) into a new file of the site, wherever its
 * bytes are (evidence/object.h's lr_object_save); NULL: logs are named by
 * their hashes, not copied.
 */
struct lr_site_opts {
	const struct lr_trust *trust;
	int (*ledger)(void *arg, const struct lr_run *r, int (*fn)(void *, const struct lr_ledger_entry *),
		      void *fnarg);
	void *arg;
	int (*object)(struct lr_store *st, const char *sha256, const char *path);
};
int lr_render_site_with(struct lr_store *st, const struct lr_site_opts *o, const int64_t *ids, int n, const char *dir);

/*
 * The report files a crate or an archive carries at its root, report.md and
 * report.json, of runs ids[0..n) (lr_render_crate_files): both NULL when
 * the runs give no report. report.md is cut to LR_REPORT_MAX_CHARS, as
 * 'report' cuts it; report.json is whole. Release with
 * lr_render_crate_files_release.
 */
struct lr_crate_report {
	char *md, *json;
};
int lr_render_crate_files(struct lr_store *st, const int64_t *ids, int n, const char *title,
			  struct lr_crate_report *out);
void lr_render_crate_files_release(struct lr_crate_report *f);

/* A stored 'bench' run in 'format' (lr_render_bench), read back first (lr_bench_read: an unknown benchmark refused). */
LR_MUST_CHECK int lr_render_bench_run(FILE *f, const struct lr_run *run, enum lr_format format);

#endif
