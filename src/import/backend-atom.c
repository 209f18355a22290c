/*
 * Rebellions ATOM through the RBLN runtime (docs/atom.md):
 * the library is loaded with dlopen and the C-linkage calls are resolved by
 * name, since the runtime's header is C++. Every call is serialised by a
 * mutex (the runtime makes no thread-safety promise). Tests run this file's
 * real code against a shim library exporting the same symbols.
 */
#include "config.h"
#include "base/system.h"

#include <dlfcn.h>

#include "base/error.h"
#include "import/backend.h"
#include "import/ledger.h"

enum { RBLN_H2D = 0, RBLN_D2H = 1 };

typedef int (*rbln_get_device_count_fn)(int *count);
typedef int (*rbln_register_device_id_fn)(int logical_id, int *physical_ids, int n);
typedef int (*rbln_malloc_fn)(int device_id, uint64_t size, void **device_ptr);
typedef int (*rbln_free_fn)(int device_id, void *device_ptr);
typedef int (*rbln_memcpy_fn)(int device_id, void *dst, const void *src, uint64_t size, int kind);
typedef uint32_t (*rbln_abi_fn)(void);

struct lr_backend {
	struct lr_ledger ledger; /* first: the ledger's ops find it where b points (import/ledger.h) */
	struct lr_backend_config cfg;
	void *lib;
	pthread_mutex_t mu;
	rbln_malloc_fn malloc_;
	rbln_free_fn free_;
	rbln_memcpy_fn memcpy_;
};
_Static_assert(offsetof(struct lr_backend, ledger) == 0, "the ledger comes first (import/ledger.h)");

static const char *retcode(int rc)
{
	return rc == 1 ? "FAILURE" : rc == 2 ? "INVALID" : "unknown code";
}

static int call_failed(const char *call, int rc)
{
	lr_error_set(LR_EIO, "RBLN runtime call %s returned %d (%s)", call, rc, retcode(rc));
	lr_error_hint("check the device with the vendor's tools (rbln-stat), RBLN_DEVICES, and --device");
	return LR_EIO;
}

static int atom_alloc(void *ctx, uint64_t bytes, void **handle)
{
	struct lr_backend *b = ctx;
	int rc;

	pthread_mutex_lock(&b->mu);
	rc = b->malloc_(0, bytes ? bytes : 512, handle);
	pthread_mutex_unlock(&b->mu);
	return rc ? call_failed("rbln_malloc", rc) : 0;
}

static void atom_free(void *ctx, void *handle)
{
	struct lr_backend *b = ctx;

	pthread_mutex_lock(&b->mu);
	b->free_(0, handle);
	pthread_mutex_unlock(&b->mu);
}

static int atom_h2d(void *ctx, void *handle, uint64_t off, const void *src, uint64_t len)
{
	struct lr_backend *b = ctx;
	int rc;

	pthread_mutex_lock(&b->mu);
	rc = b->memcpy_(0, (char *)handle + off, src, len, RBLN_H2D);
	pthread_mutex_unlock(&b->mu);
	return rc ? call_failed("rbln_memcpy (host to device)", rc) : 0;
}

static int atom_d2h(void *ctx, void *handle, uint64_t off, void *dst, uint64_t len)
{
	struct lr_backend *b = ctx;
	int rc;

	pthread_mutex_lock(&b->mu);
	rc = b->memcpy_(0, dst, (const char *)handle + off, len, RBLN_D2H);
	pthread_mutex_unlock(&b->mu);
	return rc ? call_failed("rbln_memcpy (device to host)", rc) : 0;
}

/* Is a library whose file name contains 'name' mapped into this process? */
static int mapped(const char *name)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

static void *sym(struct lr_backend *b, const char *name, const char *path, int *rc)
{
	void *p = dlsym(b->lib, name);

	if (!p && !*rc) {
		lr_error_set(LR_EIO, "cannot use the RBLN runtime '%s': it has no symbol '%s'", path, name);
		lr_error_hint("point --rbln-lib (or LABRUN_RBLN_LIB) at the librbln.so of rebel-compiler");
		*rc = LR_EIO;
	}
	return p;
}

static void atom_close(struct lr_backend *b);

static int atom_open(struct lr_backend **out, const struct lr_backend_config *cfg)
{
	struct lr_device dev = { .alloc = atom_alloc, .free = atom_free, .h2d = atom_h2d, .d2h = atom_d2h };
	const char *path = cfg->rbln_lib ? cfg->rbln_lib : getenv("LABRUN_RBLN_LIB");
	rbln_get_device_count_fn count_fn;
	rbln_register_device_id_fn register_fn;
	rbln_abi_fn abi;
	struct lr_backend *b;
	int rc = 0, n = 0, phys = cfg->device_id;
	char **ver, version[64]; /* as struct lr_backend_stats keeps it */

	*out = NULL;
	if (!path || !*path)
		path = "librbln.so";
	/* The two runtimes abort in static constructors when both are mapped. */
	if ((strstr(path, "librbln.so") && mapped("librbln_runtime.so")) ||
	    (strstr(path, "librbln_runtime.so") && mapped("librbln.so"))) {
		lr_error_set(LR_EIO, "cannot load '%s': the other RBLN runtime library is already loaded", path);
		lr_error_hint("load exactly one of librbln.so and librbln_runtime.so per process");
		return LR_EIO;
	}
	b = calloc(1, sizeof *b);
	if (!b)
		return lr_error_set(LR_ENOMEM, "out of memory");
	b->cfg = *cfg;
	pthread_mutex_init(&b->mu, NULL);
	b->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!b->lib) {
		lr_error_set(LR_EIO, "cannot load the RBLN runtime '%s': %s", path, dlerror());
		lr_error_hint(
			"install rebel-compiler and pass --rbln-lib /path/to/librbln.so (or set LABRUN_RBLN_LIB); --backend sim needs no device");
		rc = LR_EIO;
		goto fail;
	}
	count_fn = (rbln_get_device_count_fn)sym(b, "rbln_get_device_count", path, &rc);
	register_fn = (rbln_register_device_id_fn)sym(b, "rbln_register_device_id", path, &rc);
	b->malloc_ = (rbln_malloc_fn)sym(b, "rbln_malloc", path, &rc);
	b->free_ = (rbln_free_fn)sym(b, "rbln_free", path, &rc);
	b->memcpy_ = (rbln_memcpy_fn)sym(b, "rbln_memcpy", path, &rc);
	if (rc)
		goto fail;
	ver = dlsym(b->lib, "REBEL_COMPILER_VERSION");
	abi = (rbln_abi_fn)dlsym(b->lib, "rbln_abi_current");
	if (ver && *ver)
		snprintf(version, sizeof version, "%s", *ver);
	else if (abi)
		snprintf(version, sizeof version, "abi %u", abi());
	else
		snprintf(version, sizeof version, "unknown");
	if ((rc = count_fn(&n))) {
		rc = call_failed("rbln_get_device_count", rc);
		goto fail;
	}
	if (n < 1 || phys < 0 || phys >= n) {
		lr_error_set(LR_EIO, "cannot use NPU %d: the RBLN runtime sees %d device(s)", phys, n);
		lr_error_hint("check RBLN_DEVICES and --device");
		rc = LR_EIO;
		goto fail;
	}
	if ((rc = register_fn(0, &phys, 1))) {
		rc = call_failed("rbln_register_device_id", rc);
		goto fail;
	}
	dev.ctx = b;
	if ((rc = lr_ledger_init(&b->ledger, &dev, cfg, version)))
		goto fail;
	*out = b;
	return 0;
fail:
	atom_close(b);
	return rc;
}

static void atom_close(struct lr_backend *b)
{
	if (!b)
		return;
	if (b->ledger.lanes)
		lr_ledger_release(&b->ledger);
	if (b->lib)
		dlclose(b->lib);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

const struct lr_backend_ops lr_backend_atom_ops = {
	.name = "atom",
	.open = atom_open,
	.close = atom_close,
	LR_LEDGER_OPS,
};
