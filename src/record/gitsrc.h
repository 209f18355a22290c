#ifndef LR_GITSRC_H
#define LR_GITSRC_H

#include "base/error.h"
#include "base/model.h"
#include "store/hashcache.h"
#include "store/store.h"

/*
 * libgit2 is initialised on first use by the functions below (it costs about
 * 3 ms, which commands that never read sources should not pay); lr_git_stop()
 * shuts it down if it was, and is called once a command has ended.
 */
void lr_git_stop(void);

/*
 * Capture the state of the git work tree enclosing 'cwd' into run->source
 * and run->files: HEAD, branch, dirty flag, sha256 of the patch from HEAD
 * to the work tree (index and work tree, binary content included) followed
 * by each untracked file's path and sha256, and the sha256 and size of
 * every modified or untracked file. With 'st', unchanged files' hashes come
 * from the store's cache (lr_store_hash_cached) instead of being read.
 * Paths under 'exclude_dir' (the store, when it lives inside the work
 * tree) are skipped. Outside any repository run->source.present stays 0.
 */
LR_MUST_CHECK int lr_git_capture(struct lr_run *run, struct lr_store *st, const char *cwd, const char *exclude_dir);

/*
 * The top of the (non-bare) git work tree enclosing 'cwd', malloc'd into
 * *out; NULL outside any work tree.
 */
LR_MUST_CHECK int lr_git_worktree(char **out, const char *cwd);

/*
 * The files of the work tree enclosing 'cwd' that differ from revision
 * 'rev' (changed, added, untracked; not deleted), as absolute paths.
 */
LR_MUST_CHECK int lr_git_changed(struct lr_strlist *out, const char *cwd, const char *rev);

/* Hash --source paths (files or directories) into run->files as 'external'. */
LR_MUST_CHECK int lr_source_add_external(struct lr_run *run, const char *path);

#endif
