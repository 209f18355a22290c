#ifndef LR_OBJECTS_H
#define LR_OBJECTS_H

/*
 * Content-addressed files under <store>/objects/: a file's name is the
 * sha256 of its content (objects/ab/cdef...). Objects are written to a
 * temporary file, fsync'ed and renamed into place, so a reader never sees
 * a partial object and a crash leaves at most a stray temporary file.
 * These functions touch files only; registering an object in the database
 * is the store layer's job.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

#include "base/sha256.h"

struct lr_objw;

/*
 * Start writing an object. With 'tmp_path' NULL the content goes to a fresh
 * temporary file in objects/tmp/; otherwise to 'tmp_path', which must not
 * exist and must be on the store's file system (spool files use this so a
 * crashed recorder's partial log can be found and adopted later).
 * On success *out belongs to the caller until _commit or _abort.
 */
LR_MUST_CHECK int lr_objw_open(struct lr_objw **out, const char *store_dir, const char *tmp_path);

/*
 * Install by hard link at commit and leave the temporary file in place, for
 * a spool file that must survive until the database references the object.
 */
void lr_objw_keep_tmp(struct lr_objw *w);

/* Append bytes, updating the hash. LR_EIO on a write error. */
LR_MUST_CHECK int lr_objw_write(struct lr_objw *w, const void *data, size_t len);

/*
 * Before the first write: hash the object from a map of its file, on a
 * thread of its own begun by lr_objw_map (and joined by commit), instead of
 * as it is written, so that a caller reading a large object back hashes it
 * on another CPU meanwhile. The digest is of the same bytes either way.
 */
void lr_objw_defer_hash(struct lr_objw *w);

/* Flush what was written to the temporary file (no fsync), so readers of
 * the spool file see it. */
LR_MUST_CHECK int lr_objw_flush(struct lr_objw *w);

/*
 * What was written so far, flushed and mapped read-only in *p (*n bytes;
 * nothing when 0), to read it back before it is committed: what is read is
 * what the object holds. munmap((void *)*p, *n) when done. The bytes
 * start on their way to the disk meanwhile (sync_file_range), so that
 * commit's fsync has less to wait for.
 */
LR_MUST_CHECK int lr_objw_map(struct lr_objw *w, const char **p, size_t *n);

/*
 * fsync, rename into objects/, fsync the directory, free 'w'. Stores the
 * digest and size. If the object already exists the temporary file is
 * removed (same content, same name), unsynced: the object's bytes are
 * durable already, and only its directory is synced. 'w' is freed even on
 * failure.
 */
LR_MUST_CHECK int lr_objw_commit(struct lr_objw *w, char hex[LR_SHA256_HEX], int64_t *size);

/* Remove the temporary file (unless kept) and free 'w'; safe with NULL. */
void lr_objw_abort(struct lr_objw *w);

/*
 * Copy the file at 'path' into the store by streaming it; stores digest and
 * size. 'scan', when not NULL, sees every chunk and may refuse the content by
 * returning non-zero (with a message set): nothing is stored then.
 */
typedef int (*lr_obj_scan_fn)(void *arg, const void *data, size_t len);
LR_MUST_CHECK int lr_obj_put_file(const char *store_dir, const char *path, char hex[LR_SHA256_HEX], int64_t *size,
				  lr_obj_scan_fn scan, void *scan_arg);

/*
 * Install an existing file (on the store's file system) into objects/
 * without copying: hash it, fsync it, hard-link it into place. The file
 * itself stays; the caller removes it once the database references the
 * object. Used to adopt a dead recorder's spool.
 */
LR_MUST_CHECK int lr_obj_adopt(const char *store_dir, const char *path, char hex[LR_SHA256_HEX], int64_t *size);

/* Path of an object in a malloc'd string; NULL on allocation failure. */
char *lr_obj_path(const char *store_dir, const char *hex);

/* Re-hash an object: 0 when it exists and matches its name, LR_ENOTFOUND
 * when missing, LR_EIO (message names the object) when corrupt. */
LR_MUST_CHECK int lr_obj_verify(const char *store_dir, const char *hex);

/*
 * How far a transfer of object or key 'name' has come, for the progress
 * line (base/progress.h's step): 'done' of 'total' bytes, shown only for
 * transfers of 1 MiB or more, named by its last path component, cut short.
 */
void lr_obj_step(const char *name, int64_t done, int64_t total);

/*
 * Remove object 'hex' from objects/, once the database records where its
 * bytes live instead (an archive: lr_store_mark_archived). *freed gets the
 * bytes it held; LR_ENOTFOUND when it was not there, LR_EIO when it stays.
 */
LR_MUST_CHECK int lr_obj_remove(const char *store_dir, const char *hex, int64_t *freed);

/* fsync a directory; 0 or LR_EIO. */
LR_MUST_CHECK int lr_fsync_dir(const char *dir);

/* mkdir -p for one level below an existing parent: 0 if it exists or was made. */
LR_MUST_CHECK int lr_mkdir1(const char *dir);

/* LR_EIO for a failed write of 'path': a full disk, a quota or 'ulimit -f' said as such, with a hint. */
int lr_obj_write_error(const char *path, int err);

/*
 * Remove the temporary files of object writers that died (where the file
 * system has no O_TMPFILE, or left by an older labrun): named files in
 * objects/tmp nobody holds the lock of, at least 'min_age' seconds old.
 * *removed and *bytes count what went.
 */
LR_MUST_CHECK int lr_obj_sweep_tmp(const char *store_dir, int min_age, int *removed, int64_t *bytes);

#endif
