#ifndef LR_SESSION_H
#define LR_SESSION_H

/*
 * One run's life in the store, the same for every kind of run (record,
 * import, experiment, replay):
 *
 *   lr_session_lock    take the run's spool lock (<store>/spool/<uuid>.lock);
 *                      while it is held no other labrun takes the run for
 *                      abandoned;
 *   lr_session_begin   store the run as 'running', with every fact known
 *                      before it executes;
 *   lr_session_end     store its final state in one transaction (which seals
 *                      it), then remove its spool files and the lock;
 *   lr_session_release whatever happened: a run that never got its row
 *                      leaves nothing behind; one whose row exists but never
 *                      ended keeps its spool (partial logs) and only drops
 *                      the lock, so the next labrun marks it abandoned.
 *
 * lr_session_start is lock then begin, for runs with nothing to spool.
 */

#include "base/error.h"
#include <stddef.h>

#include "base/model.h"
#include "store/store.h"

struct lr_session {
	struct lr_store *st;
	struct lr_run *run;   /* borrowed; outlives the session */
	int lock;             /* fd holding the spool lock, -1 when none */
	double start_s;       /* monotonic time at begin */
	double user_s, sys_s; /* this process's CPU time at begin */
};

/* Take the spool lock of run->uuid (lr_run_capture set it). */
LR_MUST_CHECK int lr_session_lock(struct lr_session *s, struct lr_store *st, struct lr_run *run);

/* Store the run as 'running' (started_at set now if the caller did not); sets run->id. */
LR_MUST_CHECK int lr_session_begin(struct lr_session *s);

/* lr_session_lock, then lr_session_begin. */
LR_MUST_CHECK int lr_session_start(struct lr_session *s, struct lr_store *st, struct lr_run *run);

/*
 * Store the final state the caller put in the run (status, failure, exit,
 * times, measurements, and the artifacts from 'first_new_artifact' on);
 * ended_at is set now if the caller did not. A run that labrun carries out
 * in its own process (import, experiment) gets its wall time since begin,
 * the process's user and system time since begin and its peak RSS; a
 * recorded command keeps the command's own. Then the spool goes and the
 * lock is released.
 */
LR_MUST_CHECK int lr_session_end(struct lr_session *s, size_t first_new_artifact);

/* Release what the session still holds; safe after lr_session_end and on a zeroed session. */
void lr_session_release(struct lr_session *s);

#endif
