#ifndef LR_PACK_H
#define LR_PACK_H

/*
 * Evidence archives: the runs' RO-Crate packed into one .tar.zst with a
 * SHA256SUMS member (evidence/archive.h writes and reads the tar), and the
 * pruning of logs that then live only in such an archive. Nothing here
 * prints.
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Write the crate of runs[0..n) (lr_crate_write, titled 'title', with the
 * root files files[0..nfiles)) into the
 * new archive 'path': extracted, it is a valid crate again. On failure no
 * archive is left behind. The crate's licence, author and publisher are the
 * store's settings (lr_crate_opts_settle); *placeholder says the licence is one.
 */
struct lr_crate_opts;
LR_MUST_CHECK int lr_evidence_archive(struct lr_store *st, const int64_t *runs, int n, const char *path,
				      struct lr_crate_opts *co, int *placeholder);

/*
 * Remove from objects/ the logs that only these runs use, once archive
 * 'path' verifies and holds each of them: their new home is recorded first,
 * the objects unlinked after. *objects and *bytes count what was removed.
 */
LR_MUST_CHECK int lr_evidence_prune(struct lr_store *st, const int64_t *runs, int n, const char *path, size_t *objects,
				    long long *bytes);

#endif
