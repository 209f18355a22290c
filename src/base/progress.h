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

struct lr_progress_sink {
	/* done of total (-1: unknown) 'unit' of 'title', 'elapsed_s' in; final: the last call, at stop */
	void (*show)(void *arg, const char *title, const char *unit, int64_t done, int64_t total, double elapsed_s,
		     int final);
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

#endif
