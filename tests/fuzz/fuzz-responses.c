/* libFuzzer target: the serving harness's responses reader (JSON Lines). */
#include "config.h"

#include "fuzz.h"
#include "serving/serving.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t cases;

	(void)lr_responses_check(lr_fuzz_file(data, size), &cases);
	lr_fuzz_file_close();
	return 0;
}
