#ifndef LR_ENCODERBENCH_H
#define LR_ENCODERBENCH_H

/*
 * 'labrun bench encoder' as a benchmark run (benchjob.h): every repetition of
 * every variant on every shape as a sample (subject the shape "L,2,H,T,D",
 * the variant as encode/bench.h names it, seconds; the warm-up included, so a
 * report recomputes each median from the raw times), each shape's output
 * sha256 as the run's digest 'encoder_output [L,2,H,T,D]', and the settings
 * and the pinned CPU as binding. lr_bench_shape_read says which variant of a
 * shape plays which part, for the tables and for the kernel table 'auto'
 * takes from.
 */

#include <stdint.h>

#include "encode/bench.h"
#include "encode/ktable.h"
#include "experiment/benchjob.h"

struct lr_encoderbench_opts {
	struct lr_bench_opts base;         /* what every shape shares */
	const struct lr_bench_opts *shape; /* each shape, checked */
	int nshapes;
	struct lr_ktable_entry *fastest; /* out, nshapes: each shape's bytes in and fastest kernel (or NULL) */
};

extern const struct lr_bench_ops lr_encoderbench_ops;

/* One shape of an encoder benchmark, as its model has it: its size, and which variant plays which part (or NULL). */
struct lr_bench_shape {
	int64_t dims[5], elements;
	const struct lr_bench_series *ceiling;     /* the fastest copy */
	const struct lr_bench_series *best;        /* the fastest contiguous encoder */
	const struct lr_bench_series *lookup;      /* the lookup kernel, contiguous */
	const struct lr_bench_series *permuted;    /* the auto kernel through the permuted view */
	const struct lr_bench_series *contiguous;  /* that kernel, contiguous */
	const struct lr_bench_series *file_copy;   /* cp of the array's file */
	const struct lr_bench_series *file_encode; /* labrun encode of it, file to file */
};

/*
 * Shape 'subject' of b. LR_EINVAL when the subject is not a shape of at most
 * 2^40 elements, or a variant's name is none the benchmark gives.
 */
LR_MUST_CHECK int lr_bench_shape_read(struct lr_bench_shape *sh, const struct lr_bench *b, const char *subject);

/* The output sha256 of shape 'subject' that 'run' holds, or NULL (borrowed from the run). */
const char *lr_bench_shape_digest(const struct lr_run *run, const char *subject);

#endif
