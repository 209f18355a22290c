/* libFuzzer target: the in-place JSON reader of streamed events, checked against jansson (tests/unit/jsondiff.h). */
#include "config.h"

#include "fuzz.h"
#include "../unit/jsondiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *why;
	struct lr_jdoc doc;
	struct lr_jval top;
	char diff[600];
	int bad;

	if (memchr(data, 0, size)) { /* jansson skips some NUL bytes (test-jsonscan.c): only the walk is exercised */
		if (lr_json_check(&doc, text, size, &top, &why, &bad) == 0)
			json_decref(jsondiff_tree(&top));
		return 0;
	}
	if (jsondiff(text, size, diff, sizeof diff)) {
		fprintf(stderr, "fuzz-jsonscan: %s\n", diff);
		abort();
	}
	return 0;
}
