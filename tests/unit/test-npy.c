#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "encode/npy.h"

static const char good[] = "\x93NUMPY\x01\x00\x76\x00"
			   "{'descr': '<u2', 'fortran_order': False, 'shape': (3, 5), }";

/* A valid file: the header above padded to 128 bytes, then 15 elements. */
static size_t make_good(unsigned char *buf)
{
	size_t n = sizeof good - 1;

	memcpy(buf, good, n);
	memset(buf + n, ' ', 127 - n);
	buf[127] = '\n';
	memset(buf + 128, 0x11, 30);
	return 158;
}

static void a_numpy_header_parses(void **state)
{
	unsigned char buf[256];
	struct lr_npy_header h;

	(void)state;
	assert_int_equal(lr_npy_parse(&h, buf, make_good(buf), "t.npy"), 0);
	assert_int_equal(h.rank, 2);
	assert_int_equal(h.shape[0], 3);
	assert_int_equal(h.shape[1], 5);
	assert_int_equal(h.kind, LR_NPY_U16);
	assert_int_equal(h.fortran, 0);
	assert_int_equal(h.data_offset, 128);
}

static void every_truncation_is_an_error_not_a_crash(void **state)
{
	unsigned char buf[256];
	struct lr_npy_header h;
	size_t len = make_good(buf), cut;

	(void)state;
	for (cut = 0; cut < len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);

		memcpy(copy, buf, cut);
		assert_int_equal(lr_npy_parse(&h, copy, cut, "t.npy"), LR_EDATA); /* bad data, not usage */
		assert_non_null(strstr(lr_error_msg(), "'t.npy'"));
		free(copy);
	}
}

static void every_corrupted_header_byte_is_handled(void **state)
{
	unsigned char buf[256], copy[256];
	struct lr_npy_header h;
	size_t len = make_good(buf), i;
	int v, ok = 0;

	(void)state;
	/* Any value in any header byte: a clean result or a clean error, never a crash. */
	for (i = 0; i < 128; i++)
		for (v = 0; v < 256; v += 7) {
			memcpy(copy, buf, len);
			copy[i] = (unsigned char)v;
			if (lr_npy_parse(&h, copy, len, "t.npy") == 0)
				ok++;
		}
	assert_true(ok > 0); /* e.g. a changed padding space that is still white space */
}

static void shapes_parse_or_are_refused(void **state)
{
	int64_t shape[8];
	int rank;

	(void)state;
	assert_int_equal(lr_shape_parse(shape, &rank, "28,2,8,8192,128", "--shape"), 0);
	assert_int_equal(rank, 5);
	assert_int_equal(shape[3], 8192);
	assert_int_equal(lr_shape_parse(shape, &rank, "", "--shape"), LR_EINVAL);
	assert_int_equal(lr_shape_parse(shape, &rank, "1,,2", "--shape"), LR_EINVAL);
	assert_int_equal(lr_shape_parse(shape, &rank, "1,2,", "--shape"), LR_EINVAL);
	assert_int_equal(lr_shape_parse(shape, &rank, "-1", "--shape"), LR_EINVAL);
	assert_int_equal(lr_shape_parse(shape, &rank, "1,2,3,4,5,6,7,8,9", "--shape"), LR_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_numpy_header_parses),
		cmocka_unit_test(every_truncation_is_an_error_not_a_crash),
		cmocka_unit_test(every_corrupted_header_byte_is_handled),
		cmocka_unit_test(shapes_parse_or_are_refused),
	};

	return cmocka_run_group_tests_name("npy", tests, NULL, NULL);
}
