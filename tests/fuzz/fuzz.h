/*
 * Shared by the libFuzzer targets: each hands the fuzzer's bytes to one of
 * labrun's parsers the way the tool does (as text, or as a file by path).
 */
#ifndef LR_FUZZ_H
#define LR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* A file holding exactly 'data', as "/proc/self/fd/N"; lr_fuzz_file_close() ends it. */
const char *lr_fuzz_file(const uint8_t *data, size_t size);
void lr_fuzz_file_close(void);

/* 'data' as a NUL-terminated string (owned by the caller). */
char *lr_fuzz_text(const uint8_t *data, size_t size);

/* A fresh empty directory under a private parent, and the check that the parent holds nothing else. */
const char *lr_fuzz_dir(void);
void lr_fuzz_dir_clean(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
