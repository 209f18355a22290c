#include "config.h"
#include "base/system.h"

#include <sys/mman.h>

#include "base/bigmem.h"
#include "base/parallel.h"

void *lr_big_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct slice {
	char *p;
	size_t n;
};

static void *populate(void *arg)
{
	struct slice *s = arg;

#ifdef MADV_POPULATE_WRITE
	if (madvise(s->p, s->n, MADV_POPULATE_WRITE) == 0)
		return NULL;
#endif
	memset(s->p, 0, s->n); /* kernels before 5.14: touch every page */
	return NULL;
}

/*
 * Most of the cost is the kernel zeroing each page (clear_page was half of
 * 'labrun import' of qwen3-4b at 8,192 tokens), which every CPU can do for
 * its own slice: a slice per CPU the process may use, page-aligned, for
 * buffers of 64 MiB and more.
 */
void lr_big_populate(void *p, size_t bytes)
{
	struct slice part[LR_PARALLEL_MAX];
	size_t page = (size_t)sysconf(_SC_PAGESIZE), at = 0;
	int k = bytes >= ((size_t)64 << 20) ? lr_parallel_cpus() : 1, i;

	if (k > LR_PARALLEL_MAX)
		k = LR_PARALLEL_MAX;
	for (i = 0; i < k; i++) {
		size_t end = i + 1 == k ? bytes : (bytes / (size_t)k * (size_t)(i + 1)) / page * page;

		part[i] = (struct slice){ (char *)p + at, end - at };
		at = end;
	}
	lr_parallel(part, sizeof part[0], k, populate);
}

void lr_big_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}
