/*
 * The arithmetic of every SIMD kernel, written once over the instructions of
 * the file that includes it (a template, as dlf16-tpl.h is). With m = |b|
 * (the low 15 bits), the contract is
 *   t = sat_sub(m, 0x3000)                       at most 0x4fff
 *   t = sat_add_signed(t, t), twice              4t in range; 0x7fff (NINF) on
 *                                                any overflow, Inf and NaN too
 *   saturate only: t = min(t, 0x7ffe) where m <= 0x7f7f (finite lanes)
 *   r = t | sign
 * which the unit tests check against an oracle on all 65,536 inputs.
 *
 * A kernel file defines, then includes this header before its encode_run:
 *
 *	DLF16_VEC                   the vector type (__m256i)
 *	DLF16_SET1(v)               v in every 16-bit lane
 *	DLF16_ANDNOT(a, b)          ~a & b
 *	DLF16_SUBS_U16(a, b)        unsigned saturating a - b, by lane
 *	DLF16_ADDS_I16(a, b)        signed saturating a + b, by lane
 *	DLF16_SATURATE(t, m)        t, finite lanes (m <= 0x7f7f) lowered to at most 0x7ffe
 *	DLF16_SIGN(t, x, sign)      t | (x & sign)
 *
 * and gets dlf16_vec(x, sat), inlined with sat a constant.
 */
#if !defined(DLF16_VEC) || !defined(DLF16_SATURATE) || !defined(DLF16_SIGN)
#error "a kernel file defines its instructions (DLF16_VEC, ...) before it includes encode/dlf16-vec-tpl.h"
#endif

static inline __attribute__((always_inline)) DLF16_VEC dlf16_vec(DLF16_VEC x, int sat)
{
	const DLF16_VEC sign = DLF16_SET1(0x8000);
	DLF16_VEC m = DLF16_ANDNOT(sign, x);
	DLF16_VEC t = DLF16_SUBS_U16(m, DLF16_SET1(0x3000));

	t = DLF16_ADDS_I16(t, t);
	t = DLF16_ADDS_I16(t, t);
	if (sat)
		t = DLF16_SATURATE(t, m);
	return DLF16_SIGN(t, x, sign);
}
