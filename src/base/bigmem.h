#ifndef LR_BIGMEM_H
#define LR_BIGMEM_H

/*
 * Buffers of hundreds of megabytes (KV exports, the simulated device's
 * memory, the copy ceiling's target): mapped directly, and made resident in
 * one call (MADV_POPULATE_WRITE) instead of a page fault per 4 KiB touched.
 * Linux zeroes what it maps, as calloc does.
 *
 * Not on transparent huge pages: with MADV_HUGEPAGE a run of imports took
 * 2.1 s each while memory stayed unfragmented, but 6.5-8.2 s whenever other
 * work had run in between (the kernel compacted memory synchronously, with
 * THP defrag 'madvise'), against 3.9-4.8 s on small pages. Predictable wins.
 */

#include <stddef.h>

/* 'bytes' of zeroed memory, page-aligned; NULL when out of memory. */
void *lr_big_alloc(size_t bytes);

/* Fault every page of p in now (zeroed), so no timed code pays for it later. */
void lr_big_populate(void *p, size_t bytes);

/* Free what lr_big_alloc returned, with the same size; NULL is ignored. */
void lr_big_free(void *p, size_t bytes);

#endif
