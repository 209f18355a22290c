#include "config.h"
#include "base/system.h"

#include <assert.h>
#include <math.h>

#include "encode/dlf16-oracle.h"

double lr_bf16_value(uint16_t b)
{
	int s = b >> 15, e = (b >> 7) & 0xff, f = b & 0x7f;
	double v;

	if (e == 0xff)
		v = f ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(f, -133); /* subnormal: f/128 * 2^-126 */
	else
		v = ldexp(128 + f, e - 134); /* (1 + f/128) * 2^(e-127) */
	return s ? -v : v;
}

uint16_t lr_dlf16_oracle(uint16_t b, enum lr_dlf16_contract c)
{
	double v = lr_bf16_value(b), mant;
	uint16_t s = signbit(v) ? 0x8000 : 0;
	int exp, E;
	long F;

	if (isnan(v) || isinf(v))
		return s | 0x7fff;
	if (v == 0)
		return s;
	/* |v| = mant * 2^exp, mant in [0.5, 1)  ->  2^(E-31) * (1 + F/512) */
	mant = frexp(fabs(v), &exp);
	E = exp - 1 + 31;
	F = lround((mant * 2 - 1) * 512);
	if (E < 0 || (E == 0 && F == 0)) /* below the smallest normal, or exactly 2^-31 */
		return s;
	if (E > 63 || (E == 63 && F >= 511)) /* beyond the largest finite code */
		return s | (c == LR_DLF16_SATURATE ? 0x7ffe : 0x7fff);
	assert((mant * 2 - 1) * 512 == (double)F); /* BF16 has 7 fraction bits: never inexact */
	return (uint16_t)(s | (E << 9) | F);
}

double lr_dlf16_value(uint16_t d)
{
	int s = d >> 15, E = (d >> 9) & 0x3f, F = d & 0x1ff;
	double v;

	if ((d & 0x7fff) == 0x7fff)
		return NAN;
	v = (E == 0 && F == 0) ? 0.0 : ldexp(512 + F, E - 31 - 9);
	return s ? -v : v;
}

uint32_t lr_dlf16_verify(const struct lr_dlf16_kernel *k, enum lr_dlf16_contract c, uint16_t *first_bad)
{
	uint16_t *in = malloc(2 * (65536 + 1)), *out = malloc(2 * (65536 + 1));
	uint32_t bad = 0, pass, b;

	if (!in || !out) {
		free(in);
		free(out);
		*first_bad = 0;
		return 65536;
	}
	for (pass = 0; pass < 2; pass++) {
		/* pass 1 starts one element in, so vector kernels see unaligned data and other tails */
		for (b = 0; b < 65536; b++)
			in[pass + b] = (uint16_t)b;
		k->encode(out + pass, in + pass, 65536, c, pass ? LR_DLF16_STREAM : 0);
		lr_dlf16_fence();
		for (b = 0; b < 65536; b++)
			if (out[pass + b] != lr_dlf16_oracle((uint16_t)b, c)) {
				if (!bad)
					*first_bad = (uint16_t)b;
				bad++;
			}
	}
	free(in);
	free(out);
	return bad;
}
