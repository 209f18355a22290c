#ifndef LR_BASE_TREEHASH_H
#define LR_BASE_TREEHASH_H

/*
 * A SHA-256 tree hash over 1 MiB leaves, as Amazon Glacier defines one: the
 * bytes are cut into leaves of 1 MiB (the last may be shorter), each hashed
 * with SHA-256; then level by level, each pair of neighbours, left then
 * right, becomes the SHA-256 of their two 32-byte digests side by side, and
 * a last node without a partner goes up unchanged; the root is the digest.
 * One leaf: its SHA-256. No bytes: the SHA-256 of nothing. Unlike one
 * SHA-256 over all the bytes, the leaves can be hashed on every CPU and in
 * the passes that read the bytes anyway (docs/schema.md gives a recipe).
 *
 * Fed in pieces of any size; a piece's whole leaves are hashed on up to
 * 'threads' threads, a leaf split between pieces is gathered first.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/sha256.h"

#define LR_TREE_LEAF ((size_t)1 << 20)

struct lr_treehash {
	unsigned char (*leaf)[LR_SHA256_LEN]; /* the digests of the leaves so far */
	size_t n, cap;
	unsigned char *part; /* the leaf being gathered (LR_TREE_LEAF bytes) */
	size_t have;         /* bytes in it */
	int threads;
};

/* Start a tree hash whose pieces are hashed on up to 'threads' threads (0 or 1: the calling one). */
void lr_tree_init(struct lr_treehash *t, int threads);
/* Add 'len' bytes. LR_ENOMEM. */
LR_MUST_CHECK int lr_tree_update(struct lr_treehash *t, const void *data, size_t len);
/*
 * Filled out of order instead, when the leaves are known in advance: reserve
 * 'leaves' slots, then put whole leaves at their index, on any thread (each
 * slot written once). Not mixed with lr_tree_update.
 */
LR_MUST_CHECK int lr_tree_reserve(struct lr_treehash *t, size_t leaves);
LR_MUST_CHECK int lr_tree_put(struct lr_treehash *t, size_t first, const void *data, size_t len);
/* The root as lowercase hex; the state is released (also on failure). */
LR_MUST_CHECK int lr_tree_final(struct lr_treehash *t, char hex[LR_SHA256_HEX]);
/* Abandon it. */
void lr_tree_release(struct lr_treehash *t);

#endif
