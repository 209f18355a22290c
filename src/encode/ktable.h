#ifndef LR_ENCODE_KTABLE_H
#define LR_ENCODE_KTABLE_H

/*
 * Choosing a kernel: by name, or 'auto', by measurement: 'labrun bench encoder' times
 * every kernel on each shape it runs and writes the fastest per size to a
 * table for this CPU (its model name and the kernels it can run, so a
 * LABRUN_CPU_HIDE run has a table of its own). 'auto' for an array of B
 * bytes takes the entry whose size is nearest B (by ratio); with no size,
 * the largest entry; with no entry for this CPU, the static order avx512,
 * avx2, lookup, scalar (lookup is 1.7-1.9x scalar on every seed shape).
 *
 * The table is a text file, one line an entry: "KEY<TAB>BYTES<TAB>KERNEL"
 * (lines of other keys are other CPUs', kept). It lives in
 * $LABRUN_KERNEL_TABLE, else $XDG_CACHE_HOME/labrun/kernels, else
 * ~/.cache/labrun/kernels. A line that does not parse, or names a kernel
 * this build cannot run, is ignored: the table is a cache, never an input
 * that can make labrun fail.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "encode/dlf16.h"

/*
 * Find a kernel by name for an input of 'bytes' (0: not known); "auto"
 * gives the one measured fastest on this CPU at the nearest size
 * (encode/ktable.h). A kernel that is unknown, or that this build or CPU
 * lacks, is refused with LR_EINVAL and a message saying which.
 */
LR_MUST_CHECK int lr_dlf16_kernel_for(const struct lr_dlf16_kernel **out, const char *name, uint64_t bytes);
/* The same with the size not known: "auto" as measured at the largest size. */
LR_MUST_CHECK int lr_dlf16_kernel_find(const struct lr_dlf16_kernel **out, const char *name);

/* The kernel "auto" picks when the size is not known. */
const struct lr_dlf16_kernel *lr_dlf16_auto(void);

/* Where the table is (static storage); NULL when no directory is known. */
const char *lr_ktable_path(void);

/*
 * The kernel 'auto' picks for 'bytes' of input (0: unknown), and in *why
 * (when not NULL) a static sentence saying on what ground.
 */
const struct lr_dlf16_kernel *lr_ktable_pick(uint64_t bytes, const char **why);

/* One measured size: its input bytes and the fastest kernel there. */
struct lr_ktable_entry {
	uint64_t bytes;
	const struct lr_dlf16_kernel *k;
};

/*
 * Put the n entries for this CPU, replacing its entries of the same sizes
 * (other sizes and other CPUs' lines kept),
 * written to a temporary file and renamed into place. LR_EIO naming the
 * file when it cannot be written.
 */
LR_MUST_CHECK int lr_ktable_write(const struct lr_ktable_entry *e, size_t n);

#endif
