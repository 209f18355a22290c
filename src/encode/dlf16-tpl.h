/*
 * The two entry points every SIMD kernel file has, written once around that
 * file's own encode_run (a template, after zlib-ng's *_tpl.h): the file keeps
 * its instructions and its compiler flags, and is compiled as one unit with
 * this. The contract is tested once per call, here, so that encode_run is
 * inlined twice, with saturation and without, and never tests it per vector.
 *
 * A kernel file defines, then includes this header last:
 *
 *	static inline void encode_run(uint16_t *dst, const uint16_t *src, size_t n,
 *				      enum lr_dlf16_contract c, unsigned flags, int sat);
 *	#define DLF16_ENCODE lr_dlf16_encode_avx2		(dlf16.h declares both)
 *	#define DLF16_ENCODE_ROWS lr_dlf16_encode_rows_avx2
 *	#define DLF16_ENCODE_PAGES lr_dlf16_encode_avx2_pages	(the same, streaming
 *	#define DLF16_ENCODE_ROWS_PAGES lr_dlf16_encode_rows_avx2_pages  four pages at once)
 *
 * No include guard: each kernel file includes it once, with its own names.
 */
#if !defined(DLF16_ENCODE) || !defined(DLF16_ENCODE_ROWS) || !defined(DLF16_ENCODE_PAGES) || \
	!defined(DLF16_ENCODE_ROWS_PAGES)
#error "a kernel file defines DLF16_ENCODE and DLF16_ENCODE_ROWS before it includes encode/dlf16-tpl.h"
#endif

void DLF16_ENCODE(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	if (c == LR_DLF16_SATURATE)
		encode_run(dst, src, n, c, flags, 1);
	else
		encode_run(dst, src, n, c, flags, 0);
}

void DLF16_ENCODE_ROWS(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows, size_t n,
		       enum lr_dlf16_contract c, unsigned flags)
{
	size_t r;

	if (c == LR_DLF16_SATURATE)
		for (r = 0; r < rows; r++)
			encode_run(dst + (int64_t)r * dstride, src + (int64_t)r * sstride, n, c, flags, 1);
	else
		for (r = 0; r < rows; r++)
			encode_run(dst + (int64_t)r * dstride, src + (int64_t)r * sstride, n, c, flags, 0);
}

/* The -pages kernels: when asked to stream, they stream four pages at once (LR_DLF16_PAGES). */
static inline unsigned pages_flags(unsigned flags)
{
	return flags & LR_DLF16_STREAM ? flags | LR_DLF16_PAGES : flags;
}

void DLF16_ENCODE_PAGES(uint16_t *dst, const uint16_t *src, size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	DLF16_ENCODE(dst, src, n, c, pages_flags(flags));
}

void DLF16_ENCODE_ROWS_PAGES(uint16_t *dst, int64_t dstride, const uint16_t *src, int64_t sstride, size_t rows,
			     size_t n, enum lr_dlf16_contract c, unsigned flags)
{
	DLF16_ENCODE_ROWS(dst, dstride, src, sstride, rows, n, c, pages_flags(flags));
}
