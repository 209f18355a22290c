/* libFuzzer target: the .npy header parser, over a whole file's bytes. */
#include "config.h"

#include "encode/npy.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_npy_header h;

	(void)lr_npy_parse(&h, data, size, "fuzz.npy");
	return 0;
}
