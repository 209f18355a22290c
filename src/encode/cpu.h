#ifndef LR_ENCODE_CPU_H
#define LR_ENCODE_CPU_H

#include <stddef.h>

/*
 * Instruction sets hidden from labrun's dispatch: LABRUN_CPU_HIDE names
 * them, comma-separated ("avx512", "avx2"). A kernel that needs a hidden
 * one is not picked by 'auto' and is refused by --kernel, as on a CPU
 * without it, so the other paths can be tested and measured on a CPU that
 * has everything (docs/labrun.md).
 */
int lr_cpu_hidden(const char *isa);

/*
 * The SIMD features of this CPU labrun's kernels and ceilings care about,
 * as "sse2 ssse3 sse4.2 avx avx2 fma bmi2 avx512f avx512bw avx512vl", and
 * then "; hidden: ..." for those LABRUN_CPU_HIDE hides; into buf[size].
 */
void lr_cpu_features(char *buf, size_t size);

/*
 * The GLIBC_TUNABLES value that masks AVX-512 from glibc's own string
 * functions (its memcpy picks EVEX variants where AVX-512VL is usable), so
 * a copy ceiling judged for an AVX2-only CPU uses what such a CPU would:
 * 'current' (may be NULL) with the mask added, into buf[size]; 0 when
 * 'current' already masks it, 1 when buf is the new value.
 */
int lr_cpu_glibc_mask(const char *current, char *buf, size_t size);

#endif
