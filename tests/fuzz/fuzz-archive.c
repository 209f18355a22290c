/*
 * libFuzzer target: archive verification and extraction. Whatever the
 * archive says, nothing may appear outside the extraction directory.
 */
#include "config.h"

#include "evidence/archive.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = lr_fuzz_file(data, size);
	int members;

	(void)lr_archive_verify(path, &members);
	(void)lr_archive_extract(path, lr_fuzz_dir(), &members);
	lr_fuzz_dir_clean();
	lr_fuzz_file_close();
	return 0;
}
