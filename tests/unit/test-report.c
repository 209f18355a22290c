/*
 * The experiment report and the audit, on a run stored as 'labrun run'
 * stores one (experiment/synthetic.c: arm 1 is 0.8x arm 0, a little noise):
 * the report's medians are the medians of the raw rows, its paired ratio
 * is where the data put it, and the audit finds a changed repetition.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/stats.h"
#include "evidence/audit.h"
#include "experiment/benchjob.h"
#include "experiment/plan.h"
#include "experiment/encoderbench.h"
#include "experiment/report.h"
#include "experiment/synthetic.h"
#include "report/report.h"
#include "store/runs.h"
#include "store/store.h"
#include "testutil.h"

extern char **environ;

struct fx {
	char *dir, *cwd;
	struct lr_store *st;
	int64_t run;
};

static int setup_reps(void **state, int64_t reps)
{
	struct fx *f = calloc(1, sizeof *f);
	char *argv[] = { "labrun", "bench", "store", NULL };

	if (!f || !(f->dir = tmpdir_new()) || !(f->cwd = getcwd(NULL, 0)) || chdir(f->dir) != 0)
		return -1; /* outside any git work tree: the run captures no sources */
	if (lr_store_open(&f->st, f->dir, LR_STORE_CREATE) ||
	    lr_synthetic_run(f->st, reps, 0, 3, argv, environ, &f->run))
		return -1;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_reps(state, 8000);
}

static int setup_small(void **state)
{
	return setup_reps(state, 16);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	lr_store_free(f->st);
	if (chdir(f->cwd) != 0)
		return -1;
	tmpdir_remove(f->dir);
	free(f->cwd);
	free(f);
	return 0;
}

/* The timed repetitions of one arm of one condition, per execution, read with plain SQL. */
static double raw_median_ms(const char *dir, int cond, int arm)
{
	char path[4200];
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	double *v = malloc(8000 * sizeof *v), m;
	size_t n = 0;

	snprintf(path, sizeof path, "%s/labrun.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT r.wall_s / c.inner FROM repetition r JOIN condition c"
					    " ON c.run_id = r.run_id AND c.idx = r.condition_idx"
					    " WHERE r.condition_idx = ?1 AND r.arm_idx = ?2 AND r.warmup = 0",
					    -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_int(s, 1, cond);
	sqlite3_bind_int(s, 2, arm);
	while (sqlite3_step(s) == SQLITE_ROW && n < 8000)
		v[n++] = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	assert_true(n > 0);
	m = lr_median(v, n);
	free(v);
	return m * 1e3;
}

static void the_report_is_what_the_rows_say(void **state)
{
	struct fx *f = *state;
	struct lr_run_filter filter = { .issue = "270", .status = -1 };
	struct lr_report rep;
	int c;

	assert_int_equal(lr_report_build(f->st, &filter, 0, &rep), 0);
	assert_int_equal(rep.nruns, 1);
	assert_int_equal(rep.runs[0].ntables, 1); /* arm 1 against arm 0 */
	assert_int_equal(rep.runs[0].tables[0].nrows, 2);
	for (c = 0; c < 2; c++) {
		const struct lr_report_row *r = &rep.runs[0].tables[0].rows[c];

		assert_true(r->has);
		assert_int_equal(r->blocks, 1000);
		assert_true(r->median_a_ms == raw_median_ms(f->dir, c, 0));
		assert_true(r->median_b_ms == raw_median_ms(f->dir, c, 1));
		assert_true(fabs(r->p.ratio - 0.8) < 0.01);
		assert_true(r->p.lo < r->p.ratio && r->p.ratio < r->p.hi && r->p.hi - r->p.lo < 0.02);
	}
	lr_report_release(&rep);
}

static void count(void *arg, int64_t run, const char *problem)
{
	(void)run;
	if (strstr(problem, "repetition"))
		++*(int *)arg;
}

static void audit_finds_a_changed_repetition(void **state)
{
	struct fx *f = *state;
	char path[4200];
	sqlite3 *db = NULL;
	int problems = 0, named = 0, checked = 0;

	assert_int_equal(lr_audit_run(f->st, f->run, count, &named, &problems, &checked), 0);
	assert_int_equal(problems, 0);
	snprintf(path, sizeof path, "%s/labrun.db", f->dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE repetition SET wall_s = wall_s * 0.5 WHERE block = 500 AND slot = 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(lr_audit_run(f->st, f->run, count, &named, &problems, &checked), 0);
	assert_true(problems >= 1);
	assert_true(named >= 1); /* the problem names the table whose rows changed */
}

/* A bench run stored before migration 19: its samples read from the names of its measurements. */
static void a_bench_run_before_typed_samples_reads_the_same(void **state)
{
	static const struct {
		const char *name, *unit, *subject, *variant;
		int rep;
	} cases[] = {
		{ "[28,2,8,8192,128] encode: avx512 rep 3", "s", "28,2,8,8192,128", "encode: avx512", 3 },
		{ "[800 repetitions] report rep 1", "s", "800", "report", 1 },
		{ "[800 repetitions] generate", "s", "800", "generate", 0 },
		{ "[800 repetitions] runs", "runs", "800", "runs", 0 },
		{ "whole, strided command rep 2", "s", "whole, strided", "command", 2 },
		{ "push peak rss", "KiB", "", "push", 0 },
		{ "object bytes", "bytes", "", "objects", 0 },
	};
	struct lr_bench_samples sm;
	struct lr_run run;
	size_t i;

	(void)state;
	lr_run_init(&run);
	run.kind = LR_KIND_BENCH;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(lr_run_add_measure(&run, cases[i].name, (double)i, cases[i].unit, 0), 0);
	assert_int_equal(lr_bench_samples(&run, &sm), 0);
	assert_int_equal(sm.n, sizeof cases / sizeof cases[0]);
	for (i = 0; i < sm.n; i++) {
		assert_string_equal(sm.v[i].subject, cases[i].subject);
		assert_string_equal(sm.v[i].variant, cases[i].variant);
		assert_int_equal(sm.v[i].rep, cases[i].rep);
		assert_string_equal(sm.v[i].unit, cases[i].unit);
		assert_true(sm.v[i].value == (double)i);
	}
	lr_bench_samples_release(&sm);
	/* typed rows, when the run has them, are what it reads; a name that is no sample is refused */
	assert_int_equal(lr_run_add_sample(&run, "1,2,2,64,16", "copy: memcpy", 0, 1.5, "s"), 0);
	assert_int_equal(lr_bench_samples(&run, &sm), 0);
	assert_int_equal(sm.n, 1);
	assert_string_equal(sm.v[0].variant, "copy: memcpy");
	lr_bench_samples_release(&sm);
	lr_run_release(&run);
	lr_run_init(&run);
	run.kind = LR_KIND_BENCH;
	assert_int_equal(lr_run_add_measure(&run, "[1,2,2,64,16] encode: lookup rep x", 1, "s", 0), 0);
	assert_int_equal(lr_bench_samples(&run, &sm), LR_EINVAL);
	lr_run_release(&run);
}

/* Change the store's rows with plain SQL, past its CHECK constraints: what a newer labrun could have stored. */
static void change_rows(const char *dir, const char *sql)
{
	char path[4200];
	sqlite3 *db = NULL;

	snprintf(path, sizeof path, "%s/labrun.db", dir);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/*
 * A stored design whose target or order labrun does not know is refused:
 * it was read as 'encode' (and 'abba'), and its report built as one.
 */
static void an_unknown_stored_target_is_refused(void **state)
{
	struct fx *f = *state;
	struct lr_stored_design d;
	char run[32];

	snprintf(run, sizeof run, "run %lld", (long long)f->run);
	assert_int_equal(lr_plan_stored(f->st, f->run, &d), 0);
	assert_int_equal(d.target, LR_TARGET_ENCODE);
	assert_int_equal(d.order, LR_ORDER_ABBA);
	change_rows(f->dir, "UPDATE run_design SET target = 'serving'");
	assert_int_equal(lr_plan_stored(f->st, f->run, &d), LR_ESCHEMA);
	assert_non_null(strstr(lr_error_msg(), "unknown target 'serving'"));
	assert_non_null(strstr(lr_error_msg(), run));
	change_rows(f->dir, "UPDATE run_design SET target = 'command', block_order = 'sideways'");
	assert_int_equal(lr_plan_stored(f->st, f->run, &d), LR_ESCHEMA);
	assert_non_null(strstr(lr_error_msg(), "unknown order 'sideways'"));
}

/* A stored run whose status labrun does not know is refused, as one of an unknown kind is; it was read as -1. */
static void an_unknown_stored_status_is_refused(void **state)
{
	struct fx *f = *state;
	struct lr_run r;

	lr_run_init(&r);
	assert_int_equal(lr_store_run_load(f->st, f->run, &r), 0);
	assert_int_equal(r.status, LR_PASSED);
	lr_run_release(&r);
	change_rows(f->dir, "UPDATE run SET status = 'paused'");
	lr_run_init(&r);
	assert_int_equal(lr_store_run_load(f->st, f->run, &r), LR_ESCHEMA);
	assert_non_null(strstr(lr_error_msg(), "unknown run status 'paused'"));
	lr_run_release(&r);
}

/* A bench run whose binding names 'benchmark'. */
static void bench_run(struct lr_run *run, const char *benchmark)
{
	lr_run_init(run);
	run->kind = LR_KIND_BENCH;
	if (benchmark)
		assert_int_equal(lr_kvlist_set(&run->binding, "benchmark", benchmark, "user"), 0);
}

/* What a benchmark fills while it runs is what its run stores and what reading the run gives back. */
static void a_bench_model_reads_back_as_it_was_stored(void **state)
{
	struct lr_bench b, back;
	struct lr_run run;

	(void)state;
	bench_run(&run, "store");
	lr_bench_init(&b, LR_BENCHMARK_STORE);
	assert_int_equal(lr_bench_add(&b, "800", "generate", 0, 0.5, "s"), 0);
	assert_int_equal(lr_bench_add(&b, "800", "runs", 0, 1, "runs"), 0);
	for (int rep = 0; rep < 4; rep++)
		assert_int_equal(lr_bench_add(&b, "800", "record", rep, 10.0 - rep, "s"), 0);
	assert_int_equal(lr_bench_add(&b, "800", "record", 2, 1, "s"), LR_EINVAL); /* taken twice */
	assert_int_equal(lr_bench_store(&b, &run), 0);
	assert_int_equal(run.nsamples, 6);
	assert_int_equal(lr_bench_read(&back, &run), 0);
	assert_int_equal(back.which, LR_BENCHMARK_STORE);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.subjects.n, 1);
	assert_true(lr_bench_median(lr_bench_find(&back, "800", "record", "s")) == 8);     /* 10 is the warm-up */
	assert_true(lr_bench_median(lr_bench_find(&back, "800", "generate", "s")) == 0.5); /* taken once: itself */
	assert_null(lr_bench_find(&back, "800", "runs", "s"));
	assert_true(isnan(lr_bench_median(NULL)));
	lr_bench_release(&back);
	/* a sample from another host at a repetition past all of the run's samples allocates nothing: refused */
	run.samples[5].rep = 1 << 30;
	assert_int_equal(lr_bench_read(&back, &run), LR_EINVAL);
	lr_bench_release(&b);
	lr_run_release(&run);
}

/* A ratio to a ceiling or a peer is taken repetition by repetition, then its median: not a ratio of medians. */
static void a_bench_ratio_is_the_median_of_each_repetitions(void **state)
{
	static const double v[4][4] = { { 100, 1, 4, 9 }, { 1, 1, 2, 9 }, { 0, 1, 2, 0 }, { 0, 0, 0, 0 } };
	static const char *const name[4] = { "num", "den", "den2", "zero" };
	const struct lr_bench_series *num, *den, *den2, *zero;
	struct lr_bench b;

	(void)state;
	lr_bench_init(&b, LR_BENCHMARK_IMPORT);
	for (int k = 0; k < 4; k++)
		for (int rep = 0; rep < 4; rep++)
			assert_int_equal(lr_bench_add(&b, "v", name[k], rep, v[k][rep], "s"), 0);
	num = lr_bench_find(&b, "v", "num", "s");
	den = lr_bench_find(&b, "v", "den", "s");
	den2 = lr_bench_find(&b, "v", "den2", "s");
	zero = lr_bench_find(&b, "v", "zero", "s");
	assert_true(lr_bench_median(num) / lr_bench_median(den) == 2);
	assert_true(lr_bench_ratio(num, den, NULL, 1) == 1);     /* 1/1, 4/2, 9/9 */
	assert_true(lr_bench_ratio(num, den, den2, 1) == 1);     /* 1/2, 4/4, 9/9 */
	assert_true(lr_bench_ratio(NULL, den, NULL, 6) == 3);    /* 6/1, 6/2, 6/9 */
	assert_true(lr_bench_ratio(num, NULL, NULL, 2) == 8);    /* 2, 8, 18 */
	assert_true(lr_bench_ratio(num, zero, NULL, 1) == 0);    /* no denominator: 0, never infinite */
	assert_true(isnan(lr_bench_ratio(NULL, NULL, NULL, 1))); /* nothing taken */
	lr_bench_release(&b);
}

/* The benchmark a run names is parsed once: no name, or one this labrun does not know, is refused. */
static void a_bench_run_naming_no_known_benchmark_is_refused(void **state)
{
	struct lr_bench b;
	struct lr_run run;

	(void)state;
	bench_run(&run, NULL);
	assert_int_equal(lr_bench_read(&b, &run), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "names no benchmark"));
	assert_int_equal(lr_kvlist_set(&run.binding, "benchmark", "decoder", "user"), 0);
	assert_int_equal(lr_bench_read(&b, &run), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "unknown benchmark 'decoder'"));
	run.kind = LR_KIND_RECORD;
	assert_int_equal(lr_bench_read(&b, &run), LR_EINVAL);
	lr_run_release(&run);
	for (int i = LR_BENCHMARK_ENCODER; i <= LR_BENCHMARK_INGEST; i++) {
		enum lr_benchmark which;

		assert_int_equal(lr_benchmark_parse(lr_benchmark_name((enum lr_benchmark)i), &which), 0);
		assert_int_equal(which, i);
	}
}

/* Which variant of an encoder's shape is its ceiling, best kernel, lookup, permuted view, from names and times. */
static void an_encoder_shape_says_which_variant_is_which(void **state)
{
	static const struct {
		const char *name;
		double s;
	} v[] = { { "copy: memcpy", 2 }, { "copy: vector", 1 },      { "encode: lookup", 8 },
		  { "encode: avx2", 3 }, { "encode: scalar", 9 },    { "encode: avx2, permuted view", 4 },
		  { "file: cp", 20 },    { "file: encode avx2", 30 } };
	const char *shape = "1,2,2,64,16";
	struct lr_bench_shape sh;
	struct lr_bench b;

	(void)state;
	lr_bench_init(&b, LR_BENCHMARK_ENCODER);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		for (int rep = 0; rep < 3; rep++)
			assert_int_equal(lr_bench_add(&b, shape, v[i].name, rep, rep ? v[i].s : 100, "s"), 0);
	assert_int_equal(lr_bench_shape_read(&sh, &b, shape), 0);
	assert_int_equal(sh.elements, 1 * 2 * 2 * 64 * 16);
	assert_string_equal(sh.ceiling->variant, "copy: vector");
	assert_string_equal(sh.best->variant, "encode: avx2");
	assert_string_equal(sh.lookup->variant, "encode: lookup");
	assert_string_equal(sh.permuted->variant, "encode: avx2, permuted view");
	assert_string_equal(sh.contiguous->variant, "encode: avx2");
	assert_string_equal(sh.file_copy->variant, "file: cp");
	assert_string_equal(sh.file_encode->variant, "file: encode avx2");
	assert_int_equal(lr_bench_shape_read(&sh, &b, "1,2,0,64,16"), LR_EINVAL); /* no shape of its */
	assert_int_equal(lr_bench_add(&b, "1,2,0,64,16", "copy: memcpy", 0, 1, "s"), 0);
	assert_int_equal(lr_bench_shape_read(&sh, &b, "1,2,0,64,16"), LR_EINVAL); /* not a shape */
	assert_int_equal(lr_bench_add(&b, shape, "decode: avx2", 0, 1, "s"), 0);
	assert_int_equal(lr_bench_shape_read(&sh, &b, shape), LR_EINVAL); /* a variant the benchmark never gives */
	lr_bench_release(&b);
}

/* As a benchmark runs, its document only grows: the same blocks, its table a row longer; the notes once it has ended. */
static void a_bench_document_grows_as_the_benchmark_runs(void **state)
{
	struct lr_doc d1, d2, d3;
	struct lr_bench b;
	struct lr_run run;

	(void)state;
	bench_run(&run, "import");
	lr_bench_init(&b, LR_BENCHMARK_IMPORT);
	lr_doc_init(&d1);
	lr_doc_init(&d2);
	lr_doc_init(&d3);
	for (int rep = 0; rep < 3; rep++)
		assert_int_equal(lr_bench_add(&b, "whole, strided", "import", rep, 0.01, "s"), 0);
	assert_int_equal(lr_render_bench_doc(&d1, &run, &b, 1), 0);
	for (int rep = 0; rep < 3; rep++)
		assert_int_equal(lr_bench_add(&b, "stream, copy", "import", rep, 0.02, "s"), 0);
	assert_int_equal(lr_render_bench_doc(&d2, &run, &b, 1), 0);
	assert_int_equal(d1.n, d2.n);
	assert_int_equal(d1.v[d1.n - 1].kind, LR_BLOCK_TABLE);
	assert_int_equal(d1.v[d1.n - 1].table.nrows + 1, d2.v[d2.n - 1].table.nrows);
	run.status = LR_PASSED;
	assert_int_equal(lr_render_bench_doc(&d3, &run, &b, 1), 0);
	assert_true(d3.n > d2.n);
	assert_int_equal(d3.v[d2.n].kind, LR_BLOCK_NOTE);
	lr_doc_release(&d1);
	lr_doc_release(&d2);
	lr_doc_release(&d3);
	lr_bench_release(&b);
	lr_run_release(&run);
}

/* The store benchmark's table has a column a store, so it is shown whole once every store is measured. */
static void a_store_bench_table_has_a_column_a_store(void **state)
{
	struct lr_doc d1, d2;
	struct lr_bench b;
	struct lr_run run;
	const struct lr_table *t;

	(void)state;
	bench_run(&run, "store");
	lr_bench_init(&b, LR_BENCHMARK_STORE);
	lr_doc_init(&d1);
	lr_doc_init(&d2);
	for (int rep = 0; rep < 3; rep++) {
		assert_int_equal(lr_bench_add(&b, "1000", "version", rep, 0.002, "s"), 0);
		assert_int_equal(lr_bench_add(&b, "1000", "record", rep, 0.008, "s"), 0);
		assert_int_equal(lr_bench_add(&b, "1000000", "version", rep, 0.002, "s"), 0);
		assert_int_equal(lr_bench_add(&b, "1000000", "record", rep, 0.010, "s"), 0);
	}
	assert_int_equal(lr_render_bench_doc(&d1, &run, &b, 1), 0);
	for (size_t i = 0; i < d1.n; i++)
		assert_int_not_equal(d1.v[i].kind, LR_BLOCK_TABLE);
	run.status = LR_PASSED;
	assert_int_equal(lr_render_bench_doc(&d2, &run, &b, 1), 0);
	t = NULL;
	for (size_t i = 0; i < d2.n; i++)
		if (d2.v[i].kind == LR_BLOCK_TABLE)
			t = &d2.v[i].table;
	assert_non_null(t);
	assert_int_equal(t->ncols, 4); /* command, a median a store, the larger store over the smallest */
	assert_string_equal(t->cols[2].key, "ms_1000000");
	assert_string_equal(t->cols[3].key, "x_1000000");
	assert_int_equal(t->nrows, 3); /* version, record, record x version */
	assert_string_equal(t->cells[1 * 4].text, "record");
	assert_float_equal(t->cells[1 * 4 + 3].real, 1.25, 1e-9);
	assert_float_equal(t->cells[2 * 4 + 1].real, 4.0, 1e-9);
	lr_doc_release(&d1);
	lr_doc_release(&d2);
	lr_bench_release(&b);
	lr_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_report_is_what_the_rows_say, setup, teardown),
		cmocka_unit_test_setup_teardown(audit_finds_a_changed_repetition, setup, teardown),
		cmocka_unit_test(a_bench_run_before_typed_samples_reads_the_same),
		cmocka_unit_test_setup_teardown(an_unknown_stored_target_is_refused, setup_small, teardown),
		cmocka_unit_test_setup_teardown(an_unknown_stored_status_is_refused, setup_small, teardown),
		cmocka_unit_test(a_bench_model_reads_back_as_it_was_stored),
		cmocka_unit_test(a_bench_ratio_is_the_median_of_each_repetitions),
		cmocka_unit_test(a_bench_run_naming_no_known_benchmark_is_refused),
		cmocka_unit_test(an_encoder_shape_says_which_variant_is_which),
		cmocka_unit_test(a_bench_document_grows_as_the_benchmark_runs),
		cmocka_unit_test(a_store_bench_table_has_a_column_a_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
