#ifndef LR_EXPERIMENT_OUTPUTS_H
#define LR_EXPERIMENT_OUTPUTS_H

/*
 * A command execution's declared outputs and a definition's reference
 * files, hashed (and stored as objects) for parity; and the one path rule
 * for every file named inside a run's work area (outputs, responses): a
 * regular file inside {outdir}, never an absolute path, a '..', or a link
 * that leads out of it, since what is read goes into the store and every crate.
 */

#include <stddef.h>

#include "base/error.h"
#include "base/list.h"
#include "base/sha256.h"
#include "record/redact.h"
#include "store/experiments.h"

/*
 * The one path rule for every file a definition or a user names inside a
 * run's work area ({outdir}: outputs, responses, and any later kind): a name
 * relative to {outdir}, never absolute, never with '..', and no two names of
 * 'names' for the same file or for a file and its directory. 0 always but on
 * an error; a refused name puts why ("KIND 'NAME' is ...") into 'why'. Run at
 * definition load on the names as written, and again once placeholders are
 * filled in.
 */
LR_MUST_CHECK int lr_work_names_check(const char *kind, const struct lr_strlist *names, char *why, size_t wlen);

/*
 * The file 'rel' of {outdir} 'dir' as the regular file it is, in real (of
 * PATH_MAX bytes at least): lr_work_names_check, then no link that leads out
 * of the directory (what is read goes into the store and every crate), and a
 * regular file only (never a FIFO or a device). Else why it is refused, or
 * that it is missing, in why (0 returned); an error returns its code.
 */
LR_MUST_CHECK int lr_work_file(const char *dir, const char *kind, const char *rel, char *real, char *why, size_t wlen);

/*
 * The sha256 over files 'paths' (each "SIZE SHA256\n"), storing each as an
 * object when store_dir is given, with each one's path, size and sha256 in
 * outs when given, *nouts (may be NULL) counting the entries of outs filled
 * in: none when the names break the path rule. Paths are outputs of
 * {outdir} 'dir', or with dir NULL files named as they are. A file that is
 * missing or refused puts the reason into 'why' and stops (0 returned); an
 * error returns its code. A stored output holding a secret value of 'scrub'
 * (may be NULL) is refused that way: outputs are stored verbatim, so they
 * are never scrubbed.
 */
LR_MUST_CHECK int lr_outputs_digest(const struct lr_strlist *paths, const char *dir, char hex[LR_SHA256_HEX],
				    struct lr_store_output *outs, int *nouts, const char *store_dir,
				    struct lr_scrub *scrub, char *why, size_t wlen);

#endif
