/*
 * BF16 -> DLF16 with AVX2: 16 elements per vector, branch-free.
 * Built with -mavx2 (configure probes it); called only after CPU detection.
 *
 * With m = |b| (the low 15 bits), the contract is
 *   t = min(sat_sub(m, 0x3000), 0x2000) << 2     0 on underflow, exact in range,
 *                                                0x8000 on any overflow
 *   r = min_unsigned(t, ovf)                     ovf: 0x7ffe saturate, 0x7fff ninf
 *   r |= (m > 0x7f7f)                            Inf/NaN: 0x7ffe | 1 = NINF
 *   r |= sign
 * which the unit tests check against the scalar reference on all 65,536 inputs.
 */
#include "config.h"

#include <immintrin.h>

#include "encode/dlf16.h"

static inline __m256i encode16(__m256i x, __m256i ovf)
{
	const __m256i sign = _mm256_set1_epi16((short)0x8000);
	__m256i s = _mm256_and_si256(x, sign);
	__m256i m = _mm256_andnot_si256(sign, x);
	__m256i t = _mm256_subs_epu16(m, _mm256_set1_epi16(0x3000));
	__m256i special;

	t = _mm256_min_epu16(t, _mm256_set1_epi16(0x2000));
	t = _mm256_min_epu16(_mm256_slli_epi16(t, 2), ovf);
	special = _mm256_srli_epi16(_mm256_cmpgt_epi16(m, _mm256_set1_epi16(0x7f7f)), 15);
	return _mm256_or_si256(_mm256_or_si256(t, special), s);
}

void lr_dlf16_encode_avx2(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c,
			  unsigned flags)
{
	const __m256i ovf = _mm256_set1_epi16(c == LR_DLF16_SATURATE ? 0x7ffe : 0x7fff);
	size_t i = 0;

	/* Stream only where it pays: mixing ordinary and non-temporal stores in one
	 * cache line is slow, so a short misaligned row is written the ordinary way. */
	if ((flags & LR_DLF16_STREAM) && n >= 64 && (((uintptr_t)dst & 31) == 0 || n >= 4096)) {
		/* Reach a 32-byte aligned destination, then stream whole vectors. */
		while (((uintptr_t)(dst + i) & 31) && i < n) {
			dst[i] = lr_dlf16_encode1(src[i], c);
			i++;
		}
		if (((uintptr_t)(dst + i) & 31) == 0) {
			for (; i + 32 <= n; i += 32) {
				__m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
				__m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 16));

				_mm256_stream_si256((__m256i *)(dst + i), encode16(a, ovf));
				_mm256_stream_si256((__m256i *)(dst + i + 16), encode16(b, ovf));
			}
		}
	}
	for (; i + 32 <= n; i += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 16));

		_mm256_storeu_si256((__m256i *)(dst + i), encode16(a, ovf));
		_mm256_storeu_si256((__m256i *)(dst + i + 16), encode16(b, ovf));
	}
	if (i + 16 <= n) {
		_mm256_storeu_si256((__m256i *)(dst + i),
				    encode16(_mm256_loadu_si256((const __m256i *)(src + i)), ovf));
		i += 16;
	}
	for (; i < n; i++)
		dst[i] = lr_dlf16_encode1(src[i], c);
}
