#ifndef LR_KVSRC_H
#define LR_KVSRC_H

/*
 * Where an import's KV export comes from: synthetic data (deterministic
 * from a seed), a NumPy .npy file, or a safetensors file (BF16 tensor). The
 * export is [L, 2, H, T, D] head-major or [L, 2, T, H, D] token-major in
 * memory; either way 'view' presents it as [L, 2, H, T, D], so the importer
 * never copies to change the layout.
 */

#include "base/error.h"
#include <stdint.h>

#include "encode/layout.h"
#include "encode/npy.h"
#include "import/kvgeom.h"

struct lr_kvsrc {
	struct lr_view view; /* [L, 2, H, T, D] of BF16 bits */
	int token_major;     /* the memory order */
	uint16_t *owned;     /* synthetic data (lr_big_alloc) */
	size_t owned_bytes;
	struct lr_mapped map; /* files */
	char what[64];        /* "synthetic seed 7", "npy", "safetensors 'kv'" */
};

/* Synthetic export of geometry g (layers, kv_heads, tokens, head_dim). */
LR_MUST_CHECK int lr_kvsrc_synthetic(struct lr_kvsrc *s, const struct lr_kvgeom *g, int token_major, uint64_t seed,
				     int specials);

/* A .npy file of shape [L,2,H,T,D] (or [L,2,T,H,D] with token_major). */
LR_MUST_CHECK int lr_kvsrc_npy(struct lr_kvsrc *s, const char *path, int token_major);

/*
 * A safetensors file: the BF16 tensor named 'tensor' (or the only tensor),
 * 5-D as above. The JSON header is parsed with jansson; offsets and sizes are
 * checked against the file.
 */
LR_MUST_CHECK int lr_kvsrc_safetensors(struct lr_kvsrc *s, const char *path, const char *tensor, int token_major);

/* Fill layers/kv_heads/tokens/head_dim of 'g' from the source's shape. */
void lr_kvsrc_geometry(const struct lr_kvsrc *s, struct lr_kvgeom *g);

void lr_kvsrc_release(struct lr_kvsrc *s);

#endif
