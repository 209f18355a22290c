/* libarchive, loaded on first use (see libarchive.h). */
#include "config.h"
#include "base/system.h"

#define LR_ARCHIVE_LOADER /* the names are libarchive's own here */

#include "evidence/libarchive.h"

#define LR_DYNLIB_TABLE lr_libarchive
LR_DYNLIB_DEFINE(lr_libarchive_load, LR_ARCHIVE_FUNCS, LIBARCHIVE_SONAME, "libarchive")
