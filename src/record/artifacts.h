#ifndef LR_ARTIFACTS_H
#define LR_ARTIFACTS_H

#include "base/error.h"
#include "base/model.h"
#include "record/redact.h"

/*
 * Store the declared artifact 'path' under 'role': each regular file by
 * content, a symlink as a link (its target as content; with 'follow', what
 * it points to, recorded as followed), an empty directory by name. A missing
 * path is appended as absent (*missing set). Secret content and special
 * files are refused (LR_EREFUSED).
 */
LR_MUST_CHECK int lr_artifact_put(struct lr_run *run, const char *store_dir, const char *role, const char *path,
				  struct lr_scrub *scrub, int follow, int *missing);

#endif
