/*
 * The synthetic BF16 sequence of synth.c, eight elements at a time with
 * AVX-512 (DQ for 64-bit multiplies and conversions): element i depends
 * only on seed + (i + 1) * GAMMA, so lanes are independent. The same values
 * as the scalar loop, which test-layout checks (a pinned digest, and the two
 * loops compared on odd offsets and lengths). Special patterns are left to
 * the caller: this returns where they go. Called only after synth.c has
 * checked the CPU (this file is built with -mavx512f -mavx512bw).
 */
#include "config.h"

#include <immintrin.h>

#include "encode/synth.h"

#define GAMMA 0x9e3779b97f4a7c15ull

/*
 * Elements [first, first + n8 * 8) into src + first; bit j of specials[k]
 * set when element first + 8k + j drew a special pattern (the caller writes
 * it, when it wants them).
 */
__attribute__((target("avx512f,avx512dq"))) void lr_bf16_synth8(uint16_t *src, int64_t first, int64_t n8, uint64_t seed,
								uint8_t *specials)
{
	const __m512i step = _mm512_set1_epi64((long long)(8 * GAMMA));
	const __m512i c1 = _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ull);
	const __m512i c2 = _mm512_set1_epi64((long long)0x94d049bb133111ebull);
	const __m512d tenth = _mm512_set1_pd(0.1), ten = _mm512_set1_pd(10.0);
	__m512i s = _mm512_add_epi64(
		_mm512_set1_epi64((long long)(seed + (uint64_t)first * GAMMA)),
		_mm512_mullo_epi64(_mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1), _mm512_set1_epi64((long long)GAMMA)));
	int64_t k;

	for (k = 0; k < n8; k++, s = _mm512_add_epi64(s, step)) {
		__m512i z = _mm512_mullo_epi64(_mm512_xor_si512(s, _mm512_srli_epi64(s, 30)), c1);
		__m512i r, sign, frac, pick, e10, exp, v;
		__m512d d, q;
		__mmask8 low;

		z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), c2);
		r = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
		sign = _mm512_slli_epi64(_mm512_srli_epi64(r, 63), 15);
		frac = _mm512_and_si512(_mm512_srli_epi64(r, 40), _mm512_set1_epi64(0x7f));
		pick = _mm512_and_si512(r, _mm512_set1_epi64(0x3ff));
		/* (r >> 20) % 10 in doubles: below 2^44, so exact, and floor(v * 0.1) errs by far less than 0.1 */
		d = _mm512_cvtepu64_pd(_mm512_srli_epi64(r, 20));
		q = _mm512_roundscale_pd(_mm512_mul_pd(d, tenth), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
		e10 = _mm512_cvttpd_epu64(_mm512_fnmadd_pd(q, ten, d));
		low = _mm512_cmplt_epu64_mask(pick, _mm512_set1_epi64(16));
		exp = _mm512_add_epi64(
			e10, _mm512_mask_blend_epi64(low, _mm512_set1_epi64(127 - 8), _mm512_set1_epi64(127 + 2)));
		v = _mm512_or_si512(_mm512_or_si512(sign, _mm512_slli_epi64(exp, 7)), frac);
		_mm_storeu_si128((__m128i *)(src + first + 8 * k), _mm512_cvtepi64_epi16(v));
		specials[k] = (uint8_t)_mm512_cmpeq_epu64_mask(pick, _mm512_setzero_si512());
	}
}
