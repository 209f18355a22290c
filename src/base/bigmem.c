#include "config.h"
#include "base/system.h"

#include <sys/mman.h>

#include "base/bigmem.h"

void *lr_big_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void lr_big_populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	memset(p, 0, bytes); /* kernels before 5.14: touch every page */
}

void lr_big_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}
