#ifndef LR_BACKEND_H
#define LR_BACKEND_H

/*
 * Device backends behind one ops table. An import takes a lease on
 * a lane: its tensors are allocated for it and belong to the lease until
 * commit makes them the lane's visible contents (freeing what the lane held
 * before); cancel or failure frees them, so no partial import is ever
 * visible and no slot leaks. Several leases may be open at once, one lane
 * each, from different threads.
 *
 * The ledger (import/ledger.h) does that bookkeeping once for every
 * backend; a backend supplies device primitives (alloc, free, copy in,
 * copy out).
 */

#include "base/error.h"
#include <stdint.h>

struct lr_backend;
struct lr_lease;

struct lr_backend_config {
	int lanes;               /* concurrent imports (default 4) */
	uint64_t capacity_bytes; /* device memory (sim; 0: unlimited) */
	double link_gbps;        /* sim link model: bandwidth, 0 for none */
	double link_latency_us;  /* sim link model: per-call latency */
	int64_t fail_write;      /* sim fault: fail the k-th write (1-based), 0 none */
	const char *rbln_lib;    /* atom: runtime library path */
	int device_id;           /* atom: physical NPU id */
};

struct lr_backend_stats {
	int64_t slots;         /* tensors allocated (leases and lanes) */
	uint64_t bytes;        /* device bytes allocated */
	int64_t writes, reads; /* write/read calls so far */
	uint64_t bytes_written;
	double modelled_dma_s;    /* sim link model: MODELLED transfer time */
	char runtime_version[64]; /* atom: what the runtime reports */
};

struct lr_backend_ops {
	const char *name;
	/* 'cfg' must outlive the backend: fault settings are read live. */
	int (*open)(struct lr_backend **out, const struct lr_backend_config *cfg);
	/* A lease of 'n' tensors of the given sizes on 'lane' (contents undefined until written). */
	int (*lease)(struct lr_backend *b, int lane, int n, const uint64_t *bytes, struct lr_lease **out);
	/* Copy 'len' host bytes into tensor 't' of the lease at 'offset'. */
	int (*write)(struct lr_lease *l, int t, uint64_t offset, const void *src, uint64_t len);
	/* Copy from tensor 't' of what 'lane' shows (its committed import). */
	int (*read)(struct lr_backend *b, int lane, int t, uint64_t offset, void *dst, uint64_t len);
	/* Make the lease the lane's contents; frees the lease either way. */
	int (*commit)(struct lr_lease *l);
	/* Release the lease and its tensors; safe with NULL. */
	void (*cancel)(struct lr_lease *l);
	void (*stats)(struct lr_backend *b, struct lr_backend_stats *out);
	void (*close)(struct lr_backend *b);
};

extern const struct lr_backend_ops lr_backend_sim_ops;
extern const struct lr_backend_ops lr_backend_atom_ops;

/* The ops table of 'name' ("sim", "atom"); LR_EINVAL with a message otherwise. */
LR_MUST_CHECK int lr_backend_find(const struct lr_backend_ops **out, const char *name);

#endif
