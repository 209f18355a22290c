#include "config.h"

#include <sys/mman.h>

#include "base/bigmem.h"

void *lr_big_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: where THP is off, 4 KiB pages it is */
#endif
	return p;
}

void lr_big_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}
