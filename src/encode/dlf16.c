#include "config.h"
#include "base/system.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <pthread.h>

#include "base/error.h"
#include "encode/cpu.h"
#include "encode/dlf16.h"

static const char *const contract_names[] = { [LR_DLF16_SATURATE] = "saturate", [LR_DLF16_NINF] = "ninf" };
const struct lr_enum_names lr_dlf16_contracts = LR_ENUM_NAMES("contract", contract_names);

const char *lr_dlf16_contract_name(enum lr_dlf16_contract c)
{
	return lr_enum_name(&lr_dlf16_contracts, (int)c);
}

/* ---- scalar: the reference, one element at a time ------------------------- */

static void encode_scalar(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	size_t i;

	(void)flags;
	for (i = 0; i < n; i++)
		dst[i] = lr_dlf16_encode1(src[i], c);
}

/* ---- lookup: a 65,536-entry table per contract, built from the reference ---
 * This is the baseline the research team measured (NumPy fancy indexing
 * into a table); it is kept as the thing to beat, not as a fast path. */

static uint16_t lookup_table[2][65536];
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

static void lookup_build(void)
{
	uint32_t b;

	for (b = 0; b < 65536; b++) {
		lookup_table[LR_DLF16_SATURATE][b] = lr_dlf16_encode1((uint16_t)b, LR_DLF16_SATURATE);
		lookup_table[LR_DLF16_NINF][b] = lr_dlf16_encode1((uint16_t)b, LR_DLF16_NINF);
	}
}

static void encode_lookup(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	const uint16_t *t;
	size_t i;

	(void)flags;
	pthread_once(&lookup_once, lookup_build);
	t = lookup_table[c];
	for (i = 0; i < n; i++)
		dst[i] = t[src[i]];
}

/* ---- the kernel table ------------------------------------------------------ */

static int always(void)
{
	return 1;
}

static int has_avx2(void)
{
#if defined(HAVE_AVX2_KERNEL)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && !lr_cpu_hidden("avx2");
#else
	return 0;
#endif
}

static int has_avx512(void)
{
#if defined(HAVE_AVX512_KERNEL)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && !lr_cpu_hidden("avx512");
#else
	return 0;
#endif
}

static const struct lr_dlf16_kernel k_lookup = {
	.name = "lookup",
	.what = "65,536-entry table lookup (the baseline)",
	.supported = always,
	.encode = encode_lookup,
};
static const struct lr_dlf16_kernel k_scalar = {
	.name = "scalar",
	.what = "bit arithmetic, one element at a time (the reference)",
	.supported = always,
	.encode = encode_scalar,
};
#if defined(HAVE_AVX2_KERNEL)
static const struct lr_dlf16_kernel k_avx2 = {
	.name = "avx2",
	.what = "bit arithmetic, 16 elements per AVX2 instruction",
	.supported = has_avx2,
	.encode = lr_dlf16_encode_avx2,
	.encode_rows = lr_dlf16_encode_rows_avx2,
};
static const struct lr_dlf16_kernel k_avx2_pages = {
	.name = "avx2-pages",
	.what = "avx2, streaming four pages at once (the read order some CPUs need)",
	.supported = has_avx2,
	.encode = lr_dlf16_encode_avx2_pages,
	.encode_rows = lr_dlf16_encode_rows_avx2_pages,
	.stream_flags = LR_DLF16_PAGES,
};
#else
static const struct lr_dlf16_kernel k_avx2 = {
	.name = "avx2",
	.what = "not built: the compiler lacks -mavx2",
	.supported = has_avx2,
	.encode = NULL,
};
static const struct lr_dlf16_kernel k_avx2_pages = {
	.name = "avx2-pages",
	.what = "not built: the compiler lacks -mavx2",
	.supported = has_avx2,
	.encode = NULL,
};
#endif
#if defined(HAVE_AVX512_KERNEL)
static const struct lr_dlf16_kernel k_avx512 = {
	.name = "avx512",
	.what = "bit arithmetic, 32 elements per AVX-512BW instruction",
	.supported = has_avx512,
	.encode = lr_dlf16_encode_avx512,
	.encode_rows = lr_dlf16_encode_rows_avx512,
};
static const struct lr_dlf16_kernel k_avx512_pages = {
	.name = "avx512-pages",
	.what = "avx512, streaming four pages at once (the read order some CPUs need)",
	.supported = has_avx512,
	.encode = lr_dlf16_encode_avx512_pages,
	.encode_rows = lr_dlf16_encode_rows_avx512_pages,
	.stream_flags = LR_DLF16_PAGES,
};
#else
static const struct lr_dlf16_kernel k_avx512 = {
	.name = "avx512",
	.what = "not built: the compiler lacks -mavx512bw",
	.supported = has_avx512,
	.encode = NULL,
};
static const struct lr_dlf16_kernel k_avx512_pages = {
	.name = "avx512-pages",
	.what = "not built: the compiler lacks -mavx512bw",
	.supported = has_avx512,
	.encode = NULL,
};
#endif

const struct lr_dlf16_kernel *const lr_dlf16_kernels[] = { &k_lookup,     &k_scalar,       &k_avx2, &k_avx512,
							   &k_avx2_pages, &k_avx512_pages, NULL };

const char *lr_dlf16_unavailable(const struct lr_dlf16_kernel *k)
{
	if (!k->encode)
		return k->what;
	if (!k->supported()) {
		char isa[16]; /* "avx2-pages" runs on avx2 */

		snprintf(isa, sizeof isa, "%.*s", (int)strcspn(k->name, "-"), k->name);
		return lr_cpu_hidden(isa) ? "LABRUN_CPU_HIDE hides its instructions"
					  : "this CPU lacks the instructions";
	}
	return NULL;
}

void lr_dlf16_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_sfence();
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * Decoding, eight codes at a time with SSE2 (x86-64's baseline) where the
 * compiler has it: with m = |d|, the BF16 bits are sign | ((m >> 2) + 0x3000),
 * zero for m == 0 and the quiet NaN 0x7FC0 for NINF; FP32 adds m's two low
 * bits below them. Random codes made lr_dlf16_decode1's branches mispredict
 * (3.6 ns an element); the unit tests compare both loops with it on all
 * 65,536 codes.
 */
#if defined(__SSE2__)
static inline __m128i decode8_bf16(__m128i x)
{
	const __m128i sign = _mm_set1_epi16((short)0x8000);
	__m128i m = _mm_andnot_si128(sign, x);
	__m128i r = _mm_add_epi16(_mm_srli_epi16(m, 2), _mm_set1_epi16(0x3000));
	__m128i nan = _mm_cmpeq_epi16(m, _mm_set1_epi16(0x7fff));

	r = _mm_andnot_si128(_mm_cmpeq_epi16(m, _mm_setzero_si128()), r);
	r = _mm_or_si128(r, _mm_and_si128(x, sign));
	return _mm_or_si128(_mm_andnot_si128(nan, r), _mm_and_si128(nan, _mm_set1_epi16(0x7fc0)));
}
#endif

void lr_dlf16_decode_f32(uint32_t *dst, const uint16_t *src, size_t n)
{
	size_t i = 0;

#if defined(__SSE2__)
	for (; i + 8 <= n; i += 8) {
		__m128i x = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i hi = decode8_bf16(x);
		/* m's low two bits go to FP32 bits 14-15: not for zero (none) or NINF */
		__m128i keep = _mm_andnot_si128(
			_mm_cmpeq_epi16(_mm_andnot_si128(_mm_set1_epi16((short)0x8000), x), _mm_set1_epi16(0x7fff)),
			_mm_set1_epi16(3));
		__m128i lo = _mm_slli_epi16(_mm_and_si128(x, keep), 14);

		_mm_storeu_si128((__m128i *)(dst + i), _mm_unpacklo_epi16(lo, hi));
		_mm_storeu_si128((__m128i *)(dst + i + 4), _mm_unpackhi_epi16(lo, hi));
	}
#endif
	for (; i < n; i++)
		dst[i] = lr_dlf16_decode1(src[i]);
}

void lr_dlf16_decode_bf16(uint16_t *dst, const uint16_t *src, size_t n)
{
	size_t i = 0;

#if defined(__SSE2__)
	for (; i + 8 <= n; i += 8)
		_mm_storeu_si128((__m128i *)(dst + i), decode8_bf16(_mm_loadu_si128((const __m128i *)(src + i))));
#endif
	for (; i < n; i++)
		dst[i] = (uint16_t)(lr_dlf16_decode1(src[i]) >> 16);
}
