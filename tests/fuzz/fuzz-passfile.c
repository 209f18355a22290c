/*
 * libFuzzer target: the pass-file reader (serving/passfile.c). A file it
 * reads is written back by lr_passfile_write, and that text must read back
 * and write again the same: what is stored from a pass file is what it says.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/error.h"
#include "serving/passfile.h"

/* pf written to memory, NUL-terminated (malloc'd). */
static char *written(const struct lr_passfile *pf, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f || lr_passfile_write(f, &pf->pass, pf->req, pf->n) || fclose(f))
		abort();
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_passfile pf, again;
	char *one, *two;
	size_t n1, n2;
	int rc = lr_passfile_read(lr_fuzz_file(data, size), NULL, &pf);

	if (rc && rc != LR_EDATA) /* a malformed file is LR_EDATA, and nothing else is wrong with a memory file */
		abort();
	if (!rc) {
		one = written(&pf, &n1);
		if (lr_passfile_read(lr_fuzz_file((const uint8_t *)one, n1), NULL, &again)) {
			fprintf(stderr, "fuzz-passfile: what it wrote does not read: %s\n", lr_error_msg());
			abort();
		}
		two = written(&again, &n2);
		if (n1 != n2 || memcmp(one, two, n1)) {
			fprintf(stderr, "fuzz-passfile: written again differently:\n%s\n%s\n", one, two);
			abort();
		}
		free(one);
		free(two);
		lr_passfile_release(&again);
	}
	lr_passfile_release(&pf);
	lr_fuzz_file_close();
	return 0;
}
