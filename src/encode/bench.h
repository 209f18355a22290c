#ifndef LR_BENCH_H
#define LR_BENCH_H

/*
 * The encoder benchmark: every available kernel against the copy ceiling
 * (the best of memcpy, a plain vector copy and a non-temporal-store copy of
 * the same bytes) on one shape, measured in one process, alternating the
 * order of the variants every repetition (forward, then reversed) so drift
 * hits all of them alike. Outputs are checked bit-identical before any
 * timing counts. See docs/method.md.
 */

#include "base/error.h"
#include "base/parallel.h"
#include <stdint.h>

#include "encode/dlf16.h"
#include "encode/layout.h"

enum lr_bench_kind {
	LR_BENCH_COPY,
	LR_BENCH_ENCODE,
	LR_BENCH_PERMUTED,	/* encode from a permuted (token-major) view */
	LR_BENCH_FILE_COPY,	/* cp of the input .npy file: copy_file_range, as cp does */
	LR_BENCH_FILE_ENCODE,	/* labrun encode of the same file, file to file */
};

/* "copy", "encode", "permuted", "file copy", "file encode" */
const char *lr_bench_kind_name(enum lr_bench_kind kind);

#define LR_BENCH_MAXVAR 16
#define LR_BENCH_MAXREPS 101
#define LR_BENCH_MAXTHREADS LR_PARALLEL_MAX

struct lr_bench_variant {
	enum lr_bench_kind kind;
	char name[48];
	const struct lr_dlf16_kernel *k;	/* encoders, when run here; NULL when read from a stored run */
	char kernel[16];			/* encoders: the kernel's name */
	int copy;				/* copies: 0 memcpy, 1 vector, 2 non-temporal */
	double ms[LR_BENCH_MAXREPS];		/* wall time of each repetition */
	double median_ms;			/* over the timed repetitions */
	double gbps;				/* (bytes read + bytes written) / median */
};

struct lr_bench_opts {
	int rank;
	int64_t shape[LR_VIEW_MAXRANK];	/* [L, 2, H, T, D] */
	int reps;			/* repetitions, the first dropped as warm-up */
	enum lr_dlf16_contract contract;
	uint64_t seed;
	int threads;			/* threads of every variant, copies included (0 or 1: one) */
	const char *dir;		/* where the file variants write; NULL: no file variants */
};

struct lr_bench_result {
	int64_t elements;
	int nvar;
	struct lr_bench_variant var[LR_BENCH_MAXVAR];
	int ceiling;		/* index of the fastest copy */
	int lookup;		/* index of the lookup encoder */
	int best;		/* index of the fastest contiguous encoder */
	int permuted;		/* index of the permuted-view encode (auto kernel) */
	int contiguous;		/* index of the auto kernel's contiguous encode */
	int file_copy;		/* index of cp of the input file, -1 without file variants */
	int file_encode;	/* index of encode file to file */
	char digest[65];	/* sha256 of the encoded output, equal for every encoder */
	int cpu;		/* the CPU the timing thread was pinned to, -1 if not */
	const char *auto_why;	/* why 'auto' is the permuted view's kernel (encode/ktable.h); NULL when read back */
};

/*
 * Pin the calling thread, and the threads it starts, to 'threads' CPUs it may
 * run on: the one it runs on first, then the lowest others. Returns the first
 * CPU, or -1 when it cannot pin.
 */
int lr_bench_pin(int threads);

/*
 * Run the benchmark for one shape. Allocates and touches its buffers, checks
 * parity (LR_EIO naming the kernel on a mismatch: no timing then), pins the
 * thread, and times every variant. The shape's axes 2 and 3 (heads, tokens)
 * are the ones the permuted view swaps. With o->dir, the array is also
 * written there as a .npy file and cp of that file is timed beside labrun
 * encode of it, file to file (the files are removed at the end).
 */
LR_MUST_CHECK int lr_bench_encoder(const struct lr_bench_opts *o, struct lr_bench_result *r);

/*
 * From the repetitions' times in r->var[].ms (and r->elements, r->nvar, each
 * variant's kind and kernel): every median (the first repetition dropped as
 * warm-up), GB/s, and which variant is the ceiling, the best kernel, lookup,
 * the permuted view and its contiguous twin. lr_bench_encoder calls it; so
 * does a report of a stored benchmark run, which has only the times.
 */
void lr_bench_summarise(struct lr_bench_result *r, int reps);

/* Variant i's throughput over its ceiling's: the fastest copy, or for a file variant cp of the file. */
double lr_bench_x_ceiling(const struct lr_bench_result *r, int i);

/* Set v's name, and its kind and kernel from the name (as lr_bench_encoder names its variants). */
void lr_bench_variant_name(struct lr_bench_variant *v, const char *name);

#endif
