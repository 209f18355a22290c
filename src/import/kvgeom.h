#ifndef LR_KVGEOM_H
#define LR_KVGEOM_H

/*
 * KV-cache geometry: the four model presets of docs/geometry.md,
 * custom geometry, the device layout an import writes, and the check of an
 * export against the geometry a backend was compiled for.
 */

#include "base/error.h"
#include <stdint.h>

#define LR_KV_MAXLAYERS 256

struct lr_kvgeom {
	char model[32];
	int layers, kv_heads, head_dim;
	int64_t max_positions;
	int window;                             /* sliding-window tokens of local layers, 0 if none */
	unsigned char sliding[LR_KV_MAXLAYERS]; /* 1: a local (sliding-window) layer */
	int64_t tokens;                         /* tokens in the export */
	int64_t capacity;                       /* tokens the compiled cache holds (max_seq_len) */
	int64_t block_size;                     /* tokens per device block */
};

/* Fill the model fields of a preset ("qwen3-0.6b", "qwen3-4b", "gemma3-1b", "koni-8b"). */
LR_MUST_CHECK int lr_kvgeom_preset(struct lr_kvgeom *g, const char *name);

/* The list of preset names, for help and errors. */
extern const char *const lr_kvgeom_presets[];

/* head_dim padded to a multiple of 64, as the device stores it. */
LR_MUST_CHECK int lr_kvgeom_padded_dim(const struct lr_kvgeom *g);

/* Device tensor of layer l (K or V alike): blocks x kv_heads x rows x padded_dim. */
struct lr_kvtensor {
	int64_t blocks;      /* blocks in the tensor (1 for a sliding layer) */
	int64_t rows;        /* token rows per block: block_size, or window */
	int64_t first_token; /* first export token stored (sliding layers keep the last window) */
	int64_t ntokens;     /* export tokens stored */
	int64_t used_blocks; /* blocks holding stored tokens: the span an import writes */
	uint64_t bytes;      /* whole tensor */
	uint64_t span_bytes; /* bytes an import writes, from offset 0 */
};
void lr_kvgeom_tensor(const struct lr_kvgeom *g, int layer, struct lr_kvtensor *t);

/* KV bytes of the export (BF16) and what the device stores. */
uint64_t lr_kvgeom_export_bytes(const struct lr_kvgeom *g);

/*
 * Check an export's geometry against the compiled one before any byte is
 * written: layers, kv_heads and head_dim must be equal and tokens must fit
 * the capacity. LR_EINVAL naming the field and both values otherwise.
 */
LR_MUST_CHECK int lr_kvgeom_check(const struct lr_kvgeom *compiled, const struct lr_kvgeom *export_);

#endif
