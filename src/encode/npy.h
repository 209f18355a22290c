#ifndef LR_NPY_H
#define LR_NPY_H

/*
 * NumPy .npy files of 16-bit elements (versions 1.0, 2.0 and 3.0), and raw
 * files of a given shape. Files are mapped, never read whole: a view points
 * into the mapping. Debian packages no C library for .npy, so this small
 * strict reader is ours; every malformed header is an error, never a crash.
 */

#include "base/error.h"
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "encode/layout.h"

enum lr_npy_kind {
	LR_NPY_U16,  /* '<u2': 16-bit patterns (BF16 or DLF16 bits) */
	LR_NPY_BF16, /* '<V2', '|V2' or 'bfloat16' as ml_dtypes writes them */
	LR_NPY_F32,  /* '<f4' (written by decode --to f32) */
};

struct lr_npy_header {
	int major, minor;
	enum lr_npy_kind kind;
	int fortran;
	int rank;
	int64_t shape[LR_VIEW_MAXRANK];
	size_t data_offset; /* where the elements start */
};

/*
 * Parse the header at the start of 'buf' (the whole file, 'len' bytes;
 * 'path' names it in messages). Checks the magic, version, dict syntax,
 * dtype (16-bit little-endian only), shape, and that the file holds exactly
 * the data the shape says.
 */
LR_MUST_CHECK int lr_npy_parse(struct lr_npy_header *h, const void *buf, size_t len, const char *path);

/* An input file mapped read-only. */
struct lr_mapped {
	void *addr;
	size_t len;
};

/* Map 'path' read-only (an empty file maps to NULL, len 0). */
LR_MUST_CHECK int lr_map_file(struct lr_mapped *m, const char *path);
void lr_unmap(struct lr_mapped *m);

/*
 * Open an input: a .npy file (by its magic) or, when 'shape_text' is given,
 * a raw file of little-endian 16-bit elements of that shape ("28,2,8,8192,128").
 * *v describes the elements (Fortran-ordered .npy files become strided views).
 */
LR_MUST_CHECK int lr_input_open(struct lr_mapped *m, struct lr_view *v, const char *path, const char *shape_text,
				enum lr_npy_kind *kind);

/* Parse "28,2,8,8192,128" into a shape; LR_EINVAL with a message otherwise. */
LR_MUST_CHECK int lr_shape_parse(int64_t *shape, int *rank, const char *text, const char *what);

#endif
