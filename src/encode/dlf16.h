#ifndef LR_DLF16_H
#define LR_DLF16_H

/*
 * BF16 -> DLFloat16 encoding under a contract, and DLF16 -> FP32/BF16
 * decoding for readback checks. The contract and test vectors are in
 * docs/encoding.md; lr_dlf16_encode1() below is that contract in
 * code, and every kernel matches it bit for bit.
 *
 * Kernels encode a contiguous run of elements. They never allocate and never
 * fail; they are chosen by name or once at start-up from CPU detection.
 */

#include "base/enumname.h"
#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

enum lr_dlf16_contract {
	LR_DLF16_SATURATE = 0, /* finite overflow -> largest finite (the serving stack's default) */
	LR_DLF16_NINF = 1,     /* finite overflow -> NINF (IBM hardware default) */
};

/* "saturate"/"ninf": one table, read both ways (base/enumname.h). */
extern const struct lr_enum_names lr_dlf16_contracts;
const char *lr_dlf16_contract_name(enum lr_dlf16_contract c);

/* The reference: one BF16 bit pattern to its DLF16 code. */
static inline uint16_t lr_dlf16_encode1(uint16_t b, enum lr_dlf16_contract c)
{
	uint16_t s = b & 0x8000, m = b & 0x7fff;

	if (m <= 0x3000) /* zero, subnormal, or at/below 2^-31: signed zero */
		return s;
	if (m < 0x5000) /* in range: exact, rebias the exponent by -96 */
		return (uint16_t)(s | ((m - 0x3000) << 2));
	if (m < 0x7f80) /* finite overflow, >= 2^33 */
		return (uint16_t)(s | (c == LR_DLF16_SATURATE ? 0x7ffe : 0x7fff));
	return (uint16_t)(s | 0x7fff); /* infinity and NaN: NINF */
}

/* One DLF16 code to FP32 bits: exact; NINF becomes the quiet NaN 0x7FC00000. */
static inline uint32_t lr_dlf16_decode1(uint16_t d)
{
	uint32_t s = (uint32_t)(d & 0x8000) << 16, m = d & 0x7fff;

	if (m == 0)
		return s;
	if (m == 0x7fff)
		return 0x7fc00000u;
	return s | (((m >> 9) + 96) << 23) | ((m & 0x1ff) << 14);
}

/* Kernel flags. */
enum {
	/* The output is large and written once: prefer non-temporal stores.
	 * The caller issues lr_dlf16_fence() after the last call. */
	LR_DLF16_STREAM = 1,
	/* With LR_DLF16_STREAM: read four 4 KiB pages at once, 128 bytes of each
	 * in turn, rather than one sequential stream (the "-pages" kernels). */
	LR_DLF16_PAGES = 2,
};

typedef void (*lr_dlf16_encode_fn)(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c,
				   unsigned flags);

struct lr_dlf16_kernel {
	const char *name;       /* "lookup", "scalar", "avx2", "avx512", "avx2-pages", "avx512-pages" */
	const char *what;       /* one line for --help and bench output */
	int (*supported)(void); /* built and runnable on this CPU */
	lr_dlf16_encode_fn encode;
	/*
	 * Optional: 'rows' rows of n contiguous elements each, the rows
	 * 'sstride' and 'dstride' elements apart. A permuted view is many
	 * short rows; in cache, a call per row costs more than the row.
	 */
	void (*encode_rows)(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows, size_t n,
			    enum lr_dlf16_contract c, unsigned flags);
	/* The order it reads in when it streams: LR_DLF16_PAGES (the -pages kernels) or 0, one stream. */
	unsigned stream_flags;
};

/* All kernels, in a fixed order (lookup first: the baseline), NULL-terminated. */
extern const struct lr_dlf16_kernel *const lr_dlf16_kernels[];
/* Every name --kernel and a definition's kernel= take, for hints. */
#define LR_DLF16_KERNEL_NAMES "lookup, scalar, avx2, avx512, avx2-pages, avx512-pages, auto"

/* Why kernel k cannot run here (not built, hidden by LABRUN_CPU_HIDE, not on this CPU), or NULL when it can. */
const char *lr_dlf16_unavailable(const struct lr_dlf16_kernel *k);

/* Order non-temporal stores before later loads (sfence); cheap when none were issued. */
void lr_dlf16_fence(void);

/* Decode n DLF16 codes to FP32 bits / BF16 bits (truncating the FP32). */
void lr_dlf16_decode_f32(uint32_t *dst, const uint16_t *src, size_t n);
void lr_dlf16_decode_bf16(uint16_t *dst, const uint16_t *src, size_t n);

/* Kernels of their own files (declared here so the table can name them). */
void lr_dlf16_encode_avx2(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_rows_avx2(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows,
			       size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_rows_avx512(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows,
				 size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_avx512(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_avx2_pages(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_rows_avx2_pages(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows,
				     size_t n, enum lr_dlf16_contract c, unsigned flags);
void lr_dlf16_encode_avx512_pages(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c,
				  unsigned flags);
void lr_dlf16_encode_rows_avx512_pages(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride,
				       size_t rows, size_t n, enum lr_dlf16_contract c, unsigned flags);

#endif
