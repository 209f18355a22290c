#ifndef LR_CMD_H
#define LR_CMD_H

/*
 * What the subcommands share: global options, opening the store, turning
 * error codes into one message and one exit code. Only cmd-*.c and
 * labrun.c print.
 */

#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>

#include "base/exit.h"
#include "store/store.h"
#include "encode/bench.h"

#include <jansson.h>

/*
 * What a command returns when it has printed its usage for -h or --help
 * (cmd_parse_options): not an error and not an exit status, so that every
 * command passes it up as it would an error, and main exits 0 for it.
 */
#define CMD_HELP_SHOWN 256

/* What a command does with the store: its row of the command table says (labrun.c). */
enum cmd_store_mode {
	CMD_NO_STORE,		/* never opens one */
	CMD_READS,		/* reads an existing store; appends only when it finishes an abandoned run */
	CMD_WRITES,		/* writes to an existing store: refuses a key it cannot use */
	CMD_CREATES,		/* writes, and creates the store when there is none */
};

struct lr_global {
	const char *store;	/* --store, else $LABRUN_STORE, else NULL */
	char **argv;		/* labrun's whole command line, as runs record it */
	enum cmd_store_mode mode;	/* the running command's */
};

struct lr_command {
	const char *name;
	int (*run)(const struct lr_global *g, int argc, char **argv);
	enum cmd_store_mode mode;
	const char *summary;
};

int cmd_init(const struct lr_global *g, int argc, char **argv);
int cmd_record(const struct lr_global *g, int argc, char **argv);
int cmd_list(const struct lr_global *g, int argc, char **argv);
int cmd_show(const struct lr_global *g, int argc, char **argv);
int cmd_cat(const struct lr_global *g, int argc, char **argv);
int cmd_sql(const struct lr_global *g, int argc, char **argv);
int cmd_fsck(const struct lr_global *g, int argc, char **argv);
int cmd_config(const struct lr_global *g, int argc, char **argv);
int cmd_key(const struct lr_global *g, int argc, char **argv);
int cmd_encode(const struct lr_global *g, int argc, char **argv);
int cmd_decode(const struct lr_global *g, int argc, char **argv);
int cmd_bench(const struct lr_global *g, int argc, char **argv);
int cmd_import(const struct lr_global *g, int argc, char **argv);
int cmd_run(const struct lr_global *g, int argc, char **argv);

struct lr_expdef;
struct lr_run_result;
struct lr_runopts;

/* ---- print.c: printing shared by several commands ---- */

/*
 * Print what an experiment run just did: its design and arms, then its
 * tables as the report writes them (rr, the run's report, built from the
 * store), its failed or missing conditions, its serving evidence (sv: every
 * cell, failing case and uncollected cell), how the figures are made, and a
 * closing line that counts condition, comparison and gate failures.
 */
struct lr_report_run;
struct lr_serving_report;
void cmd_print_experiment(const struct lr_expdef *d, const struct lr_run *run, const struct lr_run_result *r,
			  const struct lr_report_run *rr, const struct lr_serving_report *sv);

/*
 * Progress (cmd/progress.c): begin decides how it shows, from a terminal on
 * stderr, the command's --progress ('asked'), LABRUN_PROGRESS (1 on, 0 off)
 * and -q, and installs base/progress.h's sink; end clears a terminal line.
 * text shows one line of the command's own (an experiment's condition and
 * block), at most every few seconds off a terminal unless 'force'd.
 */
enum cmd_progress_mode { CMD_PROGRESS_OFF, CMD_PROGRESS_TERMINAL, CMD_PROGRESS_LINES };
enum cmd_progress_mode cmd_progress_begin(const char *cmd, int asked, int quiet);
void cmd_progress_text(int force, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cmd_progress_end(void);
/* Clear a terminal's progress line before printing a line of one's own (the next progress redraws it). */
void cmd_progress_clear(void);

struct lr_run_progress;
/* Progress of an experiment (cmd_progress_text): condition, block, elapsed, forecast. */
void cmd_run_progress(void *arg, const struct lr_run_progress *p);

int cmd_replay(const struct lr_global *g, int argc, char **argv);
int cmd_diff(const struct lr_global *g, int argc, char **argv);
int cmd_site(const struct lr_global *g, int argc, char **argv);
int cmd_report(const struct lr_global *g, int argc, char **argv);
int cmd_archive(const struct lr_global *g, int argc, char **argv);
int cmd_audit(const struct lr_global *g, int argc, char **argv);
int cmd_manifest(const struct lr_global *g, int argc, char **argv);
int cmd_register(const struct lr_global *g, int argc, char **argv);
int cmd_ingest(const struct lr_global *g, int argc, char **argv);
int cmd_collect(const struct lr_global *g, int argc, char **argv);
int cmd_compare(const struct lr_global *g, int argc, char **argv);
int cmd_gate(const struct lr_global *g, int argc, char **argv);
int cmd_scan(const struct lr_global *g, int argc, char **argv);
int cmd_remote(const struct lr_global *g, int argc, char **argv);
int cmd_push(const struct lr_global *g, int argc, char **argv);
int cmd_pull(const struct lr_global *g, int argc, char **argv);
int cmd_verify(const struct lr_global *g, int argc, char **argv);

struct lr_comparison;
/* Print the comparison of run b against run a: drift, and per-condition parity and timing for experiment runs. */
void cmd_print_comparison(const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp, int replay);

/*
 * Ctrl-C (SIGINT) and SIGTERM as a cancel request: while installed they set
 * cmd_cancel_requested (cleared on install), which long operations poll;
 * cmd_cancel_restore puts the old handlers back.
 */
extern atomic_int cmd_cancel_requested;
struct cmd_cancel {
	struct sigaction old_int, old_term;
};
void cmd_cancel_install(struct cmd_cancel *c);
void cmd_cancel_restore(struct cmd_cancel *c);

/* Print the current error ("labrun: error: ..." and its hint) to stderr and
 * return the exit code for 'rc'. */
int cmd_fail(int rc);

/* A command's --json answer: o on stdout, indented, a newline after it; o is released. */
void cmd_json_print(json_t *o);

/* ---- open.c: the one way into the store ---- */

/* The store if there is one, opened to read its settings; LR_ENOTFOUND (no message) when none. */
int cmd_open_store_quiet(struct lr_store **st, const struct lr_global *g);

/*
 * Open the store for the running command, in the mode its row of the
 * command table gives (g->mode): CMD_CREATES creates it when missing; the
 * signing key is loaded (a writer refuses one it cannot use, and a store
 * the user's configuration knows as signed without a key). Runs whose
 * recorder died are marked abandoned first. On failure prints the error
 * and returns its exit code (> 0); 0 on success.
 */
int cmd_open_store(struct lr_store **st, const struct lr_global *g);

/* The same, also saying how many runs were marked abandoned (for fsck). */
int cmd_open_store_counted(struct lr_store **st, const struct lr_global *g, int *abandoned);

/*
 * Scan runs[0..n) as they would be published (lr_scan_run) with the store's
 * scan settings; new findings are printed to stderr and, unless 'allow',
 * refuse the publication (LR_EREFUSED). 'what' names it ("write a crate").
 */
int cmd_scan_runs(struct lr_store *st, const int64_t *runs, int n, int allow, const char *what);

/*
 * The keys to hold signatures to: the user's configuration (or, with
 * 'only', just the keys of that file), and the keys of each of 'files'
 * (--trust FILE). Release t with lr_trust_release() even on failure.
 */
struct lr_trust;
int cmd_trust_load(struct lr_trust *t, const struct lr_strlist *files, const char *only);

/* Warn that a crate or archive declares the placeholder licence 'license'. */
void cmd_warn_license(const char *license);

/* Report a usage problem of 'cmd' (printf-style) and return LR_EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append the comma-separated items of 'arg' to 'out' (blanks around them dropped). */
int cmd_split_list(struct lr_strlist *out, const char *arg);

/* The argv JSON of a run as a shell-quoted command line (malloc'd). */
char *cmd_argv_text(const char *argv_json);

/* Write "  KEY  VALUE" style human sizes: "12 B", "3.4 KiB"... into buf. */
const char *cmd_human_size(char *buf, size_t len, long long bytes);

/* ---- table.c: one writer per format for a table of typed cells ---- */

#include "base/table.h"

/* As Markdown, as HTML (a <table>), as CSV (RFC 4180, the header when 'header'), as JSON (an object a row). */
void cmd_table_md(FILE *f, const struct lr_table *t);
void cmd_table_html(FILE *f, const struct lr_table *t);
LR_MUST_CHECK int cmd_table_csv(FILE *f, const struct lr_table *t, int header);
json_t *cmd_table_json(const struct lr_table *t);

/* On a terminal, 'indent' spaces in: the head and every row from 0, else rows from..end (as they come). */
LR_MUST_CHECK int cmd_table_text(FILE *f, const struct lr_table *t, int indent, size_t from);

/* ---- bench-tables.c: each benchmark's results as tables, for 'bench' and 'report --run' ---- */

struct lr_collectbench_result;
struct lr_importbench_result;
struct lr_ingestbench_result;
struct lr_remotebench_result;
struct lr_storebench_row;

/* The rows of one shape of an encoder benchmark, a row per variant, appended to t (cmd_bench_encoder_cols). */
extern const struct lr_column cmd_bench_encoder_cols[];
extern const int cmd_bench_encoder_ncols;
void cmd_bench_encoder_rows(struct lr_table *t, const struct lr_bench_opts *o, const struct lr_bench_result *r);

/* "[L,2,H,T,D]: N elements, X MiB in + Y MiB out". */
void cmd_bench_encoder_heading(char *buf, size_t size, const struct lr_bench_opts *o, const struct lr_bench_result *r);

/* That shape in sentences joined by 'sep' (". ", ".\n"): the best kernel, the permuted view, file to file. */
void cmd_bench_encoder_summary(char *buf, size_t size, const struct lr_bench_result *r, const char *sep);

/* One shape as JSON: its facts and a row per variant. */
json_t *cmd_bench_json(const struct lr_bench_opts *o, const struct lr_bench_result *r);

/* The tables of the other benchmarks (t is initialised here; lr_table_release it). */
void cmd_bench_store_table(struct lr_table *t);
void cmd_bench_store_row(struct lr_table *t, const struct lr_storebench_row *r);
void cmd_bench_import_table(struct lr_table *t, const struct lr_importbench_result *r);
void cmd_bench_ingest_table(struct lr_table *t, const struct lr_ingestbench_result *r);
void cmd_bench_remote_table(struct lr_table *t, const struct lr_remotebench_result *r);
void cmd_bench_collect_table(struct lr_table *t, const struct lr_collectbench_result *r);

/* ---- render.c: the report's writers ---- */

struct lr_report;
struct lr_serving_report;
struct lr_serving_cell;

/* The comparison tables of one run of a report, as Markdown: what 'report' and 'run' print. */
struct lr_report_run;
void cmd_render_tables(FILE *f, const struct lr_report_run *rr);

/*
 * One comparison table of a run, a row per condition (its estimate,
 * interval, drift and verdict), for every format; its heads live in *h.
 */
struct lr_report_table;
struct cmd_render_heads {
	struct lr_column cols[9];
	char text[3][160];
};
void cmd_render_table(struct lr_table *t, struct cmd_render_heads *h, const struct lr_report_run *rr,
		      const struct lr_report_table *tb);

/* The report in 'format' (md, csv or json) to f. */
LR_MUST_CHECK int cmd_render_report(FILE *f, const char *format, const struct lr_report *rep,
				    const struct lr_serving_report *sv, const char *title);

/*
 * The serving matrix (a row per run and condition, a column per route; its
 * columns malloc'd: cmd_render_matrix_release), the per-route timing
 * table, and the sentence that accounts for every cell (within-route,
 * cross-route and gate checks apart), with the prose before and after the
 * matrix: what every format shows.
 */
LR_MUST_CHECK int cmd_render_matrix(struct lr_table *t, const struct lr_serving_report *sv);
void cmd_render_matrix_release(struct lr_table *t);
LR_MUST_CHECK int cmd_render_route_stats(struct lr_table *t, const struct lr_serving_report *sv);
const char *cmd_render_cells_text(char *buf, size_t len, const struct lr_serving_report *sv);
extern const char cmd_render_cells_intro[], cmd_render_cells_outro[];
/* The collected passes: throughput and the concurrency self-check; TTFT, TPOT, ITL and E2EL. */
LR_MUST_CHECK int cmd_render_passes(struct lr_table *t, const struct lr_serving_report *sv);
LR_MUST_CHECK int cmd_render_latency(struct lr_table *t, const struct lr_serving_report *sv);
LR_MUST_CHECK int cmd_render_occupancy(struct lr_table *t, const struct lr_serving_report *sv);
extern const char cmd_render_passes_intro[];
/* The footnote under a table with a row marked "(a)": its medians and its estimate differ in sign. */
extern const char cmd_render_sign_note[];
int cmd_render_sign_noted(const struct lr_report_table *tb);

/*
 * The report of runs ids[0..n) as a crate holds it: Markdown and JSON,
 * new strings (both NULL when the runs have no experiment run and no
 * serving evidence: then there is no report).
 */
int cmd_render_crate_report(struct lr_store *st, const int64_t *ids, int n, const char *title, char **md, char **json);

/* The files manifest and archive put at a crate's root: report.md and report.json. */
#include "evidence/manifest.h"
struct cmd_crate_files {
	struct lr_crate_file files[2];
	size_t n;
	char *md, *json;
};
int cmd_crate_files(struct lr_store *st, const int64_t *ids, int n, const char *title, struct cmd_crate_files *out);
void cmd_crate_files_release(struct cmd_crate_files *f);

/*
 * What manifest and archive publish (common.c): the runs of --run and
 * --issue with the runs they point at, scanned for new findings, with the
 * report files and the title they share. _open returns 0 or the exit status
 * (reported); _release it either way.
 */
struct cmd_crate_job {
	struct lr_store *st;
	int64_t *ids, *all;	/* the runs chosen; and with the runs they point at */
	int n, nall;
	char name[280];		/* "run-1", "issue-270": for default file names */
	char title[400];	/* "labrun evidence: run 1" */
	struct cmd_crate_files cf;
};
int cmd_crate_job_open(struct cmd_crate_job *j, const struct lr_global *g, const struct lr_strlist *runs,
		       const struct lr_strlist *issues, int allow, const char *select_verb, const char *scan_verb);
void cmd_crate_job_release(struct cmd_crate_job *j);

/* The method in one paragraph: the same words in every format that has prose. */
extern const char cmd_render_method[];

/* A serving matrix cell in words: parity over its comparisons, then its gate. */
const char *cmd_render_cell_text(char *buf, size_t len, const struct lr_serving_cell *c);

/* s with &, <, > and " escaped for HTML text and attribute values. */
void cmd_html_text(FILE *f, const char *s);

/*
 * The report in HTML (render-html.c): the whole page 'report --format html'
 * writes; and its parts for the pages of 'labrun site': each experiment run's
 * facts, tables and charts, and the serving evidence.
 */
void cmd_render_html(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title);
void cmd_render_html_runs(FILE *f, const struct lr_report *rep);
void cmd_render_html_serving(FILE *f, const struct lr_serving_report *sv);

struct lr_trust;
/*
 * The static site of runs ids[0..n) (render-site.c) into 'dir', which exists
 * and is empty: index pages, a page and a data file per run, the diff page,
 * style and script. Signers are held to 'trust'. 'labrun site' and
 * 'labrun manifest --site' write it.
 */
int cmd_render_site(struct lr_store *st, const struct lr_trust *trust, const int64_t *ids, int n, const char *dir);

/*
 * s as Markdown text from the outside world (route names, case ids): line
 * breaks and other control characters become blanks, so nothing ends a row
 * or starts a heading; in a table cell (cell set) '|' and '\\' are escaped.
 */
void cmd_md_text(FILE *f, const char *s, int cell);
/* s for a terminal: control characters (escape sequences, line breaks) as \xHH, so text from a store or another host cannot move the cursor, recolour or rewrite what was printed. */
void cmd_term_text(FILE *f, const char *s);

#endif
