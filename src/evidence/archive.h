#ifndef LR_LOGARCHIVE_H
#define LR_LOGARCHIVE_H

/*
 * Evidence archives (.tar.zst, written and read with libarchive): members
 * plus a SHA256SUMS member listing each one's sha256, so an archive can be
 * verified on its own. Extraction refuses, before writing anything,
 * absolute paths, '..' components, links that leave the target, and
 * anything but regular files and directories.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

struct lr_archive_writer;

/* Start writing 'path' (written to a temporary file, renamed at close). */
LR_MUST_CHECK int lr_archive_create(struct lr_archive_writer **out, const char *path);

/* Add a member from a file on disk (streamed) or from memory. */
LR_MUST_CHECK int lr_archive_add_file(struct lr_archive_writer *w, const char *name, const char *src_path);
LR_MUST_CHECK int lr_archive_add_buffer(struct lr_archive_writer *w, const char *name, const void *data, size_t len);

/* Append SHA256SUMS, finish, and rename into place; frees 'w' either way. */
LR_MUST_CHECK int lr_archive_close(struct lr_archive_writer *w);
void lr_archive_abort(struct lr_archive_writer *w);

/*
 * Re-hash every member of 'path' against its SHA256SUMS. *members counts
 * the regular files checked. LR_EIO naming the first bad member (changed,
 * missing from the list, or listed but absent).
 */
LR_MUST_CHECK int lr_archive_verify(const char *path, int *members);

/*
 * Extract 'path' into the existing directory 'dir' after checking every
 * entry; LR_EREFUSED naming the entry when one would escape 'dir', is not
 * a plain file or directory, or would overwrite an existing file. Nothing
 * is written when an entry is refused.
 */
LR_MUST_CHECK int lr_archive_extract(const char *path, const char *dir, int *members);

/*
 * The crate in archive 'path', into the existing empty directory 'dir':
 * every member checked against SHA256SUMS (*members counts them), then
 * extracted as lr_archive_extract does, then SHA256SUMS removed (a list no
 * one signs: the crate's own statements are what a reader checks).
 */
LR_MUST_CHECK int lr_archive_unpack(const char *path, const char *dir, int *members);

/*
 * Stream member 'member' of archive 'path' to file descriptor 'fd', checking
 * that its content hashes to 'sha256' (LR_EIO naming the member otherwise;
 * the bytes were written by then). LR_ENOTFOUND when there is no such member.
 */
LR_MUST_CHECK int lr_archive_read_member(const char *path, const char *member, const char *sha256, int fd);

#endif
