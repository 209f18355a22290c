#ifndef LR_SPOOL_H
#define LR_SPOOL_H

/*
 * The spool: <store>/spool/<uuid>.{lock,stdout,stderr,checks}. A recorder
 * holds an exclusive flock on its .lock file from before its run row exists
 * until after the row is final, and streams the logs into the .stdout/.stderr
 * files; the command may append its checks to .checks ($LABRUN_CHECKS),
 * read when it ends (an abandoned run's are not). A 'running' run whose lock nobody holds lost its recorder: the next
 * labrun to open the store adopts the logs streamed so far and marks the
 * run 'abandoned'. flock locks die with their process, whatever kills it.
 */

#include "base/error.h"
#include "store/store.h"

/* malloc'd "<store>/spool/<uuid>.<ext>", or NULL. */
char *lr_spool_path(const char *store_dir, const char *uuid, const char *ext);

/* Create and lock the .lock file of a new run; *fd holds the lock. */
LR_MUST_CHECK int lr_spool_lock(const char *store_dir, const char *uuid, int *fd);

/* After the run is final: remove the spool files, then release the lock. */
void lr_spool_unlock(const char *store_dir, const char *uuid, int fd);

/*
 * Mark every running run whose recorder is gone as abandoned, keeping its
 * partial logs. *abandoned (may be NULL) counts the runs this call marked.
 * Runs whose recorder is alive are left alone.
 */
LR_MUST_CHECK int lr_spool_recover(struct lr_store *st, int *abandoned);

/*
 * What recovering a dead recorder's run writes besides hard links to its logs:
 * a few database pages (the WAL) and the objects' directory entries. Below
 * this much free space on the store's disk, fsck reports instead of recovering.
 */
#define LR_SPOOL_RECOVER_SPACE ((int64_t)1 << 20)

/*
 * The runs recovery would adopt now (running, lock not held) into *runs, and
 * the bytes of partial logs they keep in the spool into *bytes. Reads only:
 * fsck reports them when the disk has no room to recover them.
 */
LR_MUST_CHECK int lr_spool_pending(struct lr_store *st, int *runs, int64_t *bytes);

/*
 * Free bytes for this user on the file system of 'dir', or -1 when it does
 * not say. Needs no store: fsck asks before it opens one.
 */
int64_t lr_spool_disk_avail(const char *dir);

/*
 * Remove spool files no run needs: those of a recorder that died before its
 * run row existed, or after the row was final but before it cleaned up. A
 * file is stray when no running run has its uuid, nobody holds its lock and
 * it is older than 'min_age' seconds (a new recorder's lock exists, unheld,
 * for a moment between its creation and its flock). *removed counts files.
 */
LR_MUST_CHECK int lr_spool_sweep(struct lr_store *st, int min_age, int *removed);

#endif
