#ifndef LR_IMPORT_H
#define LR_IMPORT_H

/*
 * The KV import pipeline: a BF16 export ([L,2,H,T,D] view) is laid out as
 * the device stores it (per layer a K and a V tensor [blocks, H, rows, Dp])
 * and encoded to DLF16 on the host, then written to a lease on a backend
 * lane and committed.
 *
 * Host paths, identical device bytes:
 *   strided  one pass, encoding straight from the source view into the
 *            device layout;
 *   copy     the old path: a contiguous transposed copy, its reversal, then
 *            encoding (kept as the baseline to measure against).
 * Transfer modes, identical device state and the same writes (one per
 * tensor, 2L in all):
 *   whole    every layer is staged, then written;
 *   stream   a producer thread encodes layer i+1 while a writer thread
 *            writes layer i, through a bounded set of staging buffers.
 * Any failure, cancel or producer death cancels the lease: nothing partial
 * becomes visible, no slot is left allocated.
 */

#include "base/enumname.h"
#include "base/error.h"
#include <stdatomic.h>
#include <stdint.h>

#include "encode/dlf16.h"
#include "encode/layout.h"
#include "import/backend.h"
#include "import/kvgeom.h"

enum lr_import_mode { LR_IMPORT_WHOLE, LR_IMPORT_STREAM };
enum lr_import_path { LR_PATH_STRIDED, LR_PATH_COPY };

/*
 * Staging kept across imports of the same geometry and mode, as a serving
 * process keeps its buffers: the first import allocates, later ones reuse.
 * Zero-initialise; release with lr_import_staging_release().
 */
struct lr_import_staging {
	void *priv;
};
void lr_import_staging_release(struct lr_import_staging *s);

struct lr_import_opts {
	const struct lr_kvgeom *g; /* export geometry with capacity and block_size */
	const struct lr_view *src; /* [L, 2, H, T, D] BF16 bits */
	enum lr_import_mode mode;
	enum lr_import_path path;
	const struct lr_dlf16_kernel *k;
	enum lr_dlf16_contract contract;
	int threads; /* encoder threads per tensor */
	int lane;
	int staging;                    /* stream: staging buffers (>= 2) */
	int cancel_at;                  /* fault: cancel on reaching this layer, -1 none */
	int die_at;                     /* fault: the producer dies at this layer, -1 none */
	atomic_int *cancel;             /* set to request a cancel (e.g. from SIGINT); may be NULL */
	struct lr_import_staging *keep; /* reuse staging across imports; may be NULL */
};

struct lr_import_result {
	double lease_s;  /* host: allocating the lease's device tensors */
	double encode_s; /* host: layout (and copies) + encode, summed */
	double write_s;  /* host: time inside device write calls, summed */
	double total_s;  /* host: first encode to commit, wall clock (after the lease) */
	int64_t writes;
	uint64_t bytes;
	int cancelled; /* the import was cancelled (by request or fault) */
	int died_at;   /* the producer died at this layer, else -1 */
};

/* Names for printing and recording. */
/* "whole" or "stream", "strided" or "copy": one table each, read both ways (base/enumname.h). */
extern const struct lr_enum_names lr_import_modes, lr_import_paths;
const char *lr_import_mode_name(enum lr_import_mode m);
const char *lr_import_path_name(enum lr_import_path p);

/*
 * Run one import into o->lane. 0 when committed; otherwise the lease was
 * cancelled and the lane still shows what it showed before (r says whether
 * it was a cancel or a producer death; the message says which).
 */
LR_MUST_CHECK int lr_import(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o,
			    struct lr_import_result *r);

/*
 * Read every tensor of the lane back and compare it with an expectation
 * computed element by element from the source (independently of the
 * pipeline's views). LR_EIO naming the first differing (layer, K/V, head,
 * token, dim) on a mismatch. With 'hex', the lane's state tree hash too, from
 * the same reads (as lr_import_state_hash gives it with 'tree').
 */
LR_MUST_CHECK int lr_import_verify(const struct lr_backend_ops *ops, struct lr_backend *b,
				   const struct lr_import_opts *o, char hex[65]);

/*
 * The digest of the lane's state, over the written span of every tensor the
 * lane shows, in order: with 'tree', the SHA-256 tree hash over 1 MiB leaves
 * (base/treehash.h) on every CPU, an import's run_digest 'device_state_tree';
 * else one SHA-256, the output digest of an experiment's import arm, which
 * replays compare with the digests experiments stored before the tree hash.
 */
LR_MUST_CHECK int lr_import_state_hash(const struct lr_backend_ops *ops, struct lr_backend *b, int lane,
				       const struct lr_kvgeom *g, int tree, char hex[65]);

#endif
