#ifndef LR_STORE_REMOTE_H
#define LR_STORE_REMOTE_H

/*
 * Runs between stores. A run travels as a bundle: every row of the run as
 * its own store keeps it, its seal and its ledger entries, in one compact
 * JSON text (docs/schema.md, "Run bundles"). A remote is a PostgreSQL
 * database holding bundles and objects (schema/pg/); libpq is spoken here
 * and nowhere else. Errors about a remote name it, never its password, and
 * are LR_ESTORE (exit 3) unless the remote refused one run (LR_EREFUSED).
 */

#include "base/error.h"
#include <stdint.h>

#include "base/model.h"
#include "base/sha256.h"
#include "store/store.h"

#define LR_BUNDLE_FORMAT 1 /* the "labrun_bundle" number this labrun writes and reads */

struct lr_bundle {
	char *text;                 /* the bundle, exactly as hashed */
	char sha256[LR_SHA256_HEX]; /* of 'text' */
	char uuid[37];
	char *kind, *status, *hostname, *started_at;
	char seal[LR_SHA256_HEX]; /* the run's seal digest in its origin store */
	struct lr_strlist issues;
	struct lr_kvlist objects; /* sha256 -> size in bytes (decimal) */
	struct lr_strlist needs;  /* uuids of other runs its rows point at (replays, comparisons) */
	struct lr_kvlist signers; /* lr_bundle_parse: each signed ledger entry's seq -> its public key (hex) */
};
void lr_bundle_release(struct lr_bundle *b);

/*
 * The bundle of final run 'id': built from its rows, or for a run that came
 * from a remote the bundle it came in (so it travels on unchanged).
 * LR_EINVAL for a run still running or never sealed.
 */
LR_MUST_CHECK int lr_store_run_bundle(struct lr_store *st, int64_t id, struct lr_bundle *b);

/*
 * The bundle of final run 'id' as this store holds it, for a crate: built
 * from its rows here, with this store's ids, seal and ledger entries, so it
 * agrees with the crate's ledger, report and run numbers. A pulled run's
 * ledger entries are preceded by the design entries its origin registered.
 */
LR_MUST_CHECK int lr_store_run_bundle_here(struct lr_store *st, int64_t id, struct lr_bundle *b);

/*
 * Read a bundle received from elsewhere and check it: its sha256 is
 * 'sha256', its rows still give the seal it carries, and its ledger entries
 * link that seal, each with a valid digest and signature. LR_EINVAL (the
 * message says what does not hold) when it is not sound.
 */
LR_MUST_CHECK int lr_bundle_parse(struct lr_bundle *b, const char *text, const char *sha256);

/*
 * Insert a checked bundle as a new run of this store, in one transaction:
 * its rows with this store's ids, its objects' rows (the files must already
 * be in objects/ unless 'lazy', which records them as fetched from 'remote'
 * on first read), a pulled_run row, the run's seal and ledger entry here.
 * *id gets the new run's id. LR_EINVAL when a run it needs is not here.
 */
struct lr_pull_origin {
	const char *remote, *pushed_by, *pushed_from;
	int lazy;
	int keep_ids; /* rows keep the ids of the store that wrote the bundle: for verify's throwaway store only */
};
LR_MUST_CHECK int lr_store_run_adopt(struct lr_store *st, const struct lr_bundle *b, const struct lr_pull_origin *o,
				     int64_t *id);

/*
 * Whether run 'uuid' is in this store: *id 0 when not; *sha256 (when not
 * NULL, malloc'd) the sha256 of its bundle, computed or as pulled.
 */
LR_MUST_CHECK int lr_store_uuid_find(struct lr_store *st, const char *uuid, int64_t *id, char **sha256);

/* Check the origin of a pulled run: its bundle still gives the seal and signatures it came with.
 * 'problem' is called with each finding; *pulled is 0 for a run recorded here. */
LR_MUST_CHECK int lr_store_pulled_check(struct lr_store *st, int64_t id, lr_str_fn problem, void *arg, int *pulled);

/*
 * The pulled runs that came unsigned (no ledger entry of the bundle they came
 * in has a signature) from a host whose runs came signed before them (a
 * pulled run of the same host, started earlier, had signed entries): 'fn'
 * gets each one's id here, its uuid, its host's name and the uuid of that
 * host's first run that came signed, in id order; a non-zero return stops.
 */
typedef int (*lr_unsigned_fn)(void *arg, int64_t id, const char *uuid, const char *hostname, const char *signed_uuid);
LR_MUST_CHECK int lr_store_pulled_unsigned(struct lr_store *st, lr_unsigned_fn fn, void *arg);

/* ---- the remotes of a store (table 'remote') ---- */

/*
 * Add remote 'name' at 'uri', its objects in bucket 'objects' (an s3:// URI
 * for a PostgreSQL remote; NULL: in the remote): LR_EINVAL for a bad name, a
 * URI with a password or secret, 'objects' with an S3 remote, or a name in use.
 */
LR_MUST_CHECK int lr_store_remote_add(struct lr_store *st, const char *name, const char *uri, const char *objects);
LR_MUST_CHECK int lr_store_remote_remove(struct lr_store *st, const char *name);
/*
 * *uri (malloc'd) of remote 'name'; with 'name' NULL the only remote (LR_EINVAL when there are several).
 * *objects (when not NULL; malloc'd, NULL when none) the bucket of its objects.
 */
LR_MUST_CHECK int lr_store_remote_get(struct lr_store *st, const char *name, char **name_out, char **uri,
				      char **objects);
typedef int (*lr_remote_fn)(void *arg, const char *name, const char *uri, const char *added_at, const char *objects);
LR_MUST_CHECK int lr_store_remotes(struct lr_store *st, lr_remote_fn fn, void *arg);

/* ---- a connection to a remote (remote.c) ---- */

struct lr_remote;

/*
 * Connect to remote 'name' at 'uri' and check its schema: LR_ESTORE when it
 * cannot be reached, refuses the credentials, has no labrun schema (unless
 * 'for_init') or a newer one than this labrun knows. 'objects' (NULL: none)
 * is the s3:// URI of a bucket a PostgreSQL remote keeps its objects in:
 * objects are then written and read there, its rows in the database.
 */
LR_MUST_CHECK int lr_remote_open(struct lr_remote **out, const char *name, const char *uri, const char *objects,
				 int for_init);
void lr_remote_free(struct lr_remote *r);

/* Apply the pending migrations of schema/pg/ in one transaction; *applied counts them. */
LR_MUST_CHECK int lr_remote_init(struct lr_remote *r, int *applied, int *version);

/*
 * Copy object 'sha256' (of 'size' bytes) from the store in 'store_dir' to
 * the remote unless it is there, streamed in chunks in one transaction;
 * *sent is 1 when this call sent it.
 */
LR_MUST_CHECK int lr_remote_put_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size,
				       int *sent);

/* Whether the remote holds run 'uuid' (with whatever bundle). */
LR_MUST_CHECK int lr_remote_has_run(struct lr_remote *r, const char *uuid, int *has);

/* What happened to one run in a push or a pull (evidence/sync.c says, report/sync.c names). */
enum lr_sync_event {
	LR_SYNC_PUSHED,
	LR_SYNC_PULLED,
	LR_SYNC_PRESENT,
	LR_SYNC_REFUSED,
	LR_SYNC_SKIPPED,
	LR_SYNC_UNSIGNED
};

/* What a push or a pull did, counted. */
struct lr_sync_stats {
	int runs_new, runs_present, runs_refused, runs_skipped;
	int objects_moved, objects_present;
	int64_t bytes_moved;
};

/* Outcomes of lr_remote_put_run. */
enum { LR_PUSH_NEW = 1, LR_PUSH_PRESENT = 2 };

/*
 * Write run bundle 'b' (its objects already there) in one transaction.
 * *outcome: LR_PUSH_NEW, or LR_PUSH_PRESENT when the same bundle is there;
 * LR_EREFUSED when the remote holds the uuid with other content.
 */
LR_MUST_CHECK int lr_remote_put_run(struct lr_remote *r, const struct lr_bundle *b, const char *from_host,
				    int *outcome);

/* Which runs to pull: any of these that are set must hold. */
struct lr_remote_filter {
	const char *issue;              /* normalised issue reference */
	const char *host;               /* hostname the run was recorded on */
	const struct lr_strlist *uuids; /* uuids or their prefixes */
};
typedef int (*lr_remote_run_fn)(void *arg, const char *uuid, const char *sha256);
/* Every matching run, oldest push first. */
LR_MUST_CHECK int lr_remote_runs(struct lr_remote *r, const struct lr_remote_filter *f, lr_remote_run_fn fn, void *arg);

#define LR_BUNDLE_MAX ((int64_t)256 << 20) /* bytes of a pulled run's bundle: 256 MiB */

/* The bytes a pulled bundle may have: $LABRUN_MAX_BUNDLE when a positive number, else LR_BUNDLE_MAX. */
int64_t lr_bundle_max(void);

/*
 * Run 'uuid's bundle text (malloc'd) and who pushed it from where (malloc'd).
 * A bundle larger than lr_bundle_max() is refused (LR_EINVAL naming the run,
 * its size and the cap) before it is transferred.
 */
LR_MUST_CHECK int lr_remote_get_run(struct lr_remote *r, const char *uuid, char **text, char **sha256, char **pushed_by,
				    char **pushed_from);

/*
 * Stream object 'sha256' into objects/ of 'store_dir', checking its hash;
 * LR_ENOTFOUND when the remote lacks it. 'size' is what the run that names
 * it says (-1: unknown): a remote that holds another size is refused before
 * a byte is written, and never more than 'size' bytes are.
 */
LR_MUST_CHECK int lr_remote_get_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size);

/*
 * Make object 'sha256' present in objects/: a no-op when it is, else fetch
 * it from the remote it was lazily pulled from. LR_ENOTFOUND when it is
 * neither here nor known on a remote.
 */
LR_MUST_CHECK int lr_store_object_fetch(struct lr_store *st, const char *sha256);

#endif
