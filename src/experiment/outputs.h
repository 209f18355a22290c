#ifndef LR_EXPERIMENT_OUTPUTS_H
#define LR_EXPERIMENT_OUTPUTS_H

/*
 * A command execution's declared outputs and a definition's reference
 * files, hashed (and stored as objects) for parity. An output is a regular
 * file inside {outdir}: never an absolute path, a '..', or a link that
 * leads out of it, since outputs go into the store and every crate.
 */

#include <stddef.h>

#include "base/error.h"
#include "base/list.h"
#include "base/sha256.h"
#include "record/redact.h"
#include "store/experiments.h"

/*
 * The sha256 over files 'paths' (each "SIZE SHA256\n"), storing each as an
 * object when store_dir is given, with each one's path, size and sha256 in
 * outs when given. Paths are outputs of {outdir} 'dir', or with dir NULL
 * files named as they are. A file that is missing or refused puts the
 * reason into 'why' and stops (0 returned); an error returns its code. A
 * stored output holding a secret value of 'scrub' (may be NULL) is refused
 * that way: outputs are stored verbatim, so they are never scrubbed.
 */
LR_MUST_CHECK int lr_outputs_digest(const struct lr_strlist *paths, const char *dir, char hex[LR_SHA256_HEX],
				    struct lr_store_output *outs, const char *store_dir, struct lr_scrub *scrub,
				    char *why, size_t wlen);

#endif
