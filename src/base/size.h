#ifndef LR_SIZE_H
#define LR_SIZE_H

#include <stdint.h>

/*
 * A size as users write one: "1048576", "64K", "64M", "2G", "1T" (powers of
 * 1024; "KiB", "MiB", "GiB" and "TiB" as well). Bytes, or -1 when malformed,
 * negative or past 2^62.
 */
int64_t lr_size_parse(const char *s);

#endif
