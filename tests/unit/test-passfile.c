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

#include "base/buf.h"
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

/*
 * A pass with a member of every kind, every null among them, and what the
 * pass file held for it when each object's members were still written one
 * call at a time: a file written before must keep reading, so these bytes
 * do not change.
 */
static const struct lr_gauge_sample full_g[2] = { { 0.5, 3, NAN, NULL }, { 1, NAN, NAN, "connection refused" } };
/* clang-format off */
static const struct lr_store_pass full_p = {
	.endpoint = "http://127.0.0.1:8000/v1/completions", .api = "completions", .model = "m", .concurrency = 8,
	.rate = 2.5, .burstiness = 0.5, .has_seed = 1, .seed = -7, .server = "vllm", .version = "{\"version\":\"0.9\"}",
	.duration_s = 1.25, .cancelled = 1, .metrics_url = "http://127.0.0.1:8000/metrics", .slo_ms = { 200, 0, 2000 },
	.samples = full_g, .nsamples = 2, .min_duration_s = 60, .ttft_limit_ms = 500, .percentile = 99.5,
	.min_requests = 24576, .linear = 1, .early = 1, .little_n = 3.5, .little_xr = NAN, .valid = 0,
	.failed = "requests 2 < 24576",
};
static const struct lr_store_request full_r[2] = {
	{ .case_id = "a\tb", .body = "{\"prompt\":\"caf\xc3\xa9\"}", .sent = 1, .sent_ms = 0.5, .end_ms = 9.25,
	  .status = 200, .failure = "stream cut", .ttft_ms = 1.5, .e2el_ms = 8.75, .itl_json = "[0.0005,1.2500]",
	  .token_source = "token_ids", .prompt_tokens = 3, .completion_tokens = 2, .inflight = 2, .scheduled_ms = 0.25,
	  .received_tokens = 2, .finishes = 0, .first_ok = 1, .cut_tokens = "[11,12]", .cut_text = "x\0y",
	  .cut_text_len = 3 },
	{ .case_id = "c", .body = "{}", .sent = 0, .sent_ms = 4 /* not sent: written null */, .end_ms = 5,
	  .failure = "not sent: cancelled", .ttft_ms = NAN, .e2el_ms = NAN, .prompt_tokens = -1, .completion_tokens = -1,
	  .scheduled_ms = 3, .received_tokens = -1, .first_ok = -1 },
};
/* clang-format on */
static const char full_text[] =
	"{\"pass\":{\"endpoint\":\"http://127.0.0.1:8000/v1/completions\",\"api\":\"completions\","
	"\"model\":\"m\",\"concurrency\":8,\"rate\":2.5,\"burstiness\":0.5,\"seed\":-7,\"server\":\"vllm\","
	"\"models\":null,\"version\":\"{\\\"version\\\":\\\"0.9\\\"}\",\"props\":null,\"duration_s\":1.25,"
	"\"cancelled\":true,\"metrics_url\":\"http://127.0.0.1:8000/metrics\",\"slo_ttft_ms\":200.0,"
	"\"slo_tpot_ms\":0.0,\"slo_e2el_ms\":2000.0,\"validity\":{\"convention\":\"linear\","
	"\"min_duration_s\":60.0,\"min_requests\":24576,\"ttft_limit_ms\":500.0,\"tpot_limit_ms\":0.0,"
	"\"percentile\":99.5,\"little_n\":3.5,\"little_xr\":null,\"early_stopping\":true,\"valid\":false,"
	"\"failed\":\"requests 2 < 24576\"}},\n\"gauges\":[[0.5,3.0,null],[1.0,null,null,\"connection refused\"]],"
	"\n\"requests\":[\n{\"case_id\":\"a\\tb\",\"body\":\"{\\\"prompt\\\":\\\"caf\xc3\xa9"
	"\\\"}\","
	"\"sent\":true,\"sent_ms\":0.5,\"end_ms\":9.25,\"status\":200,\"failure\":\"stream cut\","
	"\"ttft_ms\":1.5,\"e2el_ms\":8.75,\"itl_ms\":[0.0005,1.2500],\"token_source\":\"token_ids\","
	"\"prompt_tokens\":3,\"completion_tokens\":2,\"inflight\":2,\"check\":{\"scheduled_ms\":0.25,"
	"\"received_tokens\":2,\"finishes\":0,\"first_ok\":1,\"cut_tokens\":[11,12],\"cut_text\":\"x\\u0000y\"}},"
	"\n{\"case_id\":\"c\",\"body\":\"{}\",\"sent\":false,\"sent_ms\":null,\"end_ms\":null,"
	"\"status\":null,\"failure\":\"not sent: cancelled\",\"ttft_ms\":null,\"e2el_ms\":null,"
	"\"itl_ms\":null,\"token_source\":null,\"prompt_tokens\":null,\"completion_tokens\":null,"
	"\"inflight\":0,\"check\":{\"scheduled_ms\":3.0,\"received_tokens\":null,\"finishes\":0,"
	"\"first_ok\":null,\"cut_tokens\":null,\"cut_text\":null}}]}\n";

/* A pass written to memory, NUL-terminated; the caller frees it. */
static char *written(const struct lr_store_pass *p, const struct lr_store_request *r, size_t n)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(lr_passfile_write(f, p, r, n), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void a_pass_reads_back_as_written(void **state)
{
	struct lr_passfile pf;
	char *text = written(&full_p, full_r, 2);

	(void)state;
	assert_string_equal(text, full_text);
	free(text);
	write_text(full_text);
	assert_int_equal(lr_passfile_read(path, NULL, &pf), 0);
	text = written(&pf.pass, pf.req, pf.n);
	assert_string_equal(text, full_text); /* every member read back as it was written */
	free(text);
	/* strings decoded (itl_ms kept as written), and what each null stands for in the struct */
	assert_string_equal(pf.req[0].case_id, "a\tb");
	assert_string_equal(pf.req[0].body, full_r[0].body);
	assert_string_equal(pf.req[0].itl_json, "[0.0005,1.2500]");
	assert_true(pf.pass.nsamples == 2 && isnan(pf.pass.samples[1].running) && pf.pass.samples[1].t_s == 1);
	assert_string_equal(pf.pass.samples[1].failed, "connection refused");
	assert_true(pf.pass.has_seed && pf.pass.seed == -7 && pf.pass.linear && pf.pass.early);
	assert_true(pf.pass.models == NULL && isnan(pf.pass.little_xr) && pf.pass.min_requests == 24576);
	assert_true(pf.req[0].cut_text_len == 3 && !memcmp(pf.req[0].cut_text, "x\0y", 3));
	assert_true(isnan(pf.req[1].sent_ms) && isnan(pf.req[1].ttft_ms) && pf.req[1].status == 0);
	assert_true(pf.req[1].prompt_tokens == -1 && pf.req[1].received_tokens == -1 && pf.req[1].first_ok == -1);
	assert_true(pf.req[1].itl_json == NULL && pf.req[1].token_source == NULL && pf.req[1].cut_tokens == NULL);
	lr_passfile_release(&pf);
}

/* A member another field makes null: the seed without has_seed, the failed rules of a valid pass. */
static void a_member_another_field_nulls_is_written_null(void **state)
{
	struct lr_store_pass p = full_p;
	char *text;

	(void)state;
	p.has_seed = 0;
	p.valid = 1; /* 'failed' still set */
	text = written(&p, full_r, 2);
	assert_non_null(strstr(text, "\"seed\":null,"));
	assert_non_null(strstr(text, "\"valid\":true,\"failed\":null}"));
	free(text);
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
		assert_int_equal(lr_passfile_read(path, NULL, &pf), LR_EDATA);
		if (!strstr(lr_error_msg(), cases[i].why))
			fail_msg("'%s': '%s' does not say '%s'", cases[i].text, lr_error_msg(), cases[i].why);
		lr_passfile_release(&pf);
	}
}

/* full_text with the first member 'key' given 'value' (NULL: removed; not an object's last), read into pf. */
static int read_changed(const char *key, const char *value, struct lr_passfile *pf)
{
	char name[64], text[sizeof full_text + 64];
	const char *at, *end;
	int depth = 0, quoted = 0;

	snprintf(name, sizeof name, "\"%s\":", key);
	assert_non_null(at = strstr(full_text, name));
	for (end = at + strlen(name); quoted || depth || !strchr(",}]", *end); end++) /* past its value */
		if (quoted && *end == '\\')
			end++;
		else if (*end == '"')
			quoted = !quoted;
		else if (!quoted)
			depth += (*end == '[' || *end == '{') - (*end == ']' || *end == '}');
	if (value)
		snprintf(text, sizeof text, "%.*s%s%s%s", (int)(at - full_text), full_text, name, value, end);
	else
		snprintf(text, sizeof text, "%.*s%s", (int)(at - full_text), full_text, end + 1);
	write_text(text);
	return lr_passfile_read(path, NULL, pf);
}

/* Each kind refuses null where its member may not be none, a value not of its kind, and one out of its range. */
static void every_kind_refuses_what_its_member_cannot_be(void **state)
{
	static const struct {
		const char *key, *value, *named;
	} cases[] = {
		{ "endpoint", "null", "endpoint" },         /* text */
		{ "rate", "null", "rate" },                 /* real */
		{ "concurrency", "null", "concurrency" },   /* int */
		{ "min_requests", "null", "min_requests" }, /* int64 */
		{ "cancelled", "null", "cancelled" },       /* boolean */
		{ "convention", "null", "convention" },     /* a name */
		{ "scheduled_ms", "null", "scheduled_ms" },
		{ "finishes", "null", "finishes" },
		{ "inflight", "null", "inflight" },
		{ "seed", "1.5", "seed" },
		{ "api", "1", "api" },
		{ "rate", "\"2\"", "rate" },
		{ "rate", "-0.5", "rate" },
		{ "concurrency", "1.5", "concurrency" },
		{ "first_ok", "-1", "first_ok" },
		{ "sent", "1", "sent" },
		{ "convention", "\"median\"", "convention" },
		{ "itl_ms", "\"[1]\"", "itl_ms" },
		{ "itl_ms", "[1,-1]", "itl_ms" },
		{ "props", NULL, "props" },
		{ "validity", "1", "validity" },
		{ "check", "[]", "check" },
		{ "concurrency", "0", "concurrency" },
		{ "concurrency", "1048577", "concurrency" },
		{ "status", "1000", "status" },
		{ "inflight", "1048577", "inflight" },
		{ "min_requests", "1000000000000001", "min_requests" },
		{ "received_tokens", "1000000000000001", "check" },
		{ "finishes", "1048577", "check" },
		{ "first_ok", "2", "check" },
		{ "percentile", "100", "percentile" }, /* in a pass not valid: it was named 'failed' */
		{ "failed", "null", "failed" },        /* a pass that is not valid says why */
		{ "cut_text", "null", "cut_tokens" },  /* the ids and their text go together */
	};
	struct lr_passfile pf;
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(why, sizeof why, "'%s' is missing or not what it must be", cases[i].named);
		assert_int_equal(read_changed(cases[i].key, cases[i].value, &pf), LR_EDATA);
		if (!strstr(lr_error_msg(), why))
			fail_msg("%s %s: '%s' does not say \"%s\"", cases[i].key,
				 cases[i].value ? cases[i].value : "removed", lr_error_msg(), why);
		lr_passfile_release(&pf);
	}
}

/* Null where a member may be none reads as its none: NULL, NAN, -1 or 0. */
static void null_reads_as_none_where_a_member_may_be_none(void **state)
{
	struct lr_passfile pf;

	(void)state;
	assert_int_equal(read_changed("model", "null", &pf), 0);
	assert_null(pf.pass.model);
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("little_n", "null", &pf), 0);
	assert_true(isnan(pf.pass.little_n));
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("seed", "null", &pf), 0);
	assert_true(!pf.pass.has_seed && pf.pass.seed == 0);
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("status", "null", &pf), 0);
	assert_int_equal(pf.req[0].status, 0);
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("prompt_tokens", "null", &pf), 0);
	assert_int_equal(pf.req[0].prompt_tokens, -1);
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("first_ok", "null", &pf), 0);
	assert_int_equal(pf.req[0].first_ok, -1);
	lr_passfile_release(&pf);
	assert_int_equal(read_changed("itl_ms", "null", &pf), 0);
	assert_null(pf.req[0].itl_json);
	lr_passfile_release(&pf);
}

/* A pass file as written before issue 42 (no "validity", no "check") of one request whose itl_ms and token_source are given (JSON), read into pf. */
static int one_request(const char *itl, const char *source, struct lr_passfile *pf)
{
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
	return lr_passfile_read(path, NULL, pf);
}

/* ... refused, saying 'why'. */
static void one_request_refused(const char *itl, const char *source, const char *why)
{
	struct lr_passfile pf;

	assert_int_equal(one_request(itl, source, &pf), LR_EDATA);
	if (!strstr(lr_error_msg(), why))
		fail_msg("'%s' does not say '%s'", lr_error_msg(), why);
	lr_passfile_release(&pf);
}

/* A pass file written before issue 42 reads with no rules, a valid verdict, and nothing checked of its request. */
static void an_old_pass_file_reads_with_defaults(void **state)
{
	struct lr_passfile pf;

	(void)state;
	assert_int_equal(one_request("[1]", "\"token_ids\"", &pf), 0);
	assert_true(pf.pass.percentile == 99 && pf.pass.valid && !pf.pass.failed && !pf.pass.linear && !pf.pass.early);
	assert_true(pf.pass.min_requests == 0 && pf.pass.min_duration_s == 0 && pf.pass.little_n == 0);
	assert_true(pf.req[0].received_tokens == -1 && pf.req[0].first_ok == -1 && pf.req[0].finishes == 1);
	assert_true(pf.req[0].scheduled_ms == 0 && pf.req[0].cut_tokens == NULL);
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

/*
 * Every object (the file, the pass, its validity, each request and its check) with 1000 members more than
 * labrun reads: the reader's member tables are bounded (LR_JSON_FIELDS_MAX) and checked at compile time, and an
 * object's other members are skipped, however many. It once kept names in arrays of 16 filled without a bound.
 */
static void more_members_than_any_bound_are_skipped(void **state)
{
	struct lr_buf text = LR_BUF_INIT, extra = LR_BUF_INIT;
	struct lr_passfile pf;
	char *back;

	(void)state;
	for (int i = 0; i < 1000; i++)
		lr_buf_addf(&extra, "\"x%d\":[%d,{\"y\":%d}],", i, i, i);
	for (const char *p = full_text; *p; p++) { /* after each '{' that opens an object: '{"' outside strings */
		lr_buf_add(&text, p, 1);
		if (p[0] == '{' && p[1] == '"' && (p == full_text || p[-1] != '"'))
			lr_buf_add(&text, extra.buf, extra.len);
	}
	assert_int_equal(lr_buf_error(&text), 0);
	assert_int_equal(text.len, sizeof full_text - 1 + 7 * extra.len); /* seven objects */
	write_text(text.buf);
	assert_int_equal(lr_passfile_read(path, NULL, &pf), 0);
	back = written(&pf.pass, pf.req, pf.n);
	assert_string_equal(back, full_text); /* what labrun reads, read as if the others were not there */
	free(back);
	lr_passfile_release(&pf);
	lr_buf_release(&text);
	lr_buf_release(&extra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_pass_reads_back_as_written, setup, teardown),
		cmocka_unit_test_setup_teardown(a_member_another_field_nulls_is_written_null, setup, teardown),
		cmocka_unit_test_setup_teardown(anything_else_is_refused_and_named, setup, teardown),
		cmocka_unit_test_setup_teardown(a_gap_that_is_not_a_number_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(an_unknown_token_source_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(every_kind_refuses_what_its_member_cannot_be, setup, teardown),
		cmocka_unit_test_setup_teardown(null_reads_as_none_where_a_member_may_be_none, setup, teardown),
		cmocka_unit_test_setup_teardown(an_old_pass_file_reads_with_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(more_members_than_any_bound_are_skipped, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
