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

/* ---- what every definition uses ------------------------------------------------- */

/* A setting of the run (its binding, else its geometry), or "?". */
static const char *set(const struct lr_run *run, const char *key)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, key);

	if (!e)
		e = lr_kvlist_find(&run->geometry, key);
	return e ? e->value : "?";
}

/* A setting as a number; NAN when there is none or it is not one. */
static double setnum(const struct lr_run *run, const char *key)
{
	const char *v = set(run, key);
	char *end;
	double x = strtod(v, &end);

	return end != v && !*end ? x : NAN;
}

/* "" when the setting is 1, else "s": "1 thread", "2 threads". */
static const char *plural(const struct lr_run *run, const char *key)
{
	return strcmp(set(run, key), "1") ? "s" : "";
}

/* One line of text in block b, printf-style. */
static void vline(struct lr_doc *d, struct lr_doc_block *b, const char *fmt, va_list ap)
{
	struct lr_buf t = LR_BUF_INIT;

	lr_buf_vaddf(&t, fmt, ap);
	lr_doc_add(&b->text, t.buf);
	if (t.failed)
		d->failed = 1;
	lr_buf_release(&t);
}

/* A line of prose: what ran, or what a table says. */
static void __attribute__((format(printf, 2, 3))) say(struct lr_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(d, lr_doc_prose(d), fmt, ap);
	va_end(ap);
}

/* A line under the tables: what the figures are. */
static void __attribute__((format(printf, 2, 3))) note(struct lr_doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(d, lr_doc_note(d), fmt, ap);
	va_end(ap);
}

/* "host NAME: CPU, N CPUs, KERNEL; labrun V" and 'extra': the line every benchmark's head ends with. */
static void host(struct lr_doc *d, const struct lr_run *run, const char *extra)
{
	const struct lr_host *h = &run->host;

	say(d, "host %s: %s, %lld CPUs, %s; labrun %s%s", h->hostname, h->cpu_model ? h->cpu_model : "unknown CPU",
	    (long long)h->cores, h->kernel, run->labrun_version ? run->labrun_version : "?", extra);
}

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

/* A number, or no value when there is none. */
static void cell(struct lr_table *t, double v, int digits)
{
	if (isnan(v) || isinf(v))
		lr_table_none(t);
	else
		lr_table_real(t, v, digits);
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
		cell(t, lr_bench_median(lr_bench_find(b, b->subjects.v[i], op, "s")) * 1e3, 2);
	for (size_t i = 1; i < n; i++)
		cell(t, lr_bench_median(lr_bench_find(b, b->subjects.v[i], op, "s")) / first, 2);
}

/* A row of record over start-up alone, repetition by repetition within each store. */
static void store_startup(struct lr_table *t, const struct lr_bench *b, size_t n)
{
	lr_table_text(t, "record x version");
	for (size_t i = 0; i < n; i++)
		cell(t,
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
	if (n && lr_bench_find(b, b->subjects.v[0], "version", "s"))
		store_startup(t, b, n);
}

static void store_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d, "labrun bench store: %s runs of each command per store (first dropped), alternated; stores in %s",
	    set(run, "reps"), set(run, "store_dir"));
	say(d, "version: --version (start-up alone); record: record -q -- true; list: list -n 20; show, report: "
	       "show ID, report --run ID of an experiment run; audit; push, pull: with a remote (pull --run UUID of a "
	       "run both hold)");
	host(d, run, "");
}

static void store_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	for (size_t i = 0; i < b->subjects.n; i++) {
		const char *sub = b->subjects.v[i];

		note(d, "store of %s: %.0f runs, %.0f repetitions, stored in %.1f s", sub,
		     lr_bench_median(lr_bench_find(b, sub, "runs", "runs")),
		     lr_bench_median(lr_bench_find(b, sub, "repetitions", "repetitions")),
		     lr_bench_median(lr_bench_find(b, sub, "generate", "s")));
	}
	note(d, "times are medians in ms, measured; record x version is the median of each repetition's ratio in the "
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
	cell(t, med(r, "first", "s") * 1e3, 1);
	cell(t, ratio(r, "first", "ceiling", "tree", 1), 2);
	cell(t, med(r, "steady", "s") * 1e3, 1);
	cell(t, ratio(r, "steady", "ceiling", "tree", 1), 2);
	cell(t, med(r, "steady_import", "s") * 1e3, 1);
	cell(t, ratio(r, "steady_import", "ceiling", NULL, 1), 2);
	cell(t, med(r, "import", "s") * 1e3, 1);
	cell(t, med(r, "ceiling", "s") * 1e3, 2);
	cell(t, med(r, "tree", "s") * 1e3, 2);
	cell(t, med(r, "command", "s") * 1e3, 1);
}

static void import_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d,
	    "labrun bench import: %s, %s tokens, SIMULATED device, %s imports a command, %s runs of each variant "
	    "(first dropped), %s encoder thread%s",
	    set(run, "model"), set(run, "tokens"), set(run, "imports"), set(run, "reps"), set(run, "threads"),
	    plural(run, "threads"));
	host(d, run, "");
}

static void import_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)b;
	note(d, "first touch: the command's first import, lease, import, readback and digest, the simulated "
		"device faulting its fresh memory in");
	note(d, "steady: the same cycle once the device holds its memory (the imports after the second: a lane's "
		"import and a lease beside it), median over a command's imports");
	note(d,
	     "ceiling: memcpy of the same bytes, measured by the command; tree hash: the device state's digest of "
	     "as many bytes in memory, on %s CPU(s), right after each run",
	     set(run, "tree_threads"));
	note(d, "x (copy + tree hash): over both ceilings of the same run; command: the whole process (source, "
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
	cell(t, wall, 2);
	cell(t, med(r, "objects", "bytes") / (1 << 20) / wall, 0);
	cell(t, med(r, r->variant, "KiB") / 1024, 1);
}

static void remote_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d, "labrun bench remote: %s runs, %s repetitions, %.0f MiB of objects, to remote '%s' and back",
	    set(run, "runs"), set(run, "reps"), setnum(run, "object_bytes") / (1 << 20), set(run, "remote"));
	host(d, run, "");
}

static void remote_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	note(d, "%s runs, %s repetitions, %.0f MiB of objects (generated in %.2f s); measured, not modelled",
	     set(run, "runs"), set(run, "reps"), lr_bench_median(lr_bench_find(b, "", "objects", "bytes")) / (1 << 20),
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
	{ "lag_p50_ms", "lag p50 ms", LR_COL_NUMBER },
	{ "lag_p99_ms", "lag p99 ms", LR_COL_NUMBER },
	{ "lag_max_ms", "lag max ms", LR_COL_NUMBER },
};
static const char *const collect_rows[] = { "labrun", "python", "floor", NULL };

/* A client's figures over its passes: CPU and the server's CPU per token streamed, requests over its own pass. */
static void collect_row(struct lr_table *t, const struct lr_bench_row *r)
{
	const double requests = setnum(r->run, "requests"), per_token = 1e6 / (requests * setnum(r->run, "tokens"));
	static const char *const lags[3] = { "lag p50", "lag p99", "lag max" };
	char cpu[64], pass[64], server[64], lag[64];

	snprintf(cpu, sizeof cpu, "%s: cpu", r->variant);
	snprintf(pass, sizeof pass, "%s: pass", r->variant);
	snprintf(server, sizeof server, "%s: server cpu", r->variant);
	subject_cell(t, r->subject);
	lr_table_text(t, r->variant);
	cell(t, ratio(r, cpu, NULL, NULL, per_token), 2);
	cell(t, ratio(r, NULL, pass, NULL, requests), 0);
	cell(t, ratio(r, server, NULL, NULL, per_token), 2);
	cell(t, ratio(r, server, pass, NULL, 1), 2);
	if (r->index == 0) /* labrun's CPU over the peer's, repetition by repetition */
		cell(t, ratio(r, "labrun: cpu", "python: cpu", NULL, 1), 3);
	else
		lr_table_none(t);
	for (int k = 0; k < 3; k++) { /* a run stored before the send lag was measured has none */
		snprintf(lag, sizeof lag, "%s: %s", r->variant, lags[k]);
		cell(t, med(r, lag, "s") * 1e3, 3);
	}
}

static void collect_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d,
	    "labrun bench collect: %s requests of %s tokens a pass, %s passes of each client a level (first "
	    "dropped), alternated;",
	    set(run, "requests"), set(run, "tokens"), set(run, "reps"));
	if (setnum(run, "gap_ms") > 0 || setnum(run, "ttft_ms") > 0)
		say(d,
		    "the null server paces its streams: first token %s ms after the request, then one event a write "
		    "every %s ms",
		    set(run, "ttft_ms"), set(run, "gap_ms"));
	else
		say(d, "the null server writes %s token chunk(s) at once", set(run, "burst"));
	if (setnum(run, "rate") > 0)
		say(d,
		    "arrivals: Poisson, %s requests/s, the same times for both clients, the level capping those in "
		    "flight",
		    set(run, "rate"));
	if (strcmp(set(run, "cpus"), "none") && strcmp(set(run, "cpus"), "?"))
		say(d, "pinned: the server to CPU %.*s, the clients to CPU %s", (int)strcspn(set(run, "cpus"), ","),
		    set(run, "cpus"), strchr(set(run, "cpus"), ',') ? strchr(set(run, "cpus"), ',') + 1 : "?");
	say(d,
	    "labrun: 'labrun collect', storing everything; python: %s (%s), asyncio, writing the same responses "
	    "to a file",
	    set(run, "peer"), set(run, "python"));
	host(d, run, "");
}

static void collect_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run, (void)b;
	note(d, "CPU: the client process's user + sys time over the tokens it streamed, start-up included; "
		"requests/s over the client's own pass");
	note(d, "server: the null server's CPU in the same pass (busy: over the pass time; below 1, it was not the "
		"bottleneck); medians, measured");
	note(d, "lag: a request's send time, as the client took it (labrun: handed to libcurl; python: its POST "
		"begun), less its scheduled time; all at once, that is the wait for a free slot; p50, p99 and max "
		"over a pass's requests, medians over the passes");
	note(d, "floor: this process alone on the clients' CPU, sleeping on a timer to each arrival, between the "
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
	cell(t, ms, 1);
	if (r->index < 3 && ms > 0) /* the file read: ingest and the peers */
		cell(t, med(r, "file", "B") / 1e3 / ms, 1);
	else
		lr_table_none(t);
	if (r->index == 0) {
		cell(t, ratio(r, "ingest", "python", NULL, 1), 2);
		cell(t, ratio(r, "ingest", "script", NULL, 1), 2);
		cell(t, ratio(r, "ingest", "floor", NULL, 1), 2);
	} else {
		for (int i = 0; i < 3; i++)
			lr_table_none(t);
	}
}

static void ingest_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d,
	    "labrun bench ingest: %s responses of %s tokens, %s repetitions (first dropped); peers: %s, 'for line "
	    "in f: json.loads(line)', and a script storing the same rows (json.loads, sqlite3 executemany, one "
	    "transaction, synchronous=FULL)",
	    set(run, "responses"), set(run, "tokens"), set(run, "reps"), set(run, "python"));
	host(d, run, "");
}

static void ingest_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	note(d,
	     "the file: %.1f MB; x python, x script, x floor: ingest's wall time over the peer's or the floor's, "
	     "repetition by repetition, their median",
	     lr_bench_median(lr_bench_find(b, "ingest", "file", "B")) / 1e6);
	note(d,
	     "floor: the bytes ingest wrote (its block output, %.1f MB: the object, the WAL, the checkpoint), "
	     "written by dd conv=fsync into the same directory",
	     lr_bench_median(lr_bench_find(b, "ingest", "written", "B")) / 1e6);
	note(d, "wall time of each whole process; measured, not modelled");
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
	cell(t, ms, 1);
	cell(t, ms > 0 ? med(r, "file", "B") / 1e3 / ms : NAN, 1);
	cell(t, ratio(r, r->variant, "cat", NULL, 1), 2);
	cell(t, ratio(r, r->variant, "grep", NULL, 1), 2);
}

static void scan_head(struct lr_doc *d, const struct lr_run *run)
{
	say(d,
	    "labrun bench scan: one line of %s bytes without a blank, a made-up GitHub token at its end; %s "
	    "repetitions (first dropped); peers: cat, %s",
	    set(run, "bytes"), set(run, "reps"), set(run, "grep"));
	host(d, run, "");
}

static void scan_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run;
	note(d,
	     "the line: %.0f bytes, the token its last 40; checked: the line without the token scans clean; scan and "
	     "both manifests found the token every time (the refused one wrote nothing)",
	     lr_bench_median(lr_bench_find(b, "line", "file", "B")));
	note(d, "x cat, x grep: a command's wall time over the peer's, repetition by repetition, their median; wall "
		"time of each whole process, start-up included; measured, not modelled");
}

/* ---- encoder -------------------------------------------------------------------- */

static const struct lr_column encoder_cols[] = {
	{ "shape", "shape", LR_COL_DATA },
	{ "variant", "variant", 0 },
	{ "kind", "kind", LR_COL_DATA },
	{ "median_ms", "median ms", LR_COL_NUMBER },
	{ "gbps", "GB/s", LR_COL_NUMBER },
	{ "x_ceiling", "x ceiling", LR_COL_NUMBER },
	{ "vs_lookup", "vs lookup", LR_COL_NUMBER },
	{ "role", "role", 0 },
};

static double ms(const struct lr_bench_series *s)
{
	return lr_bench_median(s) * 1e3;
}

/* Bytes read plus bytes written over the median time. */
static double gbps(const struct lr_bench_shape *sh, const struct lr_bench_series *s)
{
	return s ? (double)sh->elements * 4 / (ms(s) * 1e6) : NAN;
}

/* A variant's throughput over its ceiling's: the fastest copy, or for a file variant cp of the file. */
static double x_ceiling(const struct lr_bench_shape *sh, const struct lr_bench_series *s, enum lr_bench_kind kind)
{
	return gbps(sh, s) /
	       gbps(sh, kind == LR_BENCH_FILE_COPY || kind == LR_BENCH_FILE_ENCODE ? sh->file_copy : sh->ceiling);
}

/* The kernel of a variant (its name read again: the shape was read whole before any row). */
static const char *kernel_of(const struct lr_bench_series *s, char *buf, size_t size)
{
	enum lr_bench_kind kind;

	return lr_bench_variant_parse(s->variant, &kind, buf, size) ? "?" : buf;
}

static void encoder_row(struct lr_table *t, const struct lr_bench_row *r)
{
	const struct lr_bench_series *s = lr_bench_find(r->b, r->subject, r->variant, "s");
	struct lr_bench_shape sh;
	enum lr_bench_kind kind;
	char kernel[16];

	if (lr_bench_shape_read(&sh, r->b, r->subject) ||
	    lr_bench_variant_parse(r->variant, &kind, kernel, sizeof kernel))
		return; /* section_head refused the shape */
	lr_table_text(t, r->subject);
	lr_table_text(t, r->variant);
	lr_table_text(t, lr_bench_kind_name(kind));
	cell(t, ms(s), 3);
	cell(t, gbps(&sh, s), 2);
	cell(t, x_ceiling(&sh, s, kind), 2);
	cell(t, (kind == LR_BENCH_ENCODE || kind == LR_BENCH_PERMUTED) && sh.lookup ? ms(sh.lookup) / ms(s) : NAN, 2);
	lr_table_text(t, s == sh.ceiling || s == sh.file_copy ? "ceiling" : s == sh.best ? "best kernel" : "");
}

static void encoder_head(struct lr_doc *d, const struct lr_run *run)
{
	char extra[64];

	say(d, "labrun bench encoder: %s repetitions per variant (first dropped), contract %s, seed %s, %s thread%s",
	    set(run, "reps"), set(run, "contract"), set(run, "seed"), set(run, "threads"), plural(run, "threads"));
	snprintf(extra, sizeof extra, ", auto kernel %s", set(run, "auto_kernel"));
	host(d, run, extra);
	if (lr_kvlist_find(&run->binding, "cpu_features")) /* runs stored before have none */
		say(d, "CPU features: %s", set(run, "cpu_features"));
	if (lr_kvlist_find(&run->binding, "pinned_cpu"))
		say(d, "timing thread pinned to CPU %s", set(run, "pinned_cpu"));
}

/* A shape's heading and its parity; LR_EINVAL when the subject is no shape or a variant none the benchmark gives. */
static int encoder_section_head(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b,
				const char *subject)
{
	const char *digest = lr_bench_shape_digest(run, subject);
	struct lr_bench_shape sh;
	int rc;

	if ((rc = lr_bench_shape_read(&sh, b, subject))) {
		lr_error_wrap("run %lld", (long long)run->id);
		return rc;
	}
	lr_doc_addf(&lr_doc_heading(d, 2)->text, "shape [%s]: %lld elements, %.1f MiB in + %.1f MiB out", subject,
		    (long long)sh.elements, sh.elements * 2 / 1048576.0, sh.elements * 2 / 1048576.0);
	say(d, "parity: every encoder and the permuted view give identical bytes (sha256 %s)", digest ? digest : "?");
	return 0;
}

/* The sentences that sum a shape up: the best kernel, what auto took, the permuted view, file to file. */
static void encoder_section_tail(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b,
				 const char *subject)
{
	const struct lr_kv *why = lr_kvlist_find(&run->binding, "auto_why");
	struct lr_bench_shape sh;
	char k[16];

	if (lr_bench_shape_read(&sh, b, subject))
		return;
	if (sh.best) {
		struct lr_buf *t = &lr_doc_prose(d)->text;

		lr_doc_addf(t, "Best kernel %s", kernel_of(sh.best, k, sizeof k));
		if (sh.ceiling)
			lr_doc_addf(t, ": %.2fx the ceiling's throughput", gbps(&sh, sh.best) / gbps(&sh, sh.ceiling));
		if (sh.lookup)
			lr_doc_addf(t, ", %.2fx faster than lookup", ms(sh.lookup) / ms(sh.best));
		lr_doc_add(t, ".");
	}
	if (sh.best && sh.contiguous)
		say(d, "Auto takes %s at this size%s%s%s: %.3f ms = %.2fx the best kernel's time.",
		    kernel_of(sh.contiguous, k, sizeof k), why ? " (" : "", why ? why->value : "", why ? ")" : "",
		    ms(sh.contiguous), ms(sh.contiguous) / ms(sh.best));
	if (sh.permuted && sh.contiguous)
		say(d, "Permuted view (%s): %.3f ms = %.2fx the contiguous encode.",
		    kernel_of(sh.permuted, k, sizeof k), ms(sh.permuted), ms(sh.permuted) / ms(sh.contiguous));
	if (sh.file_copy && sh.file_encode) /* a throughput ratio, as the table's 'x ceiling' column gives it */
		say(d,
		    "File to file (%s): labrun encode %.3f ms = %.2fx the throughput of cp of the same file "
		    "(%.3f ms).",
		    kernel_of(sh.file_encode, k, sizeof k), ms(sh.file_encode),
		    x_ceiling(&sh, sh.file_encode, LR_BENCH_FILE_ENCODE), ms(sh.file_copy));
}

static json_t *name_json(const struct lr_bench_series *s)
{
	return s ? json_string(s->variant) : json_null();
}

static json_t *encoder_section_json(const struct lr_run *run, const struct lr_bench *b, const char *subject)
{
	struct lr_bench_shape sh;

	if (lr_bench_shape_read(&sh, b, subject))
		return json_object();
	return json_pack("{s:[I,I,I,I,I], s:I, s:s?, s:o, s:o, s:o, s:o}", "shape", (json_int_t)sh.dims[0],
			 (json_int_t)sh.dims[1], (json_int_t)sh.dims[2], (json_int_t)sh.dims[3], (json_int_t)sh.dims[4],
			 "elements", (json_int_t)sh.elements, "output_sha256", lr_bench_shape_digest(run, subject),
			 "ceiling", name_json(sh.ceiling), "best", name_json(sh.best), "permuted",
			 name_json(sh.permuted), "file_encode_x_cp",
			 sh.file_copy && sh.file_encode
				 ? json_real(x_ceiling(&sh, sh.file_encode, LR_BENCH_FILE_ENCODE))
				 : json_null());
}

static void encoder_notes(struct lr_doc *d, const struct lr_run *run, const struct lr_bench *b)
{
	(void)run, (void)b;
	note(d, "GB/s counts bytes read plus bytes written; x ceiling is a variant's throughput over the fastest "
		"copy of the same bytes (a file variant's, over cp of the same file), measured in the same run; vs "
		"lookup is the lookup kernel's time over the variant's");
	note(d, "every figure is the median of a variant's repetitions, the first dropped as warm-up; measured, not "
		"modelled");
}

/* ---- the definitions ------------------------------------------------------------ */

#define COLS(c) c, (int)(sizeof c / sizeof c[0])

static const struct lr_bench_def defs[] = {
	[LR_BENCHMARK_ENCODER] = { COLS(encoder_cols), "variants", NULL, 1, "shapes", encoder_row, encoder_head,
				   encoder_notes, encoder_section_head, encoder_section_tail, encoder_section_json },
	[LR_BENCHMARK_STORE] = { store_cols, 1, "commands", NULL, 0, NULL, NULL, store_head, store_notes, NULL, NULL,
				 NULL, store_table },
	[LR_BENCHMARK_IMPORT] = { COLS(import_cols), "variants", NULL, 0, NULL, import_row, import_head, import_notes,
				  NULL, NULL, NULL },
	[LR_BENCHMARK_REMOTE] = { COLS(remote_cols), "commands", remote_rows, 0, NULL, remote_row, remote_head,
				  remote_notes, NULL, NULL, NULL },
	[LR_BENCHMARK_COLLECT] = { COLS(collect_cols), "levels", collect_rows, 0, NULL, collect_row, collect_head,
				   collect_notes, NULL, NULL, NULL },
	[LR_BENCHMARK_INGEST] = { COLS(ingest_cols), "commands", ingest_rows, 0, NULL, ingest_row, ingest_head,
				  ingest_notes, NULL, NULL, NULL },
	[LR_BENCHMARK_SCAN] = { COLS(scan_cols), "commands", scan_rows, 0, NULL, scan_row, scan_head, scan_notes, NULL,
				NULL, NULL },
};

const struct lr_bench_def *lr_render_bench_def(enum lr_benchmark which)
{
	return &defs[which];
}
