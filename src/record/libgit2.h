#ifndef LR_RECORD_LIBGIT2_H
#define LR_RECORD_LIBGIT2_H

/*
 * libgit2, loaded when a command first reads a work tree (base/dynlib.h).
 * Linked in, it and its TLS, SSH and regex libraries were loaded by every
 * command. The calls keep their names: after including this header,
 * git_repository_open(...) is a call through the table lr_libgit2_load() filled.
 */

#include <git2.h>

#include "base/dynlib.h"

/* clang-format off */
#define LR_GIT_FUNCS(X) \
	X(git_buf_dispose) X(git_diff_free) X(git_diff_get_delta) X(git_diff_num_deltas) X(git_diff_options_init) \
	X(git_diff_print) X(git_diff_tree_to_workdir_with_index) X(git_error_last) X(git_libgit2_init) \
	X(git_libgit2_shutdown) X(git_object_free) X(git_object_peel) X(git_oid_tostr) X(git_reference_free) \
	X(git_reference_is_branch) X(git_reference_lookup) X(git_reference_peel) X(git_reference_shorthand) \
	X(git_reference_symbolic_target) X(git_reference_target) X(git_reference_type) X(git_repository_discover) \
	X(git_repository_free) X(git_repository_head) X(git_repository_is_bare) X(git_repository_open) \
	X(git_repository_open_ext) X(git_repository_workdir) X(git_revparse_single) X(git_status_byindex) \
	X(git_status_list_entrycount) X(git_status_list_free) X(git_status_list_new) X(git_status_options_init) \
	X(git_tree_free)
/* clang-format on */

/*
 * The table lr_libgit2, and lr_libgit2_load(), which loads the library once:
 * 0, or LR_ESTORE saying it is missing (and what to install).
 */
LR_DYNLIB_DECLARE(lr_libgit2, lr_libgit2_load, LR_GIT_FUNCS)

#ifndef LR_GIT_LOADER /* the loader names the functions themselves */
#define git_buf_dispose                     lr_libgit2.git_buf_dispose
#define git_diff_free                       lr_libgit2.git_diff_free
#define git_diff_get_delta                  lr_libgit2.git_diff_get_delta
#define git_diff_num_deltas                 lr_libgit2.git_diff_num_deltas
#define git_diff_options_init               lr_libgit2.git_diff_options_init
#define git_diff_print                      lr_libgit2.git_diff_print
#define git_diff_tree_to_workdir_with_index lr_libgit2.git_diff_tree_to_workdir_with_index
#define git_error_last                      lr_libgit2.git_error_last
#define git_libgit2_init                    lr_libgit2.git_libgit2_init
#define git_libgit2_shutdown                lr_libgit2.git_libgit2_shutdown
#define git_object_free                     lr_libgit2.git_object_free
#define git_object_peel                     lr_libgit2.git_object_peel
#define git_oid_tostr                       lr_libgit2.git_oid_tostr
#define git_reference_free                  lr_libgit2.git_reference_free
#define git_reference_is_branch             lr_libgit2.git_reference_is_branch
#define git_reference_lookup                lr_libgit2.git_reference_lookup
#define git_reference_peel                  lr_libgit2.git_reference_peel
#define git_reference_shorthand             lr_libgit2.git_reference_shorthand
#define git_reference_symbolic_target       lr_libgit2.git_reference_symbolic_target
#define git_reference_target                lr_libgit2.git_reference_target
#define git_reference_type                  lr_libgit2.git_reference_type
#define git_repository_discover             lr_libgit2.git_repository_discover
#define git_repository_free                 lr_libgit2.git_repository_free
#define git_repository_head                 lr_libgit2.git_repository_head
#define git_repository_is_bare              lr_libgit2.git_repository_is_bare
#define git_repository_open                 lr_libgit2.git_repository_open
#define git_repository_open_ext             lr_libgit2.git_repository_open_ext
#define git_repository_workdir              lr_libgit2.git_repository_workdir
#define git_revparse_single                 lr_libgit2.git_revparse_single
#define git_status_byindex                  lr_libgit2.git_status_byindex
#define git_status_list_entrycount          lr_libgit2.git_status_list_entrycount
#define git_status_list_free                lr_libgit2.git_status_list_free
#define git_status_list_new                 lr_libgit2.git_status_list_new
#define git_status_options_init             lr_libgit2.git_status_options_init
#define git_tree_free                       lr_libgit2.git_tree_free
#endif

#endif
