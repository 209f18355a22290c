/*
 * BF16 -> DLF16 with AVX2: 16 elements per vector, branch-free.
 * Built with -mavx2 (configure probes it); called only after CPU detection.
 *
 * With m = |b| (the low 15 bits), the contract is
 *   t = sat_sub(m, 0x3000)                       at most 0x4fff
 *   t = sat_add_signed(t, t), twice              4t in range; 0x7fff (NINF) on
 *                                                any overflow, Inf and NaN too
 *   saturate only: t = min(t, 0x7ffe + (m > 0x7f7f))   finite overflow 0x7ffe
 *   r = t | sign
 * which the unit tests check against an oracle on all 65,536 inputs. 6 and 9
 * operations per 16 elements: in cache the arithmetic is the limit.
 */
#include "config.h"

#include <immintrin.h>

#include "encode/dlf16.h"

static inline __attribute__((always_inline)) __m256i encode16(__m256i x, int sat)
{
	const __m256i sign = _mm256_set1_epi16((short)0x8000);
	__m256i m = _mm256_andnot_si256(sign, x);
	__m256i t = _mm256_subs_epu16(m, _mm256_set1_epi16(0x3000));

	t = _mm256_adds_epi16(t, t);
	t = _mm256_adds_epi16(t, t);
	if (sat) /* 0x7ffe - (-1) for Inf/NaN */
		t = _mm256_min_epi16(t, _mm256_sub_epi16(_mm256_set1_epi16(0x7ffe),
							 _mm256_cmpgt_epi16(m, _mm256_set1_epi16(0x7f7f))));
	return _mm256_or_si256(t, _mm256_and_si256(x, sign));
}

static inline __attribute__((always_inline)) void encode_run(uint16_t *dst, const uint16_t *src, size_t n,
							     enum lr_dlf16_contract c, unsigned flags, int sat)
{
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

				_mm256_stream_si256((__m256i *)(dst + i), encode16(a, sat));
				_mm256_stream_si256((__m256i *)(dst + i + 16), encode16(b, sat));
			}
		}
	}
	for (; i + 32 <= n; i += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 16));

		_mm256_storeu_si256((__m256i *)(dst + i), encode16(a, sat));
		_mm256_storeu_si256((__m256i *)(dst + i + 16), encode16(b, sat));
	}
	if (i + 16 <= n) {
		_mm256_storeu_si256((__m256i *)(dst + i),
				    encode16(_mm256_loadu_si256((const __m256i *)(src + i)), sat));
		i += 16;
	}
	for (; i < n; i++)
		dst[i] = lr_dlf16_encode1(src[i], c);
}

#define DLF16_ENCODE      lr_dlf16_encode_avx2
#define DLF16_ENCODE_ROWS lr_dlf16_encode_rows_avx2
#include "encode/dlf16-tpl.h"
