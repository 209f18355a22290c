/*
 * BF16 -> DLF16 with AVX-512BW: 32 elements per vector, masked tails, the
 * arithmetic of dlf16-vec-tpl.h in 5 and 7 operations per 32 elements (in
 * cache, where the copy ceiling is highest, the arithmetic is the limit).
 * Built with -mavx512f -mavx512bw and called only after CPU detection.
 */
#include "config.h"

#include <immintrin.h>

#include "encode/dlf16.h"

#define DLF16_VEC            __m512i
#define DLF16_SET1(v)        _mm512_set1_epi16((short)(v))
#define DLF16_ANDNOT(a, b)   _mm512_andnot_si512((a), (b))
#define DLF16_SUBS_U16(a, b) _mm512_subs_epu16((a), (b))
#define DLF16_ADDS_I16(a, b) _mm512_adds_epi16((a), (b))
/* one masked min over the finite lanes */
#define DLF16_SATURATE(t, m) \
	_mm512_mask_min_epu16((t), _mm512_cmple_epu16_mask((m), _mm512_set1_epi16(0x7f7f)), (t), \
			      _mm512_set1_epi16(0x7ffe))
/* one ternary-logic op: t | (x & sign) */
#define DLF16_SIGN(t, x, sign) _mm512_ternarylogic_epi32((t), (x), (sign), 0xf8)
#include "encode/dlf16-vec-tpl.h"

/* Elements in a 4 KiB page. */
#define PAGE 2048

/* Four pages at once, 128 bytes of each in turn, prefetched ahead (LR_DLF16_PAGES): as dlf16-avx2.c streams, and why. */
static inline __attribute__((always_inline)) void stream_4_pages(uint16_t *dst, const uint16_t *src, int sat)
{
	for (size_t j = 0; j < PAGE; j += 64)
		for (size_t p = 0; p < 4 * PAGE; p += PAGE) {
			const uint16_t *s = src + p + j;

			_mm_prefetch((const char *)(s + 256), _MM_HINT_T0);
			_mm512_stream_si512((void *)(dst + p + j), dlf16_vec(_mm512_loadu_si512((const void *)s), sat));
			_mm512_stream_si512((void *)(dst + p + j + 32),
					    dlf16_vec(_mm512_loadu_si512((const void *)(s + 32)), sat));
		}
}

static inline __attribute__((always_inline)) void encode_run(uint16_t *dst, const uint16_t *src, size_t n,
							     enum lr_dlf16_contract c, unsigned flags, int sat)
{
	size_t i = 0;

	(void)c; /* the tail is masked: no element is left to the scalar encoder */
	/* as in dlf16-avx2.c: stream aligned or long runs only */
	if ((flags & LR_DLF16_STREAM) && n >= 128 && (((uintptr_t)dst & 63) == 0 || n >= 4096)) {
		size_t head = ((64 - ((uintptr_t)dst & 63)) & 63) / 2;

		if (((uintptr_t)dst & 1) == 0) {
			if (head) {
				__mmask32 k = (__mmask32)((1u << head) - 1);

				_mm512_mask_storeu_epi16(dst, k, dlf16_vec(_mm512_maskz_loadu_epi16(k, src), sat));
				i = head;
			}
			if (flags & LR_DLF16_PAGES)
				for (; i + 4 * PAGE <= n; i += 4 * PAGE)
					stream_4_pages(dst + i, src + i, sat);
			for (; i + 32 <= n; i += 32)
				_mm512_stream_si512((void *)(dst + i),
						    dlf16_vec(_mm512_loadu_si512((const void *)(src + i)), sat));
		}
	}
	for (; i + 32 <= n; i += 32)
		_mm512_storeu_si512((void *)(dst + i), dlf16_vec(_mm512_loadu_si512((const void *)(src + i)), sat));
	if (i < n) {
		__mmask32 k = (__mmask32)((1u << (n - i)) - 1);

		_mm512_mask_storeu_epi16(dst + i, k, dlf16_vec(_mm512_maskz_loadu_epi16(k, src + i), sat));
	}
}

#define DLF16_ENCODE            lr_dlf16_encode_avx512
#define DLF16_ENCODE_ROWS       lr_dlf16_encode_rows_avx512
#define DLF16_ENCODE_PAGES      lr_dlf16_encode_avx512_pages
#define DLF16_ENCODE_ROWS_PAGES lr_dlf16_encode_rows_avx512_pages
#include "encode/dlf16-tpl.h"
