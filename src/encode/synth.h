#ifndef LR_SYNTH_H
#define LR_SYNTH_H

/*
 * Synthetic BF16 data for sources, benchmarks and tests (splitmix64: the same
 * everywhere for a seed, and the same however many threads fill it).
 */

#include <stdint.h>

/*
 * Fill 'src' with n synthetic BF16 values, deterministic from 'seed': mostly
 * small normals as KV caches hold, some outliers, and with 'specials' rare
 * special patterns (signed zeros, subnormals, overflows, infinities, NaNs)
 * so every branch of the contract is exercised.
 */
void lr_bf16_synthetic(uint16_t *src, int64_t n, uint64_t seed, int specials);

/* For synth.c: the AVX-512 loop of synth-avx512.c (built only with the AVX-512 kernels). */
void lr_bf16_synth8(uint16_t *src, int64_t first, int64_t n8, uint64_t seed, uint8_t *specials);

#endif
