#ifndef LR_REPORT_SYNC_H
#define LR_REPORT_SYNC_H

/* What push and pull say: each run's line (-v) and the closing count (sync.c). */

#include <stdio.h>

#include "store/remote.h"

/* "pushed", "pulled", "present", "refused", "skipped". */
const char *lr_sync_event_name(enum lr_sync_event e);

/* One run's line of 'push -v' or 'pull -v': the event, padded to a column, then the uuid. */
void lr_sync_write_run(FILE *f, enum lr_sync_event e, const char *uuid);

/*
 * The closing count of a push (pull 0) or a pull (pull 1) with remote 'name':
 * runs new, already at the other side, refused (and skipped, for a push);
 * objects moved, their size, and those already there (with 'lazy': the rest
 * fetched on first read).
 */
void lr_sync_write_summary(FILE *f, const char *name, int pull, int lazy, const struct lr_sync_stats *s);

#endif
