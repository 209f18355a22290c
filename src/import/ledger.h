#ifndef LR_LEDGER_H
#define LR_LEDGER_H

/*
 * The ledger every backend shares: lanes, leases and device slots. A lease
 * owns its tensors until commit hands them to the lane (freeing what the
 * lane held before) or cancel frees them, so no partial import is ever
 * visible and no slot leaks. Thread-safe: several leases may be open at
 * once, one lane each. Backends call it from their ops (backend-sim.c,
 * backend-atom.c); nothing here knows which backend it serves.
 */

#include "base/error.h"
#include <pthread.h>
#include <stdint.h>

#include "import/backend.h"

/* Device primitives a backend gives the ledger. */
struct lr_device {
	void *ctx;
	int (*alloc)(void *ctx, uint64_t bytes, void **handle);
	void (*free)(void *ctx, void *handle);
	int (*h2d)(void *ctx, void *handle, uint64_t off, const void *src, uint64_t len);
	int (*d2h)(void *ctx, void *handle, uint64_t off, void *dst, uint64_t len);
};

struct lr_ledger_tensor {
	void *handle;
	uint64_t bytes;
};

struct lr_ledger {
	struct lr_device dev;
	pthread_mutex_t mu;
	int lanes;
	int *lane_busy;                 /* a lease is open on the lane */
	struct lr_ledger_tensor **lane; /* committed tensors per lane */
	int *lane_n;
	struct lr_backend_stats st;
	const struct lr_backend_config *cfg;
};

struct lr_lease {
	struct lr_ledger *ledger;
	int lane;
	int n;
	struct lr_ledger_tensor *t;
};

/*
 * A ledger over 'dev' with cfg's lanes and capacity ('cfg' outlives it);
 * 'runtime' is what its stats name as the runtime ("simulated", a version).
 */
LR_MUST_CHECK int lr_ledger_init(struct lr_ledger *lg, const struct lr_device *dev, const struct lr_backend_config *cfg,
				 const char *runtime);
void lr_ledger_release(struct lr_ledger *lg);

/*
 * The ops of struct lr_backend_ops the ledger implements for every backend.
 * Each backend's own struct lr_backend has its struct lr_ledger as its
 * first member (the backend checks it with a static assertion), so that the
 * ledger is where a struct lr_backend * points.
 */
LR_MUST_CHECK int lr_ledger_lease(struct lr_backend *b, int lane, int n, const uint64_t *bytes, struct lr_lease **out);
LR_MUST_CHECK int lr_ledger_write(struct lr_lease *l, int t, uint64_t offset, const void *src, uint64_t len);
LR_MUST_CHECK int lr_ledger_read(struct lr_backend *b, int lane, int t, uint64_t offset, void *dst, uint64_t len);
LR_MUST_CHECK int lr_ledger_commit(struct lr_lease *l);
void lr_ledger_cancel(struct lr_lease *l);
void lr_ledger_stats(struct lr_backend *b, struct lr_backend_stats *out);

/* Those ops, for a backend's table: it adds its name, open and close. */
#define LR_LEDGER_OPS \
	.lease = lr_ledger_lease, .write = lr_ledger_write, .read = lr_ledger_read, .commit = lr_ledger_commit, \
	.cancel = lr_ledger_cancel, .stats = lr_ledger_stats

#endif
