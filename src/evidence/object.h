#ifndef LR_EVIDENCE_OBJECT_H
#define LR_EVIDENCE_OBJECT_H

/*
 * The one way to read a stored object, wherever its bytes are: in objects/
 * (fetched first from the remote a lazy pull left it on), or in the archive
 * it was pruned to. Every reader (cat, show, manifest, scan, audit) goes
 * through it, so each serves only bytes that still hash to their name.
 */

#include "base/error.h"
#include "base/sha256.h"
#include "encode/npy.h"
#include "store/store.h"

enum lr_object_where {
	LR_OBJECT_NOWHERE,  /* not looked for yet, or found nowhere */
	LR_OBJECT_REMOTE,   /* still on the remote it was pulled from (the fetch failed) */
	LR_OBJECT_LOCAL,    /* in objects/: path */
	LR_OBJECT_ARCHIVED, /* pruned: member 'member' of archive 'archive' */
};

struct lr_object {
	char sha256[LR_SHA256_HEX];
	enum lr_object_where where;
	char *path;             /* LR_OBJECT_LOCAL: the file in objects/ */
	char *archive, *member; /* LR_OBJECT_ARCHIVED */
};

enum {
	LR_OBJECT_FETCH = 1,  /* fetch it from its remote when it is not here yet */
	LR_OBJECT_VERIFY = 2, /* re-hash a local object (LR_EIO naming it when it does not match) */
};

/*
 * Find object 'sha256' of 'st' (flags: LR_OBJECT_*). Returns 0 with o->where
 * LOCAL or ARCHIVED; LR_ENOTFOUND when it is in neither place; or the error
 * of the fetch (o->where REMOTE) or of the check. o is filled as far as it
 * got either way; release it with lr_object_release.
 */
LR_MUST_CHECK int lr_object_find(struct lr_store *st, const char *sha256, int flags, struct lr_object *o);

/*
 * Copy a found object's bytes to 'fd'; an archived member is checked against
 * the sha256 as it streams (LR_EIO naming it). fd -1: read and check only.
 */
LR_MUST_CHECK int lr_object_copy(const struct lr_object *o, int fd);

/* Map a found object read-only (an archived one through an anonymous file); lr_unmap releases it. */
LR_MUST_CHECK int lr_object_map(const struct lr_object *o, struct lr_mapped *m);

void lr_object_release(struct lr_object *o);

/*
 * Object 'sha256' of 'st', wherever its bytes are (fetched, or from its
 * archive), into a new file 'path' (its directories made): only what still
 * hashes to its name is written. LR_EIO when 'path' exists; the errors of
 * lr_object_find and lr_object_copy otherwise.
 */
LR_MUST_CHECK int lr_object_save(struct lr_store *st, const char *sha256, const char *path);

#endif
