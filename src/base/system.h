#ifndef LR_BASE_SYSTEM_H
#define LR_BASE_SYSTEM_H

/*
 * The C library and POSIX headers that nearly every file of labrun uses, in
 * one place (as git's git-compat-util.h and curl's curl_setup.h do), included
 * right after config.h. A header that only a few files need (poll.h,
 * signal.h, a library's own) stays in those files, so what a file depends on
 * beyond the basics is still visible in it.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/banned.h"

#endif
