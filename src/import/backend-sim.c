/*
 * The simulated device: host memory standing in for device memory, with a
 * capacity, lanes, an optional link model whose transfer times are MODELLED
 * (never measured), and fault injection (fail the k-th write).
 */
#include "config.h"
#include "base/system.h"

#include <sys/mman.h>

#include "base/bigmem.h"
#include "base/error.h"
#include "encode/ktable.h"
#include "encode/layout.h"
#include "import/backend.h"
#include "import/ledger.h"

/*
 * Freed blocks are kept for reuse by size, as the RBLN runtime's caching
 * allocator does: a repeated import of the same geometry then costs no
 * fresh host pages. Each block carries its size in a header.
 */
struct block {
	struct block *next;
	uint64_t bytes;
	uint64_t pad[6]; /* keeps the payload 64-byte aligned */
};

struct lr_backend {
	struct lr_ledger ledger; /* first: the ledger's ops find it where b points (import/ledger.h) */
	struct lr_backend_config cfg;
	pthread_mutex_t mu;
	struct block *cache; /* freed blocks */
	unsigned order;      /* the read order of its writes: the one 'auto' streams in here (LR_DLF16_PAGES or 0) */
};
_Static_assert(offsetof(struct lr_backend, ledger) == 0, "the ledger comes first (import/ledger.h)");

static int sim_alloc(void *ctx, uint64_t bytes, void **handle)
{
	struct lr_backend *b = ctx;
	struct block *blk, **pp;

	pthread_mutex_lock(&b->mu);
	for (pp = &b->cache; *pp && (*pp)->bytes != bytes; pp = &(*pp)->next)
		;
	blk = *pp;
	if (blk)
		*pp = blk->next;
	pthread_mutex_unlock(&b->mu);
	if (!blk) {
		if (!(blk = lr_big_alloc(sizeof *blk + bytes)))
			return lr_error_set(LR_ENOMEM, "simulated device: cannot allocate %llu bytes",
					    (unsigned long long)bytes);
		blk->bytes = bytes;
		/* Device memory is resident: fault every page in now, not during the timed writes. */
		lr_big_populate(blk, sizeof *blk + bytes);
	}
	*handle = blk + 1;
	return 0;
}

static void sim_free(void *ctx, void *handle)
{
	struct lr_backend *b = ctx;
	struct block *blk = (struct block *)handle - 1;

	pthread_mutex_lock(&b->mu);
	blk->next = b->cache;
	b->cache = blk;
	pthread_mutex_unlock(&b->mu);
}

static int sim_h2d(void *ctx, void *handle, uint64_t off, const void *src, uint64_t len)
{
	struct lr_backend *b = ctx;

	/* a device write is a DMA: it does not pass through the host's caches */
	lr_memcpy_stream((char *)handle + off, src, len, b->order);
	return 0;
}

static int sim_d2h(void *ctx, void *handle, uint64_t off, void *dst, uint64_t len)
{
	(void)ctx;
	memcpy(dst, (const char *)handle + off, len);
	return 0;
}

static int sim_open(struct lr_backend **out, const struct lr_backend_config *cfg)
{
	struct lr_backend *b = calloc(1, sizeof *b);
	struct lr_device dev = { .alloc = sim_alloc, .free = sim_free, .h2d = sim_h2d, .d2h = sim_d2h };
	int rc;

	*out = NULL;
	if (!b)
		return lr_error_set(LR_ENOMEM, "out of memory");
	b->cfg = *cfg;
	b->order = lr_dlf16_auto()->stream_flags;
	pthread_mutex_init(&b->mu, NULL);
	dev.ctx = b;
	if ((rc = lr_ledger_init(&b->ledger, &dev, cfg, "simulated"))) {
		pthread_mutex_destroy(&b->mu);
		free(b);
		return rc;
	}
	*out = b;
	return 0;
}

static void sim_close(struct lr_backend *b)
{
	if (!b)
		return;
	lr_ledger_release(&b->ledger);
	while (b->cache) {
		struct block *n = b->cache->next;

		lr_big_free(b->cache, sizeof *b->cache + b->cache->bytes);
		b->cache = n;
	}
	pthread_mutex_destroy(&b->mu);
	free(b);
}

const struct lr_backend_ops lr_backend_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.close = sim_close,
	LR_LEDGER_OPS,
};
