#ifndef LR_IMPORT_JOB_H
#define LR_IMPORT_JOB_H

/*
 * A recorded import: what 'labrun import' does between parsing its options
 * and printing. Prepare loads the source and checks its geometry against
 * the compiled one, touching no store; execute records the run, imports,
 * reads every tensor back, measures the copy ceiling and stores the stage
 * timings (modelled link time flagged apart). Nothing here prints.
 */

#include "base/error.h"
#include <stdatomic.h>
#include <stdint.h>

#include "base/model.h"
#include "base/sha256.h"
#include "encode/dlf16.h"
#include "import/backend.h"
#include "import/import.h"
#include "import/kvgeom.h"
#include "import/kvsrc.h"
#include "store/store.h"

struct lr_import_job_opts {
	const char *model;              /* a preset, or "custom" */
	const char *compiled_model;     /* what the device was compiled for; NULL: model */
	int layers, kv_heads, head_dim; /* custom geometry */
	int64_t tokens;                 /* synthetic export */
	int64_t capacity, block_size;   /* compiled cache; 0: tokens, and one block */
	const char *source, *tensor;    /* a .npy or .safetensors export; NULL: synthetic */
	int token_major, specials;
	uint64_t seed;
	const char *kernel; /* a kernel name or "auto" */
	enum lr_dlf16_contract contract;
	enum lr_import_mode mode;
	enum lr_import_path path;
	int threads, staging, lane;
	int repeat;                    /* imports of the same export in this process (0 or 1: one) */
	const char *backend;           /* "sim" or "atom" */
	struct lr_backend_config cfg;  /* must outlive the job's execution */
	int cancel_at, die_at;         /* faults, -1: none */
	atomic_int *cancel;            /* set asynchronously (Ctrl-C) to cancel; may be NULL */
	const char *experiment, *note; /* recorded with the run; may be NULL */
	const struct lr_strlist *issues;
};

/* Imports that allocate the simulated device's memory before the steady state. */
#define LR_IMPORT_WARM      2
#define LR_IMPORT_MAXREPEAT 1000

struct lr_import_job {
	struct lr_kvgeom g; /* the export, with the compiled capacity and block size */
	struct lr_kvsrc src;
	int have_src;
	const struct lr_dlf16_kernel *k;
	const struct lr_backend_ops *ops;
	uint64_t bytes;  /* BF16 bytes of the export */
	double source_s; /* measured: loading or generating the source */
	struct lr_import_result r;
	struct lr_backend_stats stats;
	double readback_s;                /* measured: reading back and comparing */
	double ceiling_s;                 /* measured: the fastest copy of the export's bytes (0 when not measured) */
	int imported, verified;           /* the import committed; the readback matched */
	char state_sha256[LR_SHA256_HEX]; /* of the lane's tensors ("" when not verified) */
	/*
	 * With o->repeat > 1, the same export imported again into the same lane by
	 * the same device, which keeps its memory (and the pipeline its staging)
	 * from one import to the next, as a device and a serving process do. A
	 * cycle is one import's lease, import, readback and digest, wall clock.
	 * The first two imports allocate the device's memory (the lane's, then a
	 * lease's beside it); the steady figures are medians over the rest.
	 */
	int imports;           /* done and verified */
	double cycle_s;        /* the first import's cycle: first touch */
	double steady_cycle_s; /* 0 with fewer than LR_IMPORT_WARM + 1 imports */
	double steady_lease_s, steady_import_s, steady_readback_s;
	struct lr_run run; /* as recorded */
};

/* Resolve the kernel, the geometries and the source; check the export fits. */
LR_MUST_CHECK int lr_import_job_prepare(struct lr_import_job *j, const struct lr_import_job_opts *o);

/*
 * Record and run the import into 'st' (argv and envp are what the run
 * records). 0 when the run was stored, whatever its status (passed, failed,
 * cancelled: see j->run); an error when it could not be. A run stored but
 * not finalised is marked abandoned by the next labrun.
 */
LR_MUST_CHECK int lr_import_job_execute(struct lr_import_job *j, const struct lr_import_job_opts *o,
					struct lr_store *st, char *const *argv, char *const *envp);

void lr_import_job_release(struct lr_import_job *j);

#endif
