/*
 * The site's figures, in pieces a browser is not needed for: text cut to its
 * room at a character's edge with an ellipsis, round axes that hold their
 * data, issue pages named one per reference, and a distribution's values
 * thinned evenly once there are too many to hold. (tests/cli/t0355-site.sh
 * checks the figures drawn, in Chromium.)
 */
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

#include "report/site-int.h"

/* What lr_plot_text writes for 'text' in 'maxw' px at 11 px (malloc'd). */
static char *drawn(const char *text, double maxw)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	lr_plot_text(f, 0, 0, 11, "start", maxw, "", text);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void text_that_fits_is_written_whole_and_escaped(void **state)
{
	char *s = drawn("a<b", 200);

	(void)state;
	assert_non_null(strstr(s, ">a&lt;b</text>"));
	free(s);
}

static void text_too_wide_is_cut_at_a_character_with_an_ellipsis(void **state)
{
	/* "é" is two bytes: a cut between them would leave invalid UTF-8 */
	const char *name = "rout\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9-long-name";
	char *s = drawn(name, 60), *body = strchr(s, '>') + 1, *end = strstr(body, "&#8230;</text>");

	(void)state;
	assert_non_null(end);
	*end = '\0';
	assert_true(strlen(body) > 0 && strlen(body) < strlen(name));
	assert_memory_equal(body, name, strlen(body)); /* a prefix of the name */
	assert_true(((unsigned char)name[strlen(body)] & 0xc0) != 0x80);
	assert_true(lr_plot_text_width(body, 11) + 0.75 * 11 <= 60);
	free(s);
}

static void an_axis_is_round_and_holds_its_data(void **state)
{
	static const double cases[][2] = { { 0, 17.3 }, { 13.9, 19.6 }, { 0.7, 0.71 }, { 2700, 8800 }, { 5, 5 } };

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double lo = cases[i][0], hi = cases[i][1], step, m;

		lr_plot_range(&lo, &hi, 6, 0, &step);
		/* up to a rounding of the last bit: 0.7 / 0.002 is 349.99999999999994 */
		assert_true(lo <= cases[i][0] + step * 1e-9 && hi >= cases[i][1] - step * 1e-9 && hi > lo);
		assert_true((hi - lo) / step <= 6 + 1e-9);
		m = step / pow(10, floor(log10(step) + 1e-12)); /* 1, 2 or 5 times a power of ten */
		assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);
		assert_true(fabs(lo / step - round(lo / step)) < 1e-6);
	}
}

static void a_count_axis_steps_by_whole_requests(void **state)
{
	double lo = 0, hi = 3, step;

	(void)state;
	lr_plot_range(&lo, &hi, 5, 1, &step);
	assert_true(step >= 1);
	assert_true(lo == 0 && hi == 3);
}

static void each_issue_has_a_page_of_its_own(void **state)
{
	char a[1024], b[1024];

	(void)state;
	assert_string_equal(lr_site_issue_page(a, sizeof a, "270"), "issue-270.html");
	assert_string_equal(lr_site_issue_page(a, sizeof a, "org/repo#7"), "issue-org_2frepo_237.html");
	/* '_' is escaped too, so no reference's name is another's */
	assert_string_not_equal(lr_site_issue_page(a, sizeof a, "a_2fb"), lr_site_issue_page(b, sizeof b, "a/b"));
	assert_string_not_equal(lr_site_issue_page(a, sizeof a, "Org/x#1"), lr_site_issue_page(b, sizeof b, "org/x#1"));
}

static void a_pool_past_its_room_keeps_an_evenly_spaced_share(void **state)
{
	struct lr_site_pool p = { .most = 8 };

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(lr_site_pool_add(&p, i), 0);
	assert_int_equal(p.seen, 100);
	assert_true(p.v.n <= 8 && p.v.n > 0);
	assert_int_equal(p.stride & (p.stride - 1), 0); /* a power of two */
	assert_true(p.stride > 1);
	for (size_t k = 0; k < p.v.n; k++) /* every stride-th value from the first, in order */
		assert_true(p.v.v[k] == (double)(k * p.stride));
	assert_true((p.v.n - 1) * p.stride < 100 && p.v.n * p.stride >= 100 - p.stride);
	free(p.v.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_that_fits_is_written_whole_and_escaped),
		cmocka_unit_test(text_too_wide_is_cut_at_a_character_with_an_ellipsis),
		cmocka_unit_test(an_axis_is_round_and_holds_its_data),
		cmocka_unit_test(a_count_axis_steps_by_whole_requests),
		cmocka_unit_test(each_issue_has_a_page_of_its_own),
		cmocka_unit_test(a_pool_past_its_room_keeps_an_evenly_spaced_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
