#ifndef LR_STORE_REMOTE_INT_H
#define LR_STORE_REMOTE_INT_H

/*
 * A remote's kinds behind one interface (remote.h): a PostgreSQL database
 * (remote-pg.c) or a bucket of an S3-compatible object store
 * (remote-s3.c). remote.c picks one by the remote's URI and calls through
 * its table; each kind embeds struct lr_remote first in its own.
 */

#include "store/remote.h"

struct lr_remote_ops {
	int (*init)(struct lr_remote *r, int *applied, int *version);
	int (*put_object)(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size, int *sent);
	int (*has_run)(struct lr_remote *r, const char *uuid, int *has);
	int (*put_run)(struct lr_remote *r, const struct lr_bundle *b, const char *from_host, int *outcome);
	int (*runs)(struct lr_remote *r, const struct lr_remote_filter *f, lr_remote_run_fn fn, void *arg);
	int (*get_run)(struct lr_remote *r, const char *uuid, char **text, char **sha256, char **pushed_by,
		       char **pushed_from);
	int (*get_object)(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size);
	void (*free)(struct lr_remote *r);
};

struct lr_remote {
	const struct lr_remote_ops *ops;
	char *name;
	struct lr_s3 *objects; /* a PostgreSQL remote's objects in a bucket (remote add --objects); else NULL */
	char *objects_uri;     /* that bucket's URI */
};

/*
 * The objects of remote 'name' in bucket 's3', as objects/SHA256 under its
 * prefix (remote-s3.c): an S3 remote's own, or a PostgreSQL remote's sent
 * there. The put and get of struct lr_remote_ops.
 */
struct lr_s3;
LR_MUST_CHECK int lr_s3_object_put(struct lr_s3 *s3, const char *name, const char *store_dir, const char *sha256,
				   int64_t size, int *sent);
LR_MUST_CHECK int lr_s3_object_get(struct lr_s3 *s3, const char *name, const char *store_dir, const char *sha256,
				   int64_t expect);

/* (bundle.c) LR_EIO naming the object when remote 'remote' holds 'holds' bytes of it and the run says 'size' (-1: unknown). */
LR_MUST_CHECK int lr_remote_size_differs(const char *remote, const char *sha256, int64_t holds, int64_t size);

/* Open each kind (remote.h's lr_remote_open says what they check). */
LR_MUST_CHECK int lr_remote_pg_open(struct lr_remote **out, const char *name, const char *uri, int for_init);
LR_MUST_CHECK int lr_remote_s3_open(struct lr_remote **out, const char *name, const char *uri, int for_init);

#endif
