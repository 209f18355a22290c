#ifndef LR_OUTPUT_H
#define LR_OUTPUT_H

/*
 * Writing an encoded or decoded array to a file: built as a temporary
 * beside its name, written with large writes from buffers that stay in
 * cache, renamed into place at the end.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

#include "encode/dlf16.h"
#include "encode/layout.h"

/*
 * Create an output file of 'rank'/'shape' holding elements of 'elem' bytes:
 * .npy (C order, descr '<u2' or '<f4') when 'npy' is set, else raw. The
 * file is built as a temporary beside 'path', filled by lr_output_fill(),
 * and appears under its name only at lr_output_commit().
 */
struct lr_output {
	char *path, *tmp;
	int fd;
	size_t len, hlen; /* whole file; header */
	int elem;
};
#define LR_OUTPUT_INIT \
	{ \
		NULL, NULL, -1, 0, 0, 0 \
	}
LR_MUST_CHECK int lr_output_create(struct lr_output *o, const char *path, int npy, int rank, const int64_t *shape,
				   int elem_bytes);

/*
 * Produce the output's data from 'src' (same element count, 16-bit
 * elements, any strides) chunk by chunk: fill(ctx, buf, piece) writes the
 * piece's elements in C order, 'elem' bytes each, into 'buf', which is then
 * written to the file with large writes. 'threads' workers take chunks in
 * turn, each encoding one while another's write is in the kernel. 'buf'
 * is followed by as many bytes of scratch space as the chunk may hold.
 */
typedef int (*lr_fill_fn)(void *ctx, void *buf, const struct lr_view *piece);
LR_MUST_CHECK int lr_output_fill(struct lr_output *o, const struct lr_view *src, lr_fill_fn fill, void *ctx,
				 int threads);
LR_MUST_CHECK int lr_output_commit(struct lr_output *o);
void lr_output_abort(struct lr_output *o);

/* Encode 'src' into the output with kernel 'k' under contract 'c' on 'threads' workers. */
LR_MUST_CHECK int lr_output_encode(struct lr_output *o, const struct lr_view *src, const struct lr_dlf16_kernel *k,
				   enum lr_dlf16_contract c, int threads);

/* Copy the 16-bit elements of 'src' into the output, in C order. */
LR_MUST_CHECK int lr_output_copy(struct lr_output *o, const struct lr_view *src, int threads);

/* Decode the DLF16 codes of 'src' into the output: FP32 when its elements are 4 bytes, else BF16 bits. */
LR_MUST_CHECK int lr_output_decode(struct lr_output *o, const struct lr_view *src, int threads);

#endif
