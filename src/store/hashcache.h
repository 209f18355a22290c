#ifndef LR_STORE_HASHCACHE_H
#define LR_STORE_HASHCACHE_H

/* The file hash cache (store/hashcache.c). */

#include <sys/stat.h>

#include "store/store.h"

/*
 * The file hash cache: 1 and the sha256 'path' had when hashed, while its
 * size, times, inode and device (sb, from stat) are unchanged and it was
 * hashed at least a second after it last changed; 0 when it must be read.
 */
LR_MUST_CHECK int lr_store_hash_cached(struct lr_store *st, const char *path, const struct stat *sb,
				       char sha256[LR_SHA256_HEX]);

/*
 * Remember the sha256 of each file as its stat describes it, in one
 * transaction (not on a read-only store, nor inside a read snapshot).
 */
struct lr_hash_entry {
	char *path;
	struct stat sb;
	char sha256[LR_SHA256_HEX];
};
LR_MUST_CHECK int lr_store_hash_remember(struct lr_store *st, const struct lr_hash_entry *e, size_t n);

#endif
