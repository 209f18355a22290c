#ifndef LR_BIGMEM_H
#define LR_BIGMEM_H

/*
 * Buffers of hundreds of megabytes (KV exports, the simulated device's
 * memory): mapped with transparent huge pages where the kernel allows them,
 * so touching 1 GiB costs about 500 page faults instead of 260,000. Linux
 * zeroes what it maps, as calloc does.
 */

#include <stddef.h>

/* 'bytes' of zeroed memory, 64-byte aligned at least; NULL when out of memory. */
void *lr_big_alloc(size_t bytes);

/* Free what lr_big_alloc returned, with the same size; NULL is ignored. */
void lr_big_free(void *p, size_t bytes);

#endif
