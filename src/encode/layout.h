#ifndef LR_LAYOUT_H
#define LR_LAYOUT_H

/*
 * Strided N-D views of 16-bit elements, and encoding from one view into
 * another in a single pass. A permuted view (a token-major export
 * [L,2,T,H,D] seen as [L,2,H,T,D]) is encoded straight into the destination
 * layout, with no transposed copy in between.
 */

#include "base/error.h"
#include <stdint.h>

#include "encode/dlf16.h"

#define LR_VIEW_MAXRANK 8

struct lr_view {
	void *data; /* element [0, ..., 0]; not owned */
	int rank;   /* 0..LR_VIEW_MAXRANK; rank 0 is one element */
	int64_t shape[LR_VIEW_MAXRANK];
	int64_t stride[LR_VIEW_MAXRANK]; /* in elements; negative allowed */
};

/* A C-order (row-major) view of 'data'. LR_EINVAL for a bad rank or shape. */
LR_MUST_CHECK int lr_view_init(struct lr_view *v, void *data, int rank, const int64_t *shape);

/* Number of elements (the product of the shape). */
int64_t lr_view_count(const struct lr_view *v);

/*
 * out = in with axes permuted: out.shape[i] = in.shape[axes[i]] (NumPy's
 * transpose). LR_EINVAL unless 'axes' is a permutation of 0..rank-1.
 */
LR_MUST_CHECK int lr_view_permute(struct lr_view *out, const struct lr_view *in, const int *axes);

/* Parse "2,0,1" into axes for a view of 'rank'; LR_EINVAL with a message otherwise. */
LR_MUST_CHECK int lr_axes_parse(int *axes, int rank, const char *text);

/* The lowest and one-past-highest byte addresses a view touches (lo == hi when empty). */
void lr_view_extent(const struct lr_view *v, uintptr_t *lo, uintptr_t *hi);

/*
 * Encode every element of 'src' into the same position of 'dst' with kernel
 * 'k' under contract 'c', splitting the outer dimensions over 'threads'
 * threads (the result does not depend on the count). Shapes must match;
 * an output that overlaps the input is refused (LR_EINVAL); 'src' is only
 * read. Empty views are fine. Rows contiguous in both views go straight to
 * the kernel; other rows pass through small stack buffers.
 */
LR_MUST_CHECK int lr_encode_view(const struct lr_view *dst, const struct lr_view *src, const struct lr_dlf16_kernel *k,
				 enum lr_dlf16_contract c, int threads);

/*
 * The same with the store policy chosen by the caller: LR_STORES_AUTO
 * (non-temporal from LR_STREAM_MIN_BYTES of output in this call),
 * LR_STORES_STREAM or LR_STORES_CACHED. A caller that encodes a large
 * output in many small calls knows better than each call.
 */
enum { LR_STORES_AUTO, LR_STORES_STREAM, LR_STORES_CACHED };
LR_MUST_CHECK int lr_encode_view_stores(const struct lr_view *dst, const struct lr_view *src,
					const struct lr_dlf16_kernel *k, enum lr_dlf16_contract c, int threads,
					int stores);

/*
 * A view cut along one dimension into pieces whose elements are consecutive
 * in C order, each at most 'max' elements (but never less than one innermost
 * row), for producing an output chunk by chunk. lr_pieces_init returns the
 * number of pieces; lr_piece gives piece i as a view into the same data and
 * the C-order index of its first element.
 */
struct lr_pieces {
	struct lr_view v;
	int d;          /* the dimension cut; -1: one piece, the whole view */
	int64_t inner;  /* elements per index of dimension d */
	int64_t m, per; /* indices of d per piece; pieces per outer index */
};
int64_t lr_pieces_init(struct lr_pieces *pc, const struct lr_view *v, int64_t max);
void lr_piece(const struct lr_pieces *pc, int64_t i, struct lr_view *piece, int64_t *first);

/* Copy every element of 'src' into the same position of 'dst' (same rules, no encoding). */
LR_MUST_CHECK int lr_copy_view(const struct lr_view *dst, const struct lr_view *src);

/*
 * memcpy with non-temporal stores (SSE2 on x86-64, plain memcpy elsewhere):
 * for data that will not be read again soon through this cache, such as a
 * simulated device write. One sequential read stream, or with LR_DLF16_PAGES
 * (encode/dlf16.h) four pages at a time, 64 bytes of each in turn: which is
 * faster depends on the CPU (1.3-1.9x for four pages at 16 MiB on the Xeon;
 * 0.55-0.75x on a Zen 4 VM), as the kernels' -pages variants do.
 * Fenced before it returns.
 */
void lr_memcpy_stream(void *dst, const void *src, size_t bytes, unsigned flags);

/* Outputs at least this large are written with non-temporal stores. */
#define LR_STREAM_MIN_BYTES (16u << 20)

#endif
