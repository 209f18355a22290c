/*
 * BF16 -> DLF16 with AVX2: 16 elements per vector, branch-free, the
 * arithmetic of dlf16-vec-tpl.h in 6 and 9 operations per 16 elements (in
 * cache the arithmetic is the limit). Built with -mavx2 (configure probes it);
 * called only after CPU detection.
 */
#include "config.h"

#include <immintrin.h>

#include "encode/dlf16.h"

#define DLF16_VEC            __m256i
#define DLF16_SET1(v)        _mm256_set1_epi16((short)(v))
#define DLF16_ANDNOT(a, b)   _mm256_andnot_si256((a), (b))
#define DLF16_SUBS_U16(a, b) _mm256_subs_epu16((a), (b))
#define DLF16_ADDS_I16(a, b) _mm256_adds_epi16((a), (b))
/* AVX2 has no masked min: 0x7ffe - (-1) = 0x7fff leaves Inf/NaN lanes as they are */
#define DLF16_SATURATE(t, m) \
	_mm256_min_epi16( \
		(t), _mm256_sub_epi16(_mm256_set1_epi16(0x7ffe), _mm256_cmpgt_epi16((m), _mm256_set1_epi16(0x7f7f))))
#define DLF16_SIGN(t, x, sign) _mm256_or_si256((t), _mm256_and_si256((x), (sign)))
#include "encode/dlf16-vec-tpl.h"

/* Elements in a 4 KiB page. */
#define PAGE 2048

/* 64 elements (128 bytes, two cache lines) of one page: loaded, encoded, streamed to an aligned dst. */
static inline __attribute__((always_inline)) void stream_128(uint16_t *dst, const uint16_t *src, int sat)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)src), b = _mm256_loadu_si256((const __m256i *)(src + 16));
	__m256i c = _mm256_loadu_si256((const __m256i *)(src + 32)),
		d = _mm256_loadu_si256((const __m256i *)(src + 48));

	_mm256_stream_si256((__m256i *)dst, dlf16_vec(a, sat));
	_mm256_stream_si256((__m256i *)(dst + 16), dlf16_vec(b, sat));
	_mm256_stream_si256((__m256i *)(dst + 32), dlf16_vec(c, sat));
	_mm256_stream_si256((__m256i *)(dst + 48), dlf16_vec(d, sat));
}

/*
 * Four pages at once, 128 bytes of each in turn, as glibc's memcpy does
 * beyond its non-temporal threshold: four read streams in flight instead of
 * one, each prefetched 512 bytes ahead (LR_DLF16_PAGES, the avx2-pages
 * kernel). On the Xeon with AVX-512 hidden one stream held the kernel at
 * 0.66-0.80x of memcpy and this order took it to the ceiling; on a Zen 4 VM
 * the same order is 1.4-1.8x slower than one stream (docs/design.md, "The
 * encoder"), so which order a CPU gets is measured, as kernels are.
 */
static inline __attribute__((always_inline)) void stream_4_pages(uint16_t *dst, const uint16_t *src, int sat)
{
	for (size_t j = 0; j < PAGE; j += 64) {
		_mm_prefetch((const char *)(src + j + 256), _MM_HINT_T0);
		_mm_prefetch((const char *)(src + PAGE + j + 256), _MM_HINT_T0);
		_mm_prefetch((const char *)(src + 2 * PAGE + j + 256), _MM_HINT_T0);
		_mm_prefetch((const char *)(src + 3 * PAGE + j + 256), _MM_HINT_T0);
		stream_128(dst + j, src + j, sat);
		stream_128(dst + PAGE + j, src + PAGE + j, sat);
		stream_128(dst + 2 * PAGE + j, src + 2 * PAGE + j, sat);
		stream_128(dst + 3 * PAGE + j, src + 3 * PAGE + j, sat);
	}
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
			if (flags & LR_DLF16_PAGES)
				for (; i + 4 * PAGE <= n; i += 4 * PAGE)
					stream_4_pages(dst + i, src + i, sat);
			for (; i + 64 <= n; i += 64)
				stream_128(dst + i, src + i, sat);
			for (; i + 32 <= n; i += 32) {
				__m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
				__m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 16));

				_mm256_stream_si256((__m256i *)(dst + i), dlf16_vec(a, sat));
				_mm256_stream_si256((__m256i *)(dst + i + 16), dlf16_vec(b, sat));
			}
		}
	}
	for (; i + 32 <= n; i += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 16));

		_mm256_storeu_si256((__m256i *)(dst + i), dlf16_vec(a, sat));
		_mm256_storeu_si256((__m256i *)(dst + i + 16), dlf16_vec(b, sat));
	}
	if (i + 16 <= n) {
		_mm256_storeu_si256((__m256i *)(dst + i),
				    dlf16_vec(_mm256_loadu_si256((const __m256i *)(src + i)), sat));
		i += 16;
	}
	for (; i < n; i++)
		dst[i] = lr_dlf16_encode1(src[i], c);
}

#define DLF16_ENCODE            lr_dlf16_encode_avx2
#define DLF16_ENCODE_ROWS       lr_dlf16_encode_rows_avx2
#define DLF16_ENCODE_PAGES      lr_dlf16_encode_avx2_pages
#define DLF16_ENCODE_ROWS_PAGES lr_dlf16_encode_rows_avx2_pages
#include "encode/dlf16-tpl.h"
