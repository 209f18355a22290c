#ifndef LR_PUBLISH_H
#define LR_PUBLISH_H

/*
 * Archives copied to an S3-compatible bucket, and read back from one
 * (docs/remote.md, "Archives in a bucket"). Under the destination's prefix:
 *
 *   archives/SHA256.tar.zst      the archive ('labrun archive'), named by its digest
 *   archives/SHA256.intoto.json  an in-toto Statement (predicate
 *                                urn:labrun:archive:v1) in a DSSE envelope
 *                                signed with the store's key, whose subject
 *                                is the archive and its digest
 *
 * Neither is ever replaced. What is read back is data: its size is what the
 * bucket said before a byte is written here, its digest is computed here,
 * and the statement beside it counts only when a key the reader trusts
 * signed it for exactly those bytes. Nothing here prints.
 */

#include <stdint.h>

#include "base/error.h"
#include "base/sha256.h"
#include "base/sign.h"

struct lr_trust;

/* An archive copied to a bucket. */
struct lr_published {
	char *uri; /* s3:// URI of the copy, with the endpoint, region and style (malloc'd) */
	char sha256[LR_SHA256_HEX];
	int64_t size;
	int sent;              /* the archive was written by this call (0: the bucket held it) */
	int statement_sent;    /* and its statement */
	int statement_differs; /* the bucket held another statement for these bytes (it stays) */
};
void lr_published_release(struct lr_published *p);

/*
 * Copy archive 'path' to the bucket at 'uri' (an S3 remote's URI; 'name'
 * names it in messages) with its statement signed by 's' (NULL: unsigned),
 * the archive in parts when it is large (resumed as a push is), then
 * checked to be there with its size.
 */
LR_MUST_CHECK int lr_archive_publish(const char *name, const char *uri, const char *path, const struct lr_signer *s,
				     struct lr_published *p);

/*
 * The key of the statement beside archive copy 'key' (NAME.tar.zst ->
 * NAME.intoto.json) into out[size]; LR_EINVAL, for command 'who', when
 * 'key' is not an archive's name.
 */
LR_MUST_CHECK int lr_copy_statement_key(const char *who, const char *key, char *out, size_t size);

/* An archive read back from a bucket into a new directory under $TMPDIR. */
struct lr_fetched {
	char dir[4096];  /* the temporary directory, removed by lr_fetched_release */
	char path[4200]; /* the archive in it */
	char key[256];   /* its name in the bucket */
	char sha256[LR_SHA256_HEX];
	int64_t size;
	char *statement; /* the envelope beside it (malloc'd), NULL when there is none */
	size_t statement_len;
	int statement_over; /* there is one, over 1 MiB: not read */
};
void lr_fetched_release(struct lr_fetched *f);

/*
 * Read the archive at object URI 'uri' (s3://BUCKET/PREFIX/NAME.tar.zst?...)
 * and the statement beside it; 'who' names the command in messages.
 * LR_ENOTFOUND when the bucket has no such object, LR_EINVAL when the URI is
 * not an archive's, LR_EIO when this side cannot hold it (a full disk).
 */
LR_MUST_CHECK int lr_archive_fetch(const char *who, const char *uri, struct lr_fetched *f);

/*
 * The same for an archive and its statement already on this host (a
 * reviewer fetched both with the URLs 'labrun share' printed): nothing is
 * copied and nothing is removed; LR_EINVAL when the statement is over
 * 1 MiB or cannot be read.
 */
LR_MUST_CHECK int lr_fetched_local(const char *archive, const char *statement, struct lr_fetched *f);

/* The crate in the fetched archive, checked and unpacked into crate/ beside it (its path in dir[]). */
LR_MUST_CHECK int lr_fetched_unpack(const struct lr_fetched *f, char *dir, size_t size);

/*
 * Whether the copy holds: its digest is the one its name gives (when its
 * name is SHA256.tar.zst) and the statement beside it names exactly that
 * digest. LR_EREFUSED with why[] saying what does not hold (no statement,
 * not one, another digest). On 0, principal[] is the signer's principal
 * when a key 't' trusts signed the statement, else "" with why[] saying
 * why no signature counts (the caller decides whether that is allowed).
 */
LR_MUST_CHECK int lr_fetched_check(const struct lr_fetched *f, const struct lr_trust *t, char principal[128],
				   char why[512]);

#endif
