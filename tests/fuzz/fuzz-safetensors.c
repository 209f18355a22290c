/* libFuzzer target: the safetensors reader (header JSON, offsets against the file). */
#include "config.h"

#include "fuzz.h"
#include "import/kvsrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = lr_fuzz_file(data, size);
	struct lr_kvsrc s;

	if (!lr_kvsrc_safetensors(&s, path, NULL, 0))
		lr_kvsrc_release(&s);
	if (!lr_kvsrc_safetensors(&s, path, "kv", 1))
		lr_kvsrc_release(&s);
	lr_fuzz_file_close();
	return 0;
}
