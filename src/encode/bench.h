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
	LR_BENCH_PERMUTED,    /* encode from a permuted (token-major) view */
	LR_BENCH_FILE_COPY,   /* cp of the input .npy file: copy_file_range, as cp does */
	LR_BENCH_FILE_ENCODE, /* labrun encode of the same file, file to file */
};

/* "copy", "encode", "permuted", "file copy", "file encode" */
const char *lr_bench_kind_name(enum lr_bench_kind kind);

#define LR_BENCH_MAXVAR     16
#define LR_BENCH_MAXREPS    101
#define LR_BENCH_MAXTHREADS LR_PARALLEL_MAX

struct lr_bench_variant {
	enum lr_bench_kind kind;
	char name[48];
	const struct lr_dlf16_kernel *k; /* encoders, when run here; NULL when read from a stored run */
	char kernel[16];                 /* encoders: the kernel's name */
	int copy;                        /* copies: 0 memcpy, 1 vector, 2 non-temporal */
	double ms[LR_BENCH_MAXREPS];     /* wall time of each repetition */
};

struct lr_bench_opts {
	int rank;
	int64_t shape[LR_VIEW_MAXRANK]; /* [L, 2, H, T, D] */
	int reps;                       /* repetitions, the first dropped as warm-up */
	enum lr_dlf16_contract contract;
	uint64_t seed;
	int threads;     /* threads of every variant, copies included (0 or 1: one) */
	const char *dir; /* where the file variants write; NULL: no file variants */
};

/*
 * What one shape measured: every variant's time at every repetition, and the
 * output's digest. What the times say (medians, the ceiling, the best kernel)
 * is read from the benchmark's model (experiment/encoderbench.h), where the
 * run stores them.
 */
struct lr_bench_result {
	int64_t elements;
	int nvar;
	struct lr_bench_variant var[LR_BENCH_MAXVAR];
	char digest[65]; /* sha256 of the encoded output, equal for every encoder */
	int cpu;         /* the CPU the timing thread was pinned to, -1 if not */
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
 * thread, and times every variant (r->var[].ms). The shape's axes 2 and 3 (heads, tokens)
 * are the ones the permuted view swaps. With o->dir, the array is also
 * written there as a .npy file and cp of that file is timed beside labrun
 * encode of it, file to file (the files are removed at the end).
 */
LR_MUST_CHECK int lr_bench_encoder(const struct lr_bench_opts *o, struct lr_bench_result *r);

/*
 * What the variant named 'name' is, as lr_bench_encoder names them ("copy:
 * memcpy", "encode: avx2", "encode: avx2, permuted view", "file: cp", "file:
 * encode avx2"): its kind, and its kernel ("" for a copy) in kernel[size].
 * -1 for a name the benchmark does not give.
 */
int lr_bench_variant_parse(const char *name, enum lr_bench_kind *kind, char *kernel, size_t size);

#endif
