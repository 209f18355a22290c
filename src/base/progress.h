#ifndef LR_BASE_PROGRESS_H
#define LR_BASE_PROGRESS_H

#include <stdint.h>

/*
 * Progress of long work, in the manner of git's progress.h: the code doing the
 * work says what it is and how far it has come; whether and how that is shown
 * is the command layer's (cmd/progress.c), which installs a sink. Without a
 * sink every call is a no-op, and a NULL progress is accepted everywhere.
 *
 *	struct lr_progress *p = lr_progress_start("pushing", "runs", n);
 *	for (i = 0; i < n; i++) { ...; lr_progress_update(p, i + 1); }
 *	lr_progress_stop(&p);
 */

/* What a sink shows: done of total (-1: unknown) 'unit' of 'title', 'elapsed_s' in; and the current step's bytes. */
struct lr_progress_view {
	const char *title, *unit;
	int64_t done, total;
	double elapsed_s;
	int final;                     /* the last call, at stop */
	const char *step;              /* a long step inside the work ("object 5f3a..."), or NULL */
	int64_t step_done, step_total; /* its bytes */
};

struct lr_progress_sink {
	void (*show)(void *arg, const struct lr_progress_view *v);
	void *arg;
	double interval_s; /* at most one show per interval, besides the first and the final one */
	int percent;       /* also show whenever the whole percentage changes (a terminal's line, redrawn) */
};

/* Install the sink (NULL: none); the command layer does, once, before the work starts. */
void lr_progress_sink_set(const struct lr_progress_sink *sink);

struct lr_progress;

/*
 * A new progress meter, or NULL when nothing shows progress, when another
 * meter is showing (only the outermost work is shown) or memory is short:
 * progress is never an error. Meters are the calling thread's: a worker
 * reports through the thread that started it.
 */
struct lr_progress *lr_progress_start(const char *title, const char *unit, int64_t total);
/* 'done' so far; shown when the sink's interval has passed since the last show. */
void lr_progress_update(struct lr_progress *p, int64_t done);
/* The final show, then free it; *p becomes NULL. */
void lr_progress_stop(struct lr_progress **p);

/*
 * How far a long step of the showing meter's work has come: 'done' of
 * 'total' bytes of 'what' (copied), shown after the meter's own count (an
 * object of 1.2 GB inside "pushed 3 of 10 runs"), under the same interval;
 * 'total' 0 ends the step (shown with the next update). A no-op when no meter is showing.
 */
void lr_progress_step(const char *what, int64_t done, int64_t total);

#endif
