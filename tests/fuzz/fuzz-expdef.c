/* libFuzzer target: the experiment definition parser, as replay feeds it stored text. */
#include "config.h"

#include <stdlib.h>

#include "experiment/expdef.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = lr_fuzz_text(data, size);
	struct lr_expdef d;

	(void)lr_expdef_load(&d, "fuzz.ini", text);
	lr_expdef_release(&d);
	free(text);
	return 0;
}
