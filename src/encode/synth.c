#include "config.h"

#include <sched.h>

#include "base/parallel.h"
#include "encode/cpu.h"
#include "encode/synth.h"

#define GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64: small, fast, and the same everywhere for a seed. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += GAMMA);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#if defined(HAVE_AVX512_KERNEL)
/* Checked here, in code built for any x86-64: synth-avx512.c may use AVX-512 anywhere. */
static int synth8_supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && !lr_cpu_hidden("avx512");
}
#endif

/* Element i of the sequence of 'seed', from splitmix64's state after i + 1 steps. */
static uint16_t element(uint64_t r, int specials)
{
	static const uint16_t special[] = { 0x0000, 0x8000, 0x0001, 0x8080, 0x3000, 0x3001,
					    0x5000, 0xd000, 0x7f80, 0xff80, 0x7fc0, 0x7f7f };
	unsigned sign = (unsigned)(r >> 63) << 15, frac = (unsigned)(r >> 40) & 0x7f;
	unsigned pick = (unsigned)(r & 0x3ff), exp;

	if (pick == 0 && specials) /* about 1 in 1024: a special pattern */
		return special[(r >> 10) % (sizeof special / sizeof special[0])];
	/* |x| mostly in [2^-8, 2^2), outliers up to 2^12 */
	exp = pick < 16 ? 127 + 2 + (unsigned)((r >> 20) % 10) : 127 - 8 + (unsigned)((r >> 20) % 10);
	return (uint16_t)(sign | exp << 7 | frac);
}

/* The scalar loop: elements [first, first + n); splitmix64's state after i steps is seed + i * GAMMA. */
static void fill_scalar(uint16_t *src, int64_t first, int64_t n, uint64_t seed, int specials)
{
	uint64_t s = seed + (uint64_t)first * GAMMA;
	int64_t i;

	for (i = first; i < first + n; i++)
		src[i] = element(next(&s), specials);
}

/* Elements [first, first + n): eight at a time with AVX-512 where the CPU has it, the same values. */
static void fill(uint16_t *src, int64_t first, int64_t n, uint64_t seed, int specials, int vector)
{
#if defined(HAVE_AVX512_KERNEL)
	uint8_t marks[512];
	int64_t done = 0, k, n8;
	int j;

	while (vector && n - done >= 8) {
		n8 = (n - done) / 8 < 512 ? (n - done) / 8 : 512;
		lr_bf16_synth8(src, first + done, n8, seed, marks);
		for (k = 0; specials && k < n8; k++)
			for (j = 0; marks[k] && j < 8; j++)
				if (marks[k] >> j & 1) { /* a special pattern: the scalar element, from its state */
					int64_t i = first + done + 8 * k + j;
					uint64_t s = seed + (uint64_t)i * GAMMA;

					src[i] = element(next(&s), 1);
				}
		done += 8 * n8;
	}
	first += done;
	n -= done;
#else
	(void)vector;
#endif
	fill_scalar(src, first, n, seed, specials);
}

struct part {
	uint16_t *src;
	int64_t first, n;
	uint64_t seed;
	int specials, vector;
};

static void *fill_part(void *arg)
{
	struct part *p = arg;

	fill(p->src, p->first, p->n, p->seed, p->specials, p->vector);
	return NULL;
}

#define MAX_THREADS 16
#define MIN_PART    (1 << 20) /* elements: below this a thread costs more than it saves */

void lr_bf16_synthetic(uint16_t *src, int64_t n, uint64_t seed, int specials)
{
	struct part parts[MAX_THREADS];
	cpu_set_t cpus;
	int64_t first = 0;
	int threads = 1, i, vector = 0;

	/* the same values whatever the split: each part starts where the sequence is at its first element */
	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
		threads = CPU_COUNT(&cpus);
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads > n / MIN_PART)
		threads = n / MIN_PART > 1 ? (int)(n / MIN_PART) : 1;
#if defined(HAVE_AVX512_KERNEL)
	vector = synth8_supported();
#endif
	for (i = 0; i < threads; i++) {
		parts[i] = (struct part){ src, first, n / threads + (i < n % threads), seed, specials, vector };
		first += parts[i].n;
	}
	lr_parallel(parts, sizeof parts[0], threads, fill_part);
}
