/* libgit2, loaded on first use (see libgit2.h). */
#include "config.h"
#include "base/system.h"

#define LR_GIT_LOADER /* the names are libgit2's own here */

#include "record/libgit2.h"

#define LR_DYNLIB_TABLE lr_libgit2
LR_DYNLIB_DEFINE(lr_libgit2_load, LR_GIT_FUNCS, LIBGIT2_SONAME, "libgit2")
