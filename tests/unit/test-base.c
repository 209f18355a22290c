#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/safename.h"

/* Stored names become safe, reversible member names; ordinary ones stay as they are. */
static void safe_member_names(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "results/out.txt", "results/out.txt" },
		{ "r\xc3\xa9sultats.csv", "r\xc3\xa9sultats.csv" },		/* valid UTF-8 stays */
		{ "../x.txt", "%2E%2E/x.txt" },					/* climbing out */
		{ "a/../../b", "a/%2E%2E/%2E%2E/b" },
		{ "./a", "%2E/a" },
		{ "a/..", "a/%2E%2E" },
		{ "..a/b..", "..a/b.." },					/* dots inside a name are fine */
		{ "/etc/passwd", "%2Fetc/passwd" },				/* absolute */
		{ "a//b", "a/%2Fb" },						/* an empty component */
		{ "caf\xe9.csv", "caf%E9.csv" },				/* Latin-1, not UTF-8 */
		{ "100%.txt", "100%25.txt" },					/* the escape character itself */
		{ "tab\there", "tab%09here" },
		{ "\xed\xa0\x80", "%ED%A0%80" },				/* a UTF-16 surrogate */
	};
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_non_null(lr_safe_member(buf, sizeof buf, cases[i].in));
		assert_string_equal(buf, cases[i].out);
	}
	assert_null(lr_safe_member(buf, 4, "abcdef"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(safe_member_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
