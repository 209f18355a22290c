#ifndef LR_VERIFY_PATH_H
#define LR_VERIFY_PATH_H

/*
 * What 'labrun verify PATH' and 'labrun archive --verify FILE' both run: a
 * crate directory, or an archive unpacked first, checked by every part of
 * verify (evidence/verify.h). Nothing here prints.
 */

#include "evidence/verify.h"

/*
 * Check the crate or archive at 'path' against 't' as lr_crate_verify,
 * lr_verify_report and lr_verify_site do, in that order ('allow_unsigned',
 * 'fn', 'arg', 'problems' and 'v' as there; release v with
 * lr_verified_release). An archive (a path that is not a directory) has
 * every member re-hashed against its SHA256SUMS first (*members counts them;
 * 0 for a directory), and is extracted without that unsigned list into a new
 * directory under $TMPDIR, removed before this returns. Returns an error
 * only when the check could not run: a path that is not there, an archive
 * whose SHA256SUMS does not hold or that cannot be extracted (LR_EIO or
 * LR_EREFUSED naming the member), not a crate of labrun's (LR_ENOTFOUND).
 */
LR_MUST_CHECK int lr_verify_path(const char *path, const struct lr_trust *t, int allow_unsigned, lr_verify_fn fn,
				 void *arg, int *problems, int *members, struct lr_verified *v);

#endif
