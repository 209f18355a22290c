/* serving/passfile.c: a pass written by collect --pass reads back as it was; anything else is refused, named. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "serving/passfile.h"
#include "testutil.h"

/* Each test's pass file, in a directory of its own under $TMPDIR: it was a fixed name under /tmp,
 * so two suites at once (two pid namespaces, one /tmp) wrote each other's file. */
static char *dir, *path;

static int setup(void **state)
{
	(void)state;
	if (!(dir = tmpdir_new()) || asprintf(&path, "%s/pass.json", dir) < 0) {
		path = NULL;
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(path);
	path = NULL;
	tmpdir_remove(dir);
	dir = NULL;
	return 0;
}

static void write_text(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void a_pass_reads_back_as_written(void **state)
{
	static const struct lr_gauge_sample g[2] = { { 0.1, 2, 0, NULL }, { 0.2, NAN, 1, NULL } };
	const struct lr_store_pass p = {
		.endpoint = "http://127.0.0.1:8000/v1/completions",
		.api = "completions",
		.model = NULL,
		.concurrency = 4,
		.rate = 2.5,
		.burstiness = 1,
		.has_seed = 1,
		.seed = -7,
		.server = "vllm \"0.9\"",
		.models = "{\"data\":[]}",
		.duration_s = 1.25,
		.cancelled = 1,
		.metrics_url = "http://127.0.0.1:8000/metrics",
		.slo_ms = { 200, 0, 2000 },
		.samples = g,
		.nsamples = 2,
		.percentile = 99,
		.linear = 1,
		.valid = 0,
		.failed = "requests 2 < 100",
	};
	const struct lr_store_request r[2] = {
		{ .case_id = "a\tb",
		  .body = "{\"prompt\":\"caf\xc3\xa9\\n\"}",
		  .sent = 1,
		  .sent_ms = 0.5,
		  .end_ms = 9.25,
		  .status = 200,
		  .failure = NULL,
		  .ttft_ms = 1.5,
		  .e2el_ms = 8.75,
		  .itl_json = "[0.0005,1.2500]",
		  .token_source = "token_ids",
		  .prompt_tokens = 3,
		  .completion_tokens = 2,
		  .inflight = 2 },
		{ .case_id = "c",
		  .body = "{}",
		  .sent = 0,
		  .status = 0,
		  .failure = "not sent: cancelled",
		  .ttft_ms = NAN,
		  .e2el_ms = NAN,
		  .itl_json = NULL,
		  .token_source = NULL,
		  .prompt_tokens = -1,
		  .completion_tokens = -1,
		  .inflight = 0 },
	};
	struct lr_passfile pf;
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(lr_passfile_write(f, &p, r, 2), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(lr_passfile_read(path, NULL, &pf), 0);
	assert_string_equal(pf.pass.endpoint, p.endpoint);
	assert_null(pf.pass.model);
	assert_int_equal(pf.pass.concurrency, 4);
	assert_true(pf.pass.percentile == 99 && pf.pass.linear && !pf.pass.valid);
	assert_string_equal(pf.pass.failed, "requests 2 < 100");
	assert_true(pf.pass.rate == 2.5 && pf.pass.has_seed && pf.pass.seed == -7 && pf.pass.cancelled);
	assert_string_equal(pf.pass.server, p.server);
	assert_true(pf.pass.slo_ms[0] == 200 && pf.pass.slo_ms[2] == 2000);
	assert_int_equal(pf.pass.nsamples, 2);
	assert_true(pf.pass.samples[1].t_s == 0.2 && isnan(pf.pass.samples[1].running) &&
		    pf.pass.samples[1].waiting == 1);
	assert_int_equal(pf.n, 2);
	assert_string_equal(pf.req[0].case_id, "a\tb");
	assert_string_equal(pf.req[0].body, r[0].body);
	assert_string_equal(pf.req[0].itl_json,
			    "[0.0005,1.2500]"); /* as written: stored exactly as collect stores it */
	assert_true(pf.req[0].status == 200 && pf.req[0].ttft_ms == 1.5 && pf.req[0].completion_tokens == 2 &&
		    pf.req[0].inflight == 2);
	assert_false(pf.req[1].sent);
	assert_string_equal(pf.req[1].failure, "not sent: cancelled");
	assert_true(isnan(pf.req[1].ttft_ms) && pf.req[1].status == 0 && pf.req[1].prompt_tokens == -1);
	assert_null(pf.req[1].itl_json);
	lr_passfile_release(&pf);
}

static void anything_else_is_refused_and_named(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "[]", "not an object of pass, gauges and requests" },
		{ "{\"pass\":{},\"gauges\":[],\"requests\":[]}", "'endpoint'" },
		{ "{\"pass\":1,\"gauges\":[],\"requests\":[]", "not a collect pass file" },
		{ "{\"a\":1,\"a\":2}", "a duplicate key" },
	};
	struct lr_passfile pf;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		write_text(cases[i].text);
		assert_int_equal(lr_passfile_read(path, NULL, &pf), LR_EINVAL);
		if (!strstr(lr_error_msg(), cases[i].why))
			fail_msg("'%s': '%s' does not say '%s'", cases[i].text, lr_error_msg(), cases[i].why);
		lr_passfile_release(&pf);
	}
}

/* A pass file of one request whose itl_ms and token_source are given (JSON) is refused, saying 'why'. */
static void one_request_refused(const char *itl, const char *source, const char *why)
{
	struct lr_passfile pf;
	char text[2048];

	snprintf(
		text, sizeof text,
		"{\"pass\":{\"endpoint\":\"e\",\"api\":\"completions\",\"model\":null,\"concurrency\":1,\"rate\":0.0,"
		"\"burstiness\":1.0,\"seed\":null,\"server\":null,\"models\":null,\"version\":null,\"props\":null,\"duration_s\":1.0,\"cancelled\":false,"
		"\"metrics_url\":null,\"slo_ttft_ms\":0.0,\"slo_tpot_ms\":0.0,\"slo_e2el_ms\":0.0},\"gauges\":[],"
		"\"requests\":[{\"case_id\":\"a\",\"body\":\"{}\",\"sent\":true,\"sent_ms\":0.0,\"end_ms\":1.0,\"status\":200,"
		"\"failure\":null,\"ttft_ms\":1.0,\"e2el_ms\":1.0,\"itl_ms\":%s,\"token_source\":%s,"
		"\"prompt_tokens\":null,\"completion_tokens\":null,\"inflight\":1}]}",
		itl, source);
	write_text(text);
	assert_int_equal(lr_passfile_read(path, NULL, &pf), LR_EINVAL);
	if (!strstr(lr_error_msg(), why))
		fail_msg("'%s' does not say '%s'", lr_error_msg(), why);
	lr_passfile_release(&pf);
}

static void a_gap_that_is_not_a_number_is_refused(void **state)
{
	(void)state;
	one_request_refused("[1,\"x\"]", "null", "'itl_ms'");
}

/* A token source labrun does not know is refused when the file is read, not by the store's CHECK when stored. */
static void an_unknown_token_source_is_refused(void **state)
{
	(void)state;
	one_request_refused("[1]", "\"guessed\"", "'token_source' is 'guessed', which labrun does not know");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_pass_reads_back_as_written, setup, teardown),
		cmocka_unit_test_setup_teardown(anything_else_is_refused_and_named, setup, teardown),
		cmocka_unit_test_setup_teardown(a_gap_that_is_not_a_number_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(an_unknown_token_source_is_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
