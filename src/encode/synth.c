#include "config.h"

#include "encode/synth.h"

/* splitmix64: small, fast, and the same everywhere for a seed. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void lr_bf16_synthetic(uint16_t *src, int64_t n, uint64_t seed, int specials)
{
	static const uint16_t special[] = { 0x0000, 0x8000, 0x0001, 0x8080, 0x3000, 0x3001,
					     0x5000, 0xd000, 0x7f80, 0xff80, 0x7fc0, 0x7f7f };
	uint64_t s = seed;
	int64_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = next(&s);
		unsigned sign = (unsigned)(r >> 63) << 15, frac = (unsigned)(r >> 40) & 0x7f;
		unsigned pick = (unsigned)(r & 0x3ff), exp;

		if (pick == 0 && specials) { /* about 1 in 1024: a special pattern */
			src[i] = special[(r >> 10) % (sizeof special / sizeof special[0])];
			continue;
		}
		/* |x| mostly in [2^-8, 2^2), outliers up to 2^12 */
		exp = pick < 16 ? 127 + 2 + (unsigned)((r >> 20) % 10) : 127 - 8 + (unsigned)((r >> 20) % 10);
		src[i] = (uint16_t)(sign | exp << 7 | frac);
	}
}
