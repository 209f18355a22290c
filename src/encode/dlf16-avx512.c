/*
 * BF16 -> DLF16 with AVX-512BW: 32 elements per vector, masked tails.
 * Same arithmetic as dlf16-avx2.c (see there); built with -mavx512f
 * -mavx512bw and called only after CPU detection.
 */
#include "config.h"

#include <immintrin.h>

#include "encode/dlf16.h"

static inline __m512i encode32(__m512i x, __m512i ovf)
{
	const __m512i sign = _mm512_set1_epi16((short)0x8000);
	__m512i s = _mm512_and_si512(x, sign);
	__m512i m = _mm512_andnot_si512(sign, x);
	__m512i t = _mm512_subs_epu16(m, _mm512_set1_epi16(0x3000));
	__mmask32 special;

	t = _mm512_min_epu16(t, _mm512_set1_epi16(0x2000));
	t = _mm512_min_epu16(_mm512_slli_epi16(t, 2), ovf);
	/* Inf/NaN: NINF under both contracts */
	special = _mm512_cmpgt_epi16_mask(m, _mm512_set1_epi16(0x7f7f));
	t = _mm512_mask_mov_epi16(t, special, _mm512_set1_epi16(0x7fff));
	return _mm512_or_si512(t, s);
}

void lr_dlf16_encode_avx512(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c,
			    unsigned flags)
{
	const __m512i ovf = _mm512_set1_epi16(c == LR_DLF16_SATURATE ? 0x7ffe : 0x7fff);
	size_t i = 0;

	/* as in dlf16-avx2.c: stream aligned or long runs only */
	if ((flags & LR_DLF16_STREAM) && n >= 128 && (((uintptr_t)dst & 63) == 0 || n >= 4096)) {
		size_t head = ((64 - ((uintptr_t)dst & 63)) & 63) / 2;

		if (((uintptr_t)dst & 1) == 0) {
			if (head) {
				__mmask32 k = (__mmask32)((1u << head) - 1);

				_mm512_mask_storeu_epi16(dst, k, encode32(_mm512_maskz_loadu_epi16(k, src), ovf));
				i = head;
			}
			for (; i + 32 <= n; i += 32)
				_mm512_stream_si512((void *)(dst + i),
						    encode32(_mm512_loadu_si512((const void *)(src + i)), ovf));
		}
	}
	for (; i + 32 <= n; i += 32)
		_mm512_storeu_si512((void *)(dst + i), encode32(_mm512_loadu_si512((const void *)(src + i)), ovf));
	if (i < n) {
		__mmask32 k = (__mmask32)((1u << (n - i)) - 1);

		_mm512_mask_storeu_epi16(dst + i, k, encode32(_mm512_maskz_loadu_epi16(k, src + i), ovf));
	}
}
