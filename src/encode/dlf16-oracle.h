#ifndef LR_DLF16_ORACLE_H
#define LR_DLF16_ORACLE_H

/*
 * An oracle for the BF16 -> DLF16 contract written from numeric values
 * (ldexp/frexp on doubles), not from the bit formula the kernels share, so
 * a mistake in that formula cannot hide in both. Used by 'labrun encode
 * --verify' and the unit tests.
 */

#include <stdint.h>

#include "encode/dlf16.h"

/* The value of a BF16 bit pattern as a double (NaN and infinities included). */
double lr_bf16_value(uint16_t b);

/* The DLF16 code for a BF16 pattern under contract 'c', by way of its value. */
uint16_t lr_dlf16_oracle(uint16_t b, enum lr_dlf16_contract c);

/* The value a DLF16 code stands for (NaN for NINF), from the format's definition. */
double lr_dlf16_value(uint16_t d);

/*
 * Run kernel 'k' over all 65,536 BF16 patterns (in one call, then again from
 * an odd element offset, with non-temporal stores allowed) and compare with
 * the oracle. Returns the number of mismatches over both passes (0 when the
 * kernel is exact); *first_bad gets the first mismatching pattern.
 */
uint32_t lr_dlf16_verify(const struct lr_dlf16_kernel *k, enum lr_dlf16_contract c, uint16_t *first_bad);

#endif
