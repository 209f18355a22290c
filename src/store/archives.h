#ifndef LR_STORE_ARCHIVES_H
#define LR_STORE_ARCHIVES_H

/* Registrations with research hubs, and objects pruned into archives (store/archives.c). */

#include "store/store.h"

/* A crate's registration with a research hub. */
struct lr_registration {
	int64_t id;
	const char *hub;
	const char *path;        /* the crate's directory, or the s3:// URI of its archive's copy */
	const char *sha;         /* sha256 of its ro-crate-metadata.json */
	const char *archive_sha; /* the copy's sha256 as read back from its bucket; NULL for a directory */
	const char *when;
	const char *runs; /* its runs' ids, "3 5" */
};

/* Record registration 'g' (its id, time and runs aside) of the runs (by uuid) it describes; *id gets its short id. */
LR_MUST_CHECK int lr_store_register(struct lr_store *st, const struct lr_registration *g,
				    const struct lr_strlist *run_uuids, int64_t *id);

/* Each registration, oldest first. */
typedef int (*lr_registration_fn)(void *arg, const struct lr_registration *g);
LR_MUST_CHECK int lr_store_registrations(struct lr_store *st, lr_registration_fn fn, void *arg);

/* Where a pruned object lives: malloc'd archive path and member; LR_ENOTFOUND when it was never pruned. */
LR_MUST_CHECK int lr_store_archived(struct lr_store *st, const char *sha256, char **archive, char **member);

/* Every pruned object: its sha256, archive path and member, by sha256. */
typedef int (*lr_archived_fn)(void *arg, const char *sha256, const char *archive, const char *member);
LR_MUST_CHECK int lr_store_archived_each(struct lr_store *st, lr_archived_fn fn, void *arg);

/* How many pruned objects live in archive 'path' (an absolute path). */
LR_MUST_CHECK int lr_store_archive_holds(struct lr_store *st, const char *path, int64_t *objects);

/* Record that objects were archived as members of 'archive' (one transaction). */
LR_MUST_CHECK int lr_store_mark_archived(struct lr_store *st, const char *archive,
					 const struct lr_kvlist *sha_to_member);

/*
 * Objects that only logs (stdout, stderr, log) of the runs in 'runs' refer
 * to: candidates for pruning. 'fn' gets each log's object, run, role and
 * name (an object shared by several logs comes once per log).
 */
typedef int (*lr_log_fn)(void *arg, const char *sha256, int64_t run, const char *role, const char *name);
LR_MUST_CHECK int lr_store_prunable_logs(struct lr_store *st, const int64_t *runs, int n, lr_log_fn fn, void *arg);

#endif
