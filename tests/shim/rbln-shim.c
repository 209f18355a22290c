/*
 * A stand-in for the RBLN runtime (librbln.so) over host memory, exporting
 * the C-linkage calls of docs/atom.md, so the atom backend's
 * real code path (dlopen, symbol lookup, error mapping, copies) runs in CI.
 *
 * Environment: RBLN_SHIM_DEVICES (device count, default 1),
 * RBLN_SHIM_FAIL_MEMCPY=k (the k-th rbln_memcpy returns FAILURE).
 * Fresh allocations hold 0xA5 bytes, not zeros: device memory promises none.
 * rbln_shim_outstanding() reports live allocations (for leak checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SUCCESS = 0, FAILURE = 1, INVALID = 2 };

char *REBEL_COMPILER_VERSION = "0.11.0-shim";

static long outstanding, memcpys;
static int registered = -1;

static int devices(void)
{
	const char *e = getenv("RBLN_SHIM_DEVICES");

	return e ? atoi(e) : 1;
}

int rbln_get_device_count(int *count)
{
	if (!count)
		return INVALID;
	*count = devices();
	return SUCCESS;
}

int rbln_register_device_id(int logical_id, int *physical_ids, int n)
{
	if (logical_id != 0 || n != 1 || !physical_ids || physical_ids[0] < 0 || physical_ids[0] >= devices())
		return INVALID;
	registered = physical_ids[0];
	return SUCCESS;
}

int rbln_malloc(int device_id, uint64_t size, void **out)
{
	if (device_id != 0 || registered < 0 || !out)
		return INVALID;
	*out = malloc(size);
	if (!*out)
		return FAILURE;
	memset(*out, 0xA5, size);
	__atomic_add_fetch(&outstanding, 1, __ATOMIC_SEQ_CST);
	return SUCCESS;
}

int rbln_free(int device_id, void *p)
{
	if (device_id != 0 || !p)
		return INVALID;
	free(p);
	__atomic_sub_fetch(&outstanding, 1, __ATOMIC_SEQ_CST);
	return SUCCESS;
}

int rbln_memcpy(int device_id, void *dst, const void *src, uint64_t size, int kind)
{
	const char *fail = getenv("RBLN_SHIM_FAIL_MEMCPY");
	long k = __atomic_add_fetch(&memcpys, 1, __ATOMIC_SEQ_CST);

	if (device_id != 0 || kind < 0 || kind > 2 || !dst || !src)
		return INVALID;
	if (fail && atol(fail) == k)
		return FAILURE;
	memcpy(dst, src, size);
	return SUCCESS;
}

long rbln_shim_outstanding(void)
{
	return __atomic_load_n(&outstanding, __ATOMIC_SEQ_CST);
}

void rbln_shim_reset(void)
{
	__atomic_store_n(&memcpys, 0, __ATOMIC_SEQ_CST);
}
