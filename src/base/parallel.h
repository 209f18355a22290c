#ifndef LR_PARALLEL_H
#define LR_PARALLEL_H

#include <stddef.h>

/* The most parts lr_parallel runs at once. */
#define LR_PARALLEL_MAX 64

/*
 * Run fn on each of the n parts of the array 'parts' (elements of 'size'
 * bytes): the first on the calling thread, the others on threads of their
 * own; a part whose thread cannot start runs on the calling thread instead.
 * Returns when every part is done. n is at most LR_PARALLEL_MAX.
 */
void lr_parallel(void *parts, size_t size, int n, void *(*fn)(void *part));

/* The CPUs this process may run on, at least 1 and at most LR_PARALLEL_MAX: 'on every CPU'. */
int lr_parallel_cpus(void);

#endif
