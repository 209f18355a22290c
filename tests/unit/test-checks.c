/* $LABRUN_CHECKS lines (record/checks.h): what a line must be, the file taken whole or not at all. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "base/error.h"
#include "base/model.h"
#include "record/checks.h"
#include "testutil.h"

/* 0 when 'line' parses; else its code, with the message in *msg (a copy). */
static int parse(const char *line, char *msg, size_t len)
{
	struct lr_check c;
	int rc = lr_check_parse(&c, line, strlen(line));

	snprintf(msg, len, "%s", rc ? lr_error_msg() : "");
	lr_check_release(&c);
	lr_error_clear();
	return rc;
}

/* 'line' is refused, and its message holds 'want'. */
static void refused(const char *line, const char *want)
{
	char msg[512];

	assert_int_equal(parse(line, msg, sizeof msg), LR_EINVAL);
	if (!strstr(msg, want))
		fail_msg("'%s': got '%s', wanted it to say '%s'", line, msg, want);
}

static void check_parse_takes_a_whole_check(void **state)
{
	struct lr_check c;
	const char *line =
		"{\"name\": \"exactness\", \"passed\": 65536, \"total\": 65536, \"detail\": \"every pattern\"}\n";

	(void)state;
	assert_int_equal(lr_check_parse(&c, line, strlen(line)), 0);
	assert_string_equal(c.name, "exactness");
	assert_int_equal(c.passed, 65536);
	assert_int_equal(c.total, 65536);
	assert_string_equal(c.detail, "every pattern");
	lr_check_release(&c);
	line = "{\"total\": 3, \"name\": \"x\", \"passed\": 0, \"detail\": null}";
	assert_int_equal(lr_check_parse(&c, line, strlen(line)), 0);
	assert_null(c.detail);
	assert_int_equal(c.passed, 0);
	lr_check_release(&c);
	line = "{\"name\": \"none at all\", \"passed\": 0, \"total\": 0}";
	assert_int_equal(lr_check_parse(&c, line, strlen(line)), 0);
	lr_check_release(&c);
}

static void check_parse_refuses_negative_counts(void **state)
{
	(void)state;
	refused("{\"name\": \"a\", \"passed\": -1, \"total\": 3}", "'passed' (-1) is negative");
	refused("{\"name\": \"a\", \"passed\": 0, \"total\": -3}", "'total' (-3) is negative");
}

static void check_parse_refuses_passed_over_total(void **state)
{
	(void)state;
	refused("{\"name\": \"a\", \"passed\": 13, \"total\": 12}", "'passed' (13) is more than 'total' (12)");
}

static void check_parse_refuses_counts_that_are_not_whole_numbers(void **state)
{
	(void)state;
	refused("{\"name\": \"a\", \"passed\": 1.5, \"total\": 3}", "'passed' must be a whole number, written without");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 3.0}", "'total' must be a whole number, written without");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 1e3}", "'total' must be a whole number, written without");
	refused("{\"name\": \"a\", \"passed\": \"1\", \"total\": 3}", "'passed' must be a whole number");
	refused("{\"name\": \"a\", \"passed\": true, \"total\": 3}", "'passed' must be a whole number");
	refused("{\"name\": \"a\", \"passed\": null, \"total\": 3}", "'passed' must be a whole number");
}

static void check_parse_bounds_huge_numbers(void **state)
{
	struct lr_check c;
	const char *most = "{\"name\": \"a\", \"passed\": 9007199254740992, \"total\": 9007199254740992}";

	(void)state;
	assert_int_equal(lr_check_parse(&c, most, strlen(most)), 0); /* 2^53 itself */
	assert_int_equal(c.total, LR_CHECK_COUNT_MAX);
	lr_check_release(&c);
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 9007199254740993}",
		"'total' (9007199254740993) is larger than 2^53");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 99999999999999999999}", "not JSON");
}

static void check_parse_refuses_missing_fields(void **state)
{
	(void)state;
	refused("{\"passed\": 1, \"total\": 1}", "'name' is missing");
	refused("{\"name\": \"a\", \"total\": 1}", "'passed' is missing");
	refused("{\"name\": \"a\", \"passed\": 1}", "'total' is missing");
	refused("{}", "'name' is missing");
}

static void check_parse_bounds_names_and_details(void **state)
{
	char line[LR_CHECK_DETAIL_MAX + 128], name[LR_CHECK_NAME_MAX + 2], detail[LR_CHECK_DETAIL_MAX + 2], msg[256];

	(void)state;
	refused("{\"name\": \"\", \"passed\": 1, \"total\": 1}", "'name' is empty");
	refused("{\"name\": 7, \"passed\": 1, \"total\": 1}", "'name' must be a string");
	memset(name, 'n', sizeof name - 1);
	name[LR_CHECK_NAME_MAX] = 0; /* the longest */
	snprintf(line, sizeof line, "{\"name\": \"%s\", \"passed\": 1, \"total\": 1}", name);
	assert_int_equal(parse(line, msg, sizeof msg), 0);
	name[LR_CHECK_NAME_MAX] = 'n';
	name[LR_CHECK_NAME_MAX + 1] = 0; /* one more */
	snprintf(line, sizeof line, "{\"name\": \"%s\", \"passed\": 1, \"total\": 1}", name);
	refused(line, "'name' is 129 bytes long, more than 128");
	memset(detail, 'd', sizeof detail - 1);
	detail[LR_CHECK_DETAIL_MAX] = 0;
	snprintf(line, sizeof line, "{\"name\": \"a\", \"passed\": 1, \"total\": 1, \"detail\": \"%s\"}", detail);
	assert_int_equal(parse(line, msg, sizeof msg), 0);
	detail[LR_CHECK_DETAIL_MAX] = 'd';
	detail[LR_CHECK_DETAIL_MAX + 1] = 0;
	snprintf(line, sizeof line, "{\"name\": \"a\", \"passed\": 1, \"total\": 1, \"detail\": \"%s\"}", detail);
	refused(line, "'detail' is 1025 bytes long, more than 1024");
	refused("{\"name\": \"a\\tb\", \"passed\": 1, \"total\": 1}", "'name' holds a control character");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 1, \"detail\": \"x\\ny\"}",
		"'detail' holds a control character");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 1, \"detail\": 5}", "'detail' must be a string");
}

static void check_parse_refuses_what_is_no_check(void **state)
{
	char line[LR_CHECK_LINE_MAX + 64];

	(void)state;
	refused("", "the line is empty");
	refused("  \n", "the line is empty");
	refused("[1, 2]", "not a JSON object");
	refused("exactness: 65536/65536", "not JSON");
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 1} {}", "not JSON");
	refused("{\"name\": \"a\", \"name\": \"b\", \"passed\": 1, \"total\": 1}", "not JSON"); /* a key twice */
	refused("{\"name\": \"a\", \"passed\": 1, \"total\": 1, \"pased\": 1}", "unknown key 'pased'");
	memset(line, ' ', sizeof line - 1);
	line[sizeof line - 1] = 0;
	memcpy(line, "{\"name\": \"a\", \"passed\": 1, \"total\": 1}", 38); /* then blanks, past the bound */
	refused(line, "more than 4096");
}

struct fx {
	char *tmp;
	char path[4096];
	struct lr_run run;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	f->tmp = tmpdir_new();
	assert_non_null(f->tmp);
	snprintf(f->path, sizeof f->path, "%s/checks", f->tmp);
	lr_run_init(&f->run);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	lr_run_release(&f->run);
	tmpdir_remove(f->tmp);
	free(f);
	return 0;
}

/* The file at f->path, read: refused as 'want' says, r->checks left as they were. */
static void read_refused(struct fx *f, const char *want)
{
	size_t before = f->run.nchecks;
	char *why = NULL;

	assert_int_equal(lr_checks_read(f->path, &f->run, &why), 0);
	assert_non_null(why);
	assert_string_equal(why, want);
	assert_int_equal(f->run.nchecks, before);
	free(why);
}

static void checks_read_of_no_file_is_none(void **state)
{
	struct fx *f = *state;
	char *why = NULL;

	assert_int_equal(lr_checks_read(f->path, &f->run, &why), 0);
	assert_null(why);
	assert_int_equal(f->run.nchecks, 0);
}

static void checks_read_takes_the_file_whole_or_not_at_all(void **state)
{
	struct fx *f = *state;
	char *why = NULL;

	write_file(f->path,
		   "{\"name\": \"a\", \"passed\": 1, \"total\": 1}\n{\"name\": \"b\", \"passed\": 0, \"total\": 2}");
	assert_int_equal(lr_checks_read(f->path, &f->run, &why), 0);
	assert_null(why);
	assert_int_equal(f->run.nchecks, 2);
	assert_string_equal(f->run.checks[1].name, "b");
	write_file(f->path,
		   "{\"name\": \"c\", \"passed\": 1, \"total\": 1}\n{\"name\": \"d\", \"passed\": 1, \"total\": 1}\n"
		   "{\"name\": \"e\", \"passed\": 2, \"total\": 1}\n");
	read_refused(f, "$LABRUN_CHECKS line 3: 'passed' (2) is more than 'total' (1)"); /* c and d are not taken */
}

static void checks_read_refuses_a_name_twice(void **state)
{
	struct fx *f = *state;

	write_file(f->path,
		   "{\"name\": \"a\", \"passed\": 1, \"total\": 1}\n{\"name\": \"b\", \"passed\": 1, \"total\": 1}\n"
		   "{\"name\": \"a\", \"passed\": 0, \"total\": 1}\n");
	read_refused(f, "$LABRUN_CHECKS line 3: check 'a' was reported already, on line 1");
}

static void checks_read_bounds_the_number_of_lines(void **state)
{
	struct fx *f = *state;
	FILE *out = fopen(f->path, "w");

	assert_non_null(out);
	for (int i = 0; i <= LR_CHECKS_MAX; i++)
		fprintf(out, "{\"name\": \"c%d\", \"passed\": 1, \"total\": 1}\n", i);
	fclose(out);
	read_refused(f, "$LABRUN_CHECKS line 1001: more than 1000 checks");
}

static void checks_read_refuses_a_line_with_a_nul_and_an_empty_line(void **state)
{
	struct fx *f = *state;
	static const char data[] = "{\"name\": \"a\", \"passed\": 1, \"total\": 1}\n{\"na\0me\"}\n";
	FILE *out = fopen(f->path, "w");

	assert_non_null(out);
	fwrite(data, 1, sizeof data - 1, out);
	fclose(out);
	read_refused(f, "$LABRUN_CHECKS line 2: the line holds a NUL byte");
	write_file(f->path, "{\"name\": \"a\", \"passed\": 1, \"total\": 1}\n\n");
	read_refused(f, "$LABRUN_CHECKS line 2: the line is empty");
}

static void checks_append_writes_a_line_the_reader_takes(void **state)
{
	struct fx *f = *state;
	struct lr_check c = { (char *)"sensitive scan", 7, 7, (char *)"7 findings in 6 files, all in the baseline" },
			bad = { (char *)"x", 8, 7, NULL };
	char *why = NULL;
	struct stat sb;

	assert_int_equal(lr_checks_append(f->path, &c), 0);
	c.name = (char *)"second";
	c.detail = NULL;
	assert_int_equal(lr_checks_append(f->path, &c), 0);
	assert_int_equal(lr_checks_append(f->path, &bad), LR_EINVAL); /* what a reader refuses is not written */
	assert_non_null(strstr(lr_error_msg(), "cannot append check 'x' to $LABRUN_CHECKS"));
	lr_error_clear();
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(lr_checks_read(f->path, &f->run, &why), 0);
	assert_null(why);
	assert_int_equal(f->run.nchecks, 2);
	assert_string_equal(f->run.checks[0].detail, "7 findings in 6 files, all in the baseline");
	assert_int_equal(f->run.checks[0].passed, 7);
	assert_null(f->run.checks[1].detail);
}

static void checks_env_replaces_an_inherited_variable(void **state)
{
	char *const envp[] = { "A=1", "LABRUN_CHECKS=/outer/run", "LABRUN_CHECKSX=kept", NULL };
	char **out = NULL, *var = NULL;

	(void)state;
	assert_int_equal(lr_checks_env(envp, "/spool/u.checks", &out, &var), 0);
	assert_string_equal(out[0], "A=1");
	assert_string_equal(out[1], "LABRUN_CHECKSX=kept");
	assert_string_equal(out[2], "LABRUN_CHECKS=/spool/u.checks");
	assert_null(out[3]);
	free(out);
	free(var);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_parse_takes_a_whole_check),
		cmocka_unit_test(check_parse_refuses_negative_counts),
		cmocka_unit_test(check_parse_refuses_passed_over_total),
		cmocka_unit_test(check_parse_refuses_counts_that_are_not_whole_numbers),
		cmocka_unit_test(check_parse_bounds_huge_numbers),
		cmocka_unit_test(check_parse_refuses_missing_fields),
		cmocka_unit_test(check_parse_bounds_names_and_details),
		cmocka_unit_test(check_parse_refuses_what_is_no_check),
		cmocka_unit_test_setup_teardown(checks_read_of_no_file_is_none, setup, teardown),
		cmocka_unit_test_setup_teardown(checks_read_takes_the_file_whole_or_not_at_all, setup, teardown),
		cmocka_unit_test_setup_teardown(checks_read_refuses_a_name_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(checks_read_bounds_the_number_of_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(checks_read_refuses_a_line_with_a_nul_and_an_empty_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(checks_append_writes_a_line_the_reader_takes, setup, teardown),
		cmocka_unit_test(checks_env_replaces_an_inherited_variable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
