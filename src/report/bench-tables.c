/*
 * Each benchmark as it is shown (bench-int.h): the lines that say what ran,
 * its columns and how each figure comes from the model's series, and what the
 * figures are. The same for 'labrun bench' and 'labrun report --run', in any
 * format; the document around them is bench.c's.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>
#include <stdarg.h>

#include "experiment/encoderbench.h"
#include "experiment/storebench.h"
#include "report/bench-int.h"

/* ---- what the tables here use ---------------------------------------------------- */

/* The median of the row's subject's 'variant' in 'unit' (NAN: none). */
static double med(const struct lr_bench_row *r, const char *variant, const char *unit)
{
	return lr_bench_median(lr_bench_find(r->b, r->subject, variant, unit));
}

/* lr_bench_ratio of the row's subject's variants (seconds); NAN when one that is named is missing. */
static double ratio(const struct lr_bench_row *r, const char *num, const char *den, const char *den2, double k)
{
	const char *name[3] = { num, den, den2 };
	const struct lr_bench_series *s[3] = { NULL, NULL, NULL };

	for (int i = 0; i < 3; i++)
		if (name[i] && !(s[i] = lr_bench_find(r->b, r->subject, name[i], "s")))
			return NAN;
	return lr_bench_ratio(s[0], s[1], s[2], k);
}

/* The number a subject ends with, a store's scale "100000" or a level "concurrency 16"; or the subject. */
static void subject_cell(struct lr_table *t, const char *subject)
{
	const char *sp = strrchr(subject, ' '), *n = sp ? sp + 1 : subject;
	char *end;
	long long v = strtoll(n, &end, 10);

	if (end != n && !*end)
		lr_table_int(t, v);
	else
		lr_table_text(t, subject);
}

/* ---- store ---------------------------------------------------------------------- */

/*
 * A row a command, a column a store: its median in each, then its ratio to the
 * smallest store in each larger one. The columns depend on the run's scales, so
 * they are kept here, named as the last store table built names them (a process
 * shows one run's table at a time).
 */
enum { STORE_MAX = 16 };
static struct lr_column store_cols[1 + 2 * STORE_MAX] = { { "command", "command", 0 } };
static char store_names[2 * STORE_MAX][2][40];

/* The columns for b's scales (at most STORE_MAX); the number of them. */
static int store_columns(const struct lr_bench *b, size_t *nscales)
{
	size_t n = b->subjects.n < STORE_MAX ? b->subjects.n : STORE_MAX, c = 1;

	for (size_t k = 0; k < 2; k++)
		for (size_t i = k; i < n; i++, c++) {
			char(*name)[40] = store_names[c - 1];

			snprintf(name[0], sizeof name[0], k ? "x_%s" : "ms_%s", b->subjects.v[i]);
			snprintf(name[1], sizeof name[1], k ? "%s x smallest" : "%s runs ms", b->subjects.v[i]);
			store_cols[c] = (struct lr_column){ name[0], name[1], LR_COL_NUMBER };
		}
	*nscales = n;
	return (int)c;
}

/* One command's row: its medians, then each larger store's over the smallest's. */
static void store_command(struct lr_table *t, const struct lr_bench *b, size_t n, const char *op)
{
	double first = lr_bench_median(lr_bench_find(b, b->subjects.v[0], op, "s"));

	lr_table_text(t, op);
	for (size_t i = 0; i < n; i++)
		lr_benchdoc_cell(t, lr_bench_median(lr_bench_find(b, b->subjects.v[i], op, "s")) * 1e3, 2);
	for (size_t i = 1; i < n; i++)
		lr_benchdoc_cell(t, lr_bench_median(lr_bench_find(b, b->subjects.v[i], op, "s")) / first, 2);
}

/* A row of record over start-up alone, repetition by repetition within each store. */
static void store_startup(struct lr_table *t, const struct lr_bench *b, size_t n)
{
	lr_table_text(t, "record x version");
	for (size_t i = 0; i < n; i++)
		lr_benchdoc_cell(t,
				 lr_bench_ratio(lr_bench_find(b, b->subjects.v[i], "record", "s"),
						lr_bench_find(b, b->subjects.v[i], "version", "s"), NULL, 1),
				 2);
	for (size_t i = 1; i < n; i++)
		lr_table_none(t);
}

static void store_table(struct lr_table *t, const struct lr_run *run, const struct lr_bench *b)
{
	size_t n;
	int ncols = store_columns(b, &n);

	lr_table_init(t, store_cols, ncols);
	if (run->status == LR_RUNNING) /* its columns grow with every store: shown whole once all are measured */
		return;
	for (const char *const *op = lr_storebench_ops_names; n && *op; op++)
		if (lr_bench_find(b, b->subjects.v[0], *op, "s")) /* push and pull only with a remote */
			store_command(t, b, n, *op);
	if (n && lr_bench_find(b, b->subjects.v[0], "version", "s") &&
	    lr_bench_find(b, b->subjects.v[0], "record", "s"))
		store_startup(t, b, n); /* both timed: a ratio to a missing series would read as 1 */
}

static void store_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(
		d, "labrun bench store: %s runs of each command per store (first dropped), alternated; stores in %s",
		lr_benchdoc_set(run, "reps"), lr_benchdoc_set(run, "store_dir"));
	lr_benchdoc_say(
		d,
		"version: --version (start-up alone); record: record -q -- true; list: list -n 20; show, report: "
		"show ID, report --run ID of an experiment run; audit; push, pull: with a remote (pull --run UUID of a "
		"run both hold)");
	lr_benchdoc_host(d, run, "");
}

static void store_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	for (size_t i = 0; i < b->subjects.n; i++) {
		const char *sub = b->subjects.v[i];

		lr_benchdoc_note(d, "store of %s: %.0f runs, %.0f repetitions, stored in %.1f s", sub,
				 lr_bench_median(lr_bench_find(b, sub, "runs", "runs")),
				 lr_bench_median(lr_bench_find(b, sub, "repetitions", "repetitions")),
				 lr_bench_median(lr_bench_find(b, sub, "generate", "s")));
	}
	lr_benchdoc_note(
		d,
		"times are medians in ms, measured; record x version is the median of each repetition's ratio in the "
		"same store; the stored runs are synthetic: recorded runs of 'true' stored, sealed and chained as "
		"'labrun record' stores them (not executed), experiment runs with generated times");
}

/* ---- import --------------------------------------------------------------------- */

static const struct lr_column import_cols[] = {
	{ "variant", "variant", 0 },
	{ "first_ms", "first touch ms", LR_COL_NUMBER },
	{ "first_x_ceilings", "first x (copy + tree hash)", LR_COL_NUMBER },
	{ "steady_ms", "steady ms", LR_COL_NUMBER },
	{ "steady_x_ceilings", "steady x (copy + tree hash)", LR_COL_NUMBER },
	{ "steady_import_ms", "steady import ms", LR_COL_NUMBER },
	{ "steady_import_x_ceiling", "steady import x ceiling", LR_COL_NUMBER },
	{ "import_ms", "first import ms", LR_COL_NUMBER },
	{ "ceiling_ms", "ceiling ms", LR_COL_NUMBER },
	{ "tree_hash_ms", "tree hash ms", LR_COL_NUMBER },
	{ "command_ms", "command ms", LR_COL_NUMBER },
};

/* Runs stored before a figure was measured ('tree', then 'first' and 'steady') have no value in its columns. */
static void import_row(struct lr_table *t, const struct lr_bench_row *r)
{
	lr_table_text(t, r->subject);
	lr_benchdoc_cell(t, med(r, "first", "s") * 1e3, 1);
	lr_benchdoc_cell(t, ratio(r, "first", "ceiling", "tree", 1), 2);
	lr_benchdoc_cell(t, med(r, "steady", "s") * 1e3, 1);
	lr_benchdoc_cell(t, ratio(r, "steady", "ceiling", "tree", 1), 2);
	lr_benchdoc_cell(t, med(r, "steady_import", "s") * 1e3, 1);
	lr_benchdoc_cell(t, ratio(r, "steady_import", "ceiling", NULL, 1), 2);
	lr_benchdoc_cell(t, med(r, "import", "s") * 1e3, 1);
	lr_benchdoc_cell(t, med(r, "ceiling", "s") * 1e3, 2);
	lr_benchdoc_cell(t, med(r, "tree", "s") * 1e3, 2);
	lr_benchdoc_cell(t, med(r, "command", "s") * 1e3, 1);
}

static void import_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(
		d,
		"labrun bench import: %s, %s tokens, SIMULATED device, %s imports a command, %s runs of each variant "
		"(first dropped), %s encoder thread%s",
		lr_benchdoc_set(run, "model"), lr_benchdoc_set(run, "tokens"), lr_benchdoc_set(run, "imports"),
		lr_benchdoc_set(run, "reps"), lr_benchdoc_set(run, "threads"), lr_benchdoc_plural(run, "threads"));
	lr_benchdoc_host(d, run, "");
}

static void import_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)b;
	lr_benchdoc_note(d,
			 "first touch: the command's first import, lease, import, readback and digest, the simulated "
			 "device faulting its fresh memory in");
	lr_benchdoc_note(
		d, "steady: the same cycle once the device holds its memory (the imports after the second: a lane's "
		   "import and a lease beside it), median over a command's imports");
	lr_benchdoc_note(
		d,
		"ceiling: the fastest copy of the same bytes (memcpy, non-temporal), measured by the command; tree hash: the device state's digest of "
		"as many bytes in memory, on %s CPU(s), right after each run",
		lr_benchdoc_set(run, "tree_threads"));
	lr_benchdoc_note(
		d, "x (copy + tree hash): over both ceilings of the same run; command: the whole process (source, "
		   "every import, recording); medians over runs; measured, not modelled");
}

/* ---- remote --------------------------------------------------------------------- */

static const struct lr_column remote_cols[] = {
	{ "command", "command", 0 },
	{ "wall_s", "wall s", LR_COL_NUMBER },
	{ "objects_mib_per_s", "objects MiB/s", LR_COL_NUMBER },
	{ "peak_rss_mib", "peak RSS MiB", LR_COL_NUMBER },
};
static const char *const remote_rows[] = { "push", "pull", NULL };

static void remote_row(struct lr_table *t, const struct lr_bench_row *r)
{
	double wall = med(r, r->variant, "s");

	lr_table_text(t, r->variant);
	lr_benchdoc_cell(t, wall, 2);
	lr_benchdoc_cell(t, med(r, "objects", "bytes") / (1 << 20) / wall, 0);
	lr_benchdoc_cell(t, med(r, r->variant, "KiB") / 1024, 1);
}

static void remote_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(d, "labrun bench remote: %s runs, %s repetitions, %.0f MiB of objects, to remote '%s' and back",
			lr_benchdoc_set(run, "runs"), lr_benchdoc_set(run, "reps"),
			lr_benchdoc_setnum(run, "object_bytes") / (1 << 20), lr_benchdoc_set(run, "remote"));
	lr_benchdoc_host(d, run, "");
}

static void remote_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	lr_benchdoc_note(d,
			 "%s runs, %s repetitions, %.0f MiB of objects (generated in %.2f s); measured, not modelled",
			 lr_benchdoc_set(run, "runs"), lr_benchdoc_set(run, "reps"),
			 lr_bench_median(lr_bench_find(b, "", "objects", "bytes")) / (1 << 20),
			 lr_bench_median(lr_bench_find(b, "", "generate", "s")));
}

/* ---- collect -------------------------------------------------------------------- */

static const struct lr_column collect_cols[] = {
	{ "concurrency", "concurrency", LR_COL_NUMBER },
	{ "client", "client", 0 },
	{ "cpu_us_per_token", "CPU us/token", LR_COL_NUMBER },
	{ "requests_per_s", "requests/s", LR_COL_NUMBER },
	{ "server_us_per_token", "server CPU us/token", LR_COL_NUMBER },
	{ "server_busy", "server busy", LR_COL_NUMBER },
	{ "x_peer_cpu", "x python CPU", LR_COL_NUMBER },
	{ "x_raw_cpu", "x raw CPU", LR_COL_NUMBER },
	{ "lag_p50_ms", "lag p50 ms", LR_COL_NUMBER },
	{ "lag_p99_ms", "lag p99 ms", LR_COL_NUMBER },
	{ "lag_max_ms", "lag max ms", LR_COL_NUMBER },
};
static const char *const collect_rows[] = { "labrun", "python", "raw", "floor", NULL };

/* A client's figures over its passes: CPU and the server's CPU per token streamed, requests over its own pass. */
static void collect_row(struct lr_table *t, const struct lr_bench_row *r)
{
	const double requests = lr_benchdoc_setnum(r->run, "requests"),
		     per_token = 1e6 / (requests * lr_benchdoc_setnum(r->run, "tokens"));
	static const char *const lags[3] = { "lag p50", "lag p99", "lag max" };
	char cpu[64], pass[64], server[64], lag[64];

	snprintf(cpu, sizeof cpu, "%s: cpu", r->variant);
	snprintf(pass, sizeof pass, "%s: pass", r->variant);
	snprintf(server, sizeof server, "%s: server cpu", r->variant);
	subject_cell(t, r->subject);
	lr_table_text(t, r->variant);
	lr_benchdoc_cell(t, ratio(r, cpu, NULL, NULL, per_token), 2);
	lr_benchdoc_cell(t, ratio(r, NULL, pass, NULL, requests), 0);
	lr_benchdoc_cell(t, ratio(r, server, NULL, NULL, per_token), 2);
	lr_benchdoc_cell(t, ratio(r, server, pass, NULL, 1), 2);
	if (r->index == 0 || r->index == 2) /* labrun's and the raw client's CPU over the peer's, rep by rep */
		lr_benchdoc_cell(t, ratio(r, cpu, "python: cpu", NULL, 1), 3);
	else
		lr_table_none(t);
	if (r->index == 0) /* labrun's CPU over the raw client's: what labrun spends above the floor */
		lr_benchdoc_cell(t, ratio(r, cpu, "raw: cpu", NULL, 1), 3);
	else
		lr_table_none(t);
	for (int k = 0; k < 3; k++) { /* a run stored before the send lag was measured has none */
		snprintf(lag, sizeof lag, "%s: %s", r->variant, lags[k]);
		lr_benchdoc_cell(t, med(r, lag, "s") * 1e3, 3);
	}
}

static void collect_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(
		d,
		"labrun bench collect: %s requests of %s tokens a pass, %s passes of each client a level (first "
		"dropped), alternated;",
		lr_benchdoc_set(run, "requests"), lr_benchdoc_set(run, "tokens"), lr_benchdoc_set(run, "reps"));
	if (lr_benchdoc_setnum(run, "gap_ms") > 0 || lr_benchdoc_setnum(run, "ttft_ms") > 0)
		lr_benchdoc_say(
			d,
			"the null server paces its streams: first token %s ms after the request, then one event a write "
			"every %s ms",
			lr_benchdoc_set(run, "ttft_ms"), lr_benchdoc_set(run, "gap_ms"));
	else
		lr_benchdoc_say(d, "the null server writes %s token chunk(s) at once", lr_benchdoc_set(run, "burst"));
	if (lr_benchdoc_setnum(run, "rate") > 0)
		lr_benchdoc_say(
			d,
			"arrivals: Poisson, %s requests/s, the same times for both clients, the level capping those in "
			"flight",
			lr_benchdoc_set(run, "rate"));
	if (strcmp(lr_benchdoc_set(run, "cpus"), "none") && strcmp(lr_benchdoc_set(run, "cpus"), "?"))
		lr_benchdoc_say(d, "pinned: the server to CPU %.*s, the clients to CPU %s",
				(int)strcspn(lr_benchdoc_set(run, "cpus"), ","), lr_benchdoc_set(run, "cpus"),
				strchr(lr_benchdoc_set(run, "cpus"), ',')
					? strchr(lr_benchdoc_set(run, "cpus"), ',') + 1
					: "?");
	lr_benchdoc_say(
		d,
		"labrun: 'labrun collect', storing everything; python: %s (%s), asyncio, writing the same responses "
		"to a file; raw: epoll, recv and HTTP's chunk framing only",
		lr_benchdoc_set(run, "peer"), lr_benchdoc_set(run, "python"));
	lr_benchdoc_host(d, run, "");
}

static void collect_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run, (void)b;
	lr_benchdoc_note(
		d, "CPU: the client process's own user + sys time (from wait4: not the server's, not this "
		   "process's) over the tokens it streamed, start-up included; requests/s over the client's own pass");
	lr_benchdoc_note(
		d, "server: the null server's CPU in the same pass (busy: over the pass time; below 1, it was not the "
		   "bottleneck); medians, measured");
	lr_benchdoc_note(
		d, "lag: a request's send time, as the client took it (labrun: handed to libcurl; python: its POST "
		   "begun), less its scheduled time; all at once, that is the wait for a free slot; p50, p99 and max "
		   "over a pass's requests, medians over the passes");
	lr_benchdoc_note(
		d,
		"raw: a client in C that does only what none can skip (an epoll loop, a recv and a clock read when a "
		"socket is readable, the chunk framing followed to count events), no JSON, nothing kept: the CPU "
		"floor of any client reading each event as it comes, on this machine");
	lr_benchdoc_note(
		d, "floor: this process alone on the clients' CPU, sleeping on a timer to each arrival, between the "
		   "clients' passes: the lag no client on that CPU could beat at the time");
}

/* ---- ingest --------------------------------------------------------------------- */

static const struct lr_column ingest_cols[] = {
	{ "command", "command", 0 },
	{ "median_ms", "median ms", LR_COL_NUMBER },
	{ "mb_per_s", "MB/s of the file", LR_COL_NUMBER },
	{ "x_python", "x python", LR_COL_NUMBER },
	{ "x_script", "x script", LR_COL_NUMBER },
	{ "x_floor", "x floor", LR_COL_NUMBER },
};
static const char *const ingest_rows[] = { "ingest", "python", "script", "floor", "compare", NULL };

static void ingest_row(struct lr_table *t, const struct lr_bench_row *r)
{
	static const char *const names[] = { "labrun ingest responses", "python json.loads loop",
					     "python script (json.loads + executemany)", "I/O floor (dd, fsync)",
					     "labrun compare (two sets)" };
	double ms = med(r, r->variant, "s") * 1e3;

	lr_table_text(t, names[r->index]);
	lr_benchdoc_cell(t, ms, 1);
	if (r->index < 3 && ms > 0) /* the file read: ingest and the peers */
		lr_benchdoc_cell(t, med(r, "file", "B") / 1e3 / ms, 1);
	else
		lr_table_none(t);
	if (r->index == 0) {
		lr_benchdoc_cell(t, ratio(r, "ingest", "python", NULL, 1), 2);
		lr_benchdoc_cell(t, ratio(r, "ingest", "script", NULL, 1), 2);
		lr_benchdoc_cell(t, ratio(r, "ingest", "floor", NULL, 1), 2);
	} else {
		for (int i = 0; i < 3; i++)
			lr_table_none(t);
	}
}

static void ingest_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(
		d,
		"labrun bench ingest: %s responses of %s tokens, %s repetitions (first dropped); peers: %s, 'for line "
		"in f: json.loads(line)', and a script storing the same rows (json.loads, sqlite3 executemany, one "
		"transaction, synchronous=FULL)",
		lr_benchdoc_set(run, "responses"), lr_benchdoc_set(run, "tokens"), lr_benchdoc_set(run, "reps"),
		lr_benchdoc_set(run, "python"));
	lr_benchdoc_host(d, run, "");
}

static void ingest_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	lr_benchdoc_note(
		d,
		"the file: %.1f MB; x python, x script, x floor: ingest's wall time over the peer's or the floor's, "
		"repetition by repetition, their median",
		lr_bench_median(lr_bench_find(b, "ingest", "file", "B")) / 1e6);
	lr_benchdoc_note(
		d,
		"floor: the bytes ingest wrote (its block output, %.1f MB: the object, the WAL, the checkpoint), "
		"written by dd conv=fsync into the same directory",
		lr_bench_median(lr_bench_find(b, "ingest", "written", "B")) / 1e6);
	lr_benchdoc_note(d, "wall time of each whole process; measured, not modelled");
}

/* ---- scan ----------------------------------------------------------------------- */

static const struct lr_column scan_cols[] = {
	{ "command", "command", 0 },
	{ "median_ms", "median ms", LR_COL_NUMBER },
	{ "mb_per_s", "MB/s of the line", LR_COL_NUMBER },
	{ "x_cat", "x cat", LR_COL_NUMBER },
	{ "x_grep", "x grep", LR_COL_NUMBER },
};
static const char *const scan_rows[] = { "scan", "manifest refused", "manifest written", "grep", "cat", NULL };

static void scan_row(struct lr_table *t, const struct lr_bench_row *r)
{
	static const char *const names[] = { "labrun scan FILE", "labrun manifest (refused)",
					     "labrun manifest --allow-findings", "grep -c -E TOKEN-REGEX FILE",
					     "cat FILE > /dev/null" };
	double ms = med(r, r->variant, "s") * 1e3;

	lr_table_text(t, names[r->index]);
	lr_benchdoc_cell(t, ms, 1);
	lr_benchdoc_cell(t, ms > 0 ? med(r, "file", "B") / 1e3 / ms : NAN, 1);
	lr_benchdoc_cell(t, ratio(r, r->variant, "cat", NULL, 1), 2);
	lr_benchdoc_cell(t, ratio(r, r->variant, "grep", NULL, 1), 2);
}

static void scan_head(struct lr_doc *d, const struct lr_run *run)
{
	lr_benchdoc_say(
		d,
		"labrun bench scan: one line of %s bytes without a blank, a made-up GitHub token at its end; %s "
		"repetitions (first dropped); peers: cat, %s",
		lr_benchdoc_set(run, "bytes"), lr_benchdoc_set(run, "reps"), lr_benchdoc_set(run, "grep"));
	lr_benchdoc_host(d, run, "");
}

static void scan_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	lr_benchdoc_note(
		d,
		"the line: %.0f bytes, the token its last 40; checked: the line without the token scans clean; scan and "
		"both manifests found the token every time (the refused one wrote nothing)",
		lr_bench_median(lr_bench_find(b, "line", "file", "B")));
	lr_benchdoc_note(
		d, "x cat, x grep: a command's wall time over the peer's, repetition by repetition, their median; wall "
		   "time of each whole process, start-up included; measured, not modelled");
}

/* ---- the definitions ------------------------------------------------------------ */

static const struct lr_bench_def store_def = {
	.cols = store_cols,
	.ncols = 1,
	.rows_key = "commands",
	.head = store_head,
	.notes = store_notes,
	.table = store_table,
};

static const struct lr_bench_def import_def = {
	COLS(import_cols), .rows_key = "variants", .variants = NULL,
	.row = import_row, .head = import_head,    .notes = import_notes,
};

static const struct lr_bench_def remote_def = {
	COLS(remote_cols), .rows_key = "commands", .variants = remote_rows,
	.row = remote_row, .head = remote_head,    .notes = remote_notes,
};

static const struct lr_bench_def collect_def = {
	COLS(collect_cols), .rows_key = "levels", .variants = collect_rows,
	.row = collect_row, .head = collect_head, .notes = collect_notes,
};

static const struct lr_bench_def ingest_def = {
	COLS(ingest_cols), .rows_key = "commands", .variants = ingest_rows,
	.row = ingest_row, .head = ingest_head,    .notes = ingest_notes,
};

static const struct lr_bench_def scan_def = {
	COLS(scan_cols), .rows_key = "commands", .variants = scan_rows,
	.row = scan_row, .head = scan_head,      .notes = scan_notes,
};

static const struct lr_bench_def *const defs[] = {
	[LR_BENCHMARK_ENCODER] = &lr_benchdoc_encoder,
	[LR_BENCHMARK_STORE] = &store_def,
	[LR_BENCHMARK_IMPORT] = &import_def,
	[LR_BENCHMARK_REMOTE] = &remote_def,
	[LR_BENCHMARK_COLLECT] = &collect_def,
	[LR_BENCHMARK_INGEST] = &ingest_def,
	[LR_BENCHMARK_SCAN] = &scan_def,
};

const struct lr_bench_def *lr_render_bench_def(enum lr_benchmark which)
{
	return defs[which];
}
