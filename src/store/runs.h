#ifndef LR_STORE_RUNS_H
#define LR_STORE_RUNS_H

/* Runs in the store: the row written before a command starts, its final state, abandoned runs, reading them back (store/runs.c, store/runs-read.c). */

#include "store/store.h"

/*
 * Insert 'run' as 'running' with every fact known before execution (host,
 * experiment, issues, geometry, binding, tools, environment, sources and the
 * artifacts already in run->artifacts) in one transaction; sets run->id.
 * Objects named by artifacts must already be in objects/.
 */
LR_MUST_CHECK int lr_store_run_begin(struct lr_store *st, struct lr_run *run);

/*
 * Finalise a run in one transaction: status, end time, exit, resource use,
 * failure text, the artifacts from index 'first_new_artifact' on, and the
 * run's measurements.
 */
LR_MUST_CHECK int lr_store_run_finish(struct lr_store *st, const struct lr_run *run, size_t first_new_artifact);

/* Runs still marked 'running': ids and uuids (malloc'd arrays, caller frees). */
struct lr_running {
	int64_t id;
	char uuid[37];
};
LR_MUST_CHECK int lr_store_running(struct lr_store *st, struct lr_running **out, size_t *n);

/*
 * Mark run 'id' abandoned if it is still running, linking the given logs.
 * *changed is 1 when this call did it, 0 when another process finished or
 * abandoned it first.
 */
LR_MUST_CHECK int lr_store_run_abandon(struct lr_store *st, int64_t id, const char *ended_at,
				       const struct lr_artifact *logs, size_t nlogs, int *changed);

/*
 * Resolve a run reference: a short id ("7"), a uuid or a unique uuid prefix
 * of at least 4 characters, or "last"; any of them followed by "~N", the Nth
 * run recorded before it ("last~1"). LR_ENOTFOUND / LR_EINVAL otherwise.
 */
LR_MUST_CHECK int lr_store_run_resolve(struct lr_store *st, const char *ref, int64_t *id);

/* Load everything recorded about run 'id' into 'run' (lr_run_init'ed). */
/* Set binding row 'key' of run 'id' (still running: its seal is not written yet) to value, origin 'auto' or 'user'. */
LR_MUST_CHECK int lr_store_binding_set(struct lr_store *st, int64_t id, const char *key, const char *value,
				       const char *origin);

LR_MUST_CHECK int lr_store_run_load(struct lr_store *st, int64_t id, struct lr_run *run);

struct lr_run_filter {
	const char *issue;      /* normalised issue ref, or NULL */
	const char *experiment; /* or NULL */
	int status;             /* enum lr_status, or -1 for any */
	int64_t limit;          /* 0: all */
};

/*
 * Call 'fn' for each matching run, newest first, with the summary fields
 * filled (id, uuid, kind, experiment, status, times, exit, wall, argv, cwd,
 * issues). The run is released after each call; a non-zero return from
 * 'fn' stops the walk and is returned.
 */
typedef int (*lr_run_fn)(void *arg, const struct lr_run *run);
LR_MUST_CHECK int lr_store_run_list(struct lr_store *st, const struct lr_run_filter *f, lr_run_fn fn, void *arg);

/* Where a run came from: the nearest pulled run in its replay_of chain (pulled_run 0: recorded here). */
struct lr_run_origin {
	int64_t pulled_run; /* the pulled run (the run itself, or the run a replay re-executes) */
	char remote[128];   /* the remote it was pulled from */
	char host[256];     /* the host that pushed it */
};
LR_MUST_CHECK int lr_store_run_origin(struct lr_store *st, int64_t id, struct lr_run_origin *o);

/* Ids of the runs matching 'f', oldest first (malloc'd; 0 runs gives NULL and *n = 0). */
LR_MUST_CHECK int lr_store_run_ids(struct lr_store *st, const struct lr_run_filter *f, int64_t **ids, int *n);

#endif
