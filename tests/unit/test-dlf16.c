#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "encode/dlf16-oracle.h"
#include "encode/dlf16.h"
#include "encode/ktable.h"

/* The spec's test-vector table: BF16 in, ninf, saturate, back to BF16 (saturate; 0xFFFF = NaN). */
static const struct {
	uint16_t bf16, ninf, sat, back;
} vectors[] = {
	{ 0x0000, 0x0000, 0x0000, 0x0000 }, { 0x8000, 0x8000, 0x8000, 0x8000 }, { 0x0001, 0x0000, 0x0000, 0x0000 },
	{ 0x8080, 0x8000, 0x8000, 0x8000 }, { 0x3000, 0x0000, 0x0000, 0x0000 }, { 0xB000, 0x8000, 0x8000, 0x8000 },
	{ 0x3001, 0x0004, 0x0004, 0x3001 }, { 0x3F80, 0x3E00, 0x3E00, 0x3F80 }, { 0xBF80, 0xBE00, 0xBE00, 0xBF80 },
	{ 0x3FC0, 0x3F00, 0x3F00, 0x3FC0 }, { 0x4049, 0x4124, 0x4124, 0x4049 }, { 0x3DCD, 0x3734, 0x3734, 0x3DCD },
	{ 0xC2F7, 0xCBDC, 0xCBDC, 0xC2F7 }, { 0x4FFF, 0x7FFC, 0x7FFC, 0x4FFF }, { 0x5000, 0x7FFF, 0x7FFE, 0x4FFF },
	{ 0xD000, 0xFFFF, 0xFFFE, 0xCFFF }, { 0x7F7F, 0x7FFF, 0x7FFE, 0x4FFF }, { 0x7F80, 0x7FFF, 0x7FFF, 0xFFFF },
	{ 0xFF80, 0xFFFF, 0xFFFF, 0xFFFF }, { 0x7FC0, 0x7FFF, 0x7FFF, 0xFFFF }, { 0xFFC0, 0xFFFF, 0xFFFF, 0xFFFF },
};

static int is_nan_bf16(uint16_t b)
{
	return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
}

static void oracle_matches_the_spec_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
		assert_int_equal(lr_dlf16_oracle(vectors[i].bf16, LR_DLF16_NINF), vectors[i].ninf);
		assert_int_equal(lr_dlf16_oracle(vectors[i].bf16, LR_DLF16_SATURATE), vectors[i].sat);
	}
}

static void oracle_reproduces_the_spec_class_counts(void **state)
{
	unsigned zeros = 0, flush = 0, in = 0, ovf = 0, inf = 0, nan = 0, b;

	(void)state;
	for (b = 0; b < 65536; b++) {
		double v = lr_bf16_value((uint16_t)b);
		uint16_t d = lr_dlf16_oracle((uint16_t)b, LR_DLF16_SATURATE);

		if (isnan(v))
			nan++;
		else if (isinf(v))
			inf++;
		else if (v == 0)
			zeros++;
		else if ((d & 0x7fff) == 0)
			flush++;
		else if ((d & 0x7fff) == 0x7ffe)
			ovf++;
		else
			in++;
	}
	assert_int_equal(zeros, 2);
	assert_int_equal(flush, 24576);
	assert_int_equal(in, 16382);
	assert_int_equal(ovf, 24320);
	assert_int_equal(inf, 2);
	assert_int_equal(nan, 254);
}

static void reference_matches_the_spec_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
		uint16_t d = lr_dlf16_encode1(vectors[i].bf16, LR_DLF16_SATURATE);
		uint16_t back = (uint16_t)(lr_dlf16_decode1(d) >> 16);

		assert_int_equal(lr_dlf16_encode1(vectors[i].bf16, LR_DLF16_NINF), vectors[i].ninf);
		assert_int_equal(d, vectors[i].sat);
		if (vectors[i].back == 0xFFFF)
			assert_true(is_nan_bf16(back));
		else
			assert_int_equal(back, vectors[i].back);
	}
}

/* Every available kernel, both contracts, all 65,536 patterns, against the oracle. */
static void every_kernel_matches_the_oracle_exhaustively(void **state)
{
	int i, c, ran = 0;

	(void)state;
	for (i = 0; lr_dlf16_kernels[i]; i++) {
		const struct lr_dlf16_kernel *k = lr_dlf16_kernels[i];

		if (!k->encode || !k->supported()) {
			print_message("kernel %s not available here: %s\n", k->name,
				      k->encode ? "CPU lacks it" : "not built");
			continue;
		}
		for (c = 0; c < 2; c++) {
			uint16_t first = 0;
			uint32_t bad = lr_dlf16_verify(k, (enum lr_dlf16_contract)c, &first);

			if (bad)
				fail_msg("kernel %s, %s: %u mismatches, first BF16 %04x", k->name,
					 lr_dlf16_contract_name(c), bad, first);
			ran++;
		}
	}
	assert_true(ran >= 4); /* lookup and scalar at least, both contracts */
}

/* The array decoders (vectorised) give lr_dlf16_decode1 on every code, at every offset of a tail. */
static void array_decoders_match_decode1_on_every_code(void **state)
{
	static uint16_t codes[65536 + 7], bf[65536 + 7];
	static uint32_t f32[65536 + 7];
	uint32_t d;
	int off;

	(void)state;
	for (d = 0; d < 65536 + 7; d++)
		codes[d] = (uint16_t)(d * 40503u); /* every code once in the first 65,536, scattered */
	for (off = 0; off < 8; off++) {
		size_t n = 65536 - (size_t)off;

		lr_dlf16_decode_f32(f32, codes + off, n);
		lr_dlf16_decode_bf16(bf, codes + off, n);
		for (d = 0; d < n; d++) {
			uint32_t want = lr_dlf16_decode1(codes[off + d]);

			if (f32[d] != want || bf[d] != (uint16_t)(want >> 16))
				fail_msg("code %04x at offset %d: f32 %08x bf16 %04x, want %08x", codes[off + d], off,
					 f32[d], bf[d], want);
		}
	}
}

static void decode_matches_the_format_definition(void **state)
{
	uint32_t d;

	(void)state;
	for (d = 0; d < 65536; d++) {
		uint32_t bits = lr_dlf16_decode1((uint16_t)d);
		double want = lr_dlf16_value((uint16_t)d);
		float got;

		memcpy(&got, &bits, sizeof got);
		if (isnan(want)) {
			assert_int_equal(bits, 0x7fc00000);
		} else {
			assert_true((double)got == want);
			assert_int_equal(signbit(got) != 0, (d & 0x8000) != 0);
		}
	}
	/* decode-only vectors */
	assert_int_equal(lr_dlf16_decode1(0x0001), 0x30004000);
	assert_int_equal(lr_dlf16_decode1(0x0200), 0x30800000);
	assert_int_equal(lr_dlf16_decode1(0x3E00), 0x3F800000);
	assert_int_equal(lr_dlf16_decode1(0x7FFE), 0x4FFF8000);
	assert_int_equal(lr_dlf16_decode1(0xFFFF), 0x7fc00000);
}

static void magnitude_order_is_the_order_of_the_low_bits(void **state)
{
	uint16_t m;

	(void)state;
	for (m = 1; m < 0x7fff; m++)
		assert_true(lr_dlf16_value(m) > lr_dlf16_value((uint16_t)(m - 1)));
}

static void round_trip_properties_hold(void **state)
{
	uint32_t b;
	int c;

	(void)state;
	for (c = 0; c < 2; c++)
		for (b = 0; b < 65536; b++) {
			uint16_t m = b & 0x7fff, s = b & 0x8000;
			uint16_t d = lr_dlf16_encode1((uint16_t)b, (enum lr_dlf16_contract)c);
			uint16_t back = (uint16_t)(lr_dlf16_decode1(d) >> 16);

			if (m > 0x3000 && m < 0x5000)
				assert_int_equal(back, b); /* in range: bit-exact */
			else if (m <= 0x3000)
				assert_int_equal(back, s); /* underflow: same-signed zero */
			else if (m < 0x7f80 && c == LR_DLF16_SATURATE)
				assert_int_equal(back, s | 0x4fff); /* finite overflow saturates */
			else
				assert_true(is_nan_bf16(back)); /* NaN, Inf, or overflow under ninf */
			if (m > 0x3000 && m < 0x5000)
				assert_int_equal(d & 3, 0); /* in-range codes have their low 2 bits clear */
		}
}

static void kernels_are_found_or_refused_by_name(void **state)
{
	const struct lr_dlf16_kernel *k = NULL;

	(void)state;
	assert_int_equal(lr_dlf16_kernel_find(&k, "scalar"), 0);
	assert_string_equal(k->name, "scalar");
	assert_int_equal(lr_dlf16_kernel_find(&k, "auto"), 0);
	assert_non_null(k->encode);
	assert_true(k->supported());
	assert_int_equal(lr_dlf16_kernel_find(&k, "sse9"), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "unknown kernel 'sse9'"));
	for (int i = 0; lr_dlf16_kernels[i]; i++)
		if (!lr_dlf16_kernels[i]->encode || !lr_dlf16_kernels[i]->supported()) {
			assert_int_equal(lr_dlf16_kernel_find(&k, lr_dlf16_kernels[i]->name), LR_EINVAL);
			assert_non_null(strstr(lr_error_msg(), "not available"));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oracle_matches_the_spec_table),
		cmocka_unit_test(oracle_reproduces_the_spec_class_counts),
		cmocka_unit_test(reference_matches_the_spec_table),
		cmocka_unit_test(every_kernel_matches_the_oracle_exhaustively),
		cmocka_unit_test(decode_matches_the_format_definition),
		cmocka_unit_test(array_decoders_match_decode1_on_every_code),
		cmocka_unit_test(magnitude_order_is_the_order_of_the_low_bits),
		cmocka_unit_test(round_trip_properties_hold),
		cmocka_unit_test(kernels_are_found_or_refused_by_name),
	};

	return cmocka_run_group_tests_name("dlf16", tests, NULL, NULL);
}
