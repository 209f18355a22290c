/*
 * libFuzzer target: the screening of 'labrun sql' statements (one read-only
 * statement, no attach, no denied function) against a real store.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "store/store.h"

static struct lr_store *st;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[128];
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof dir, "%s/lr-fuzz-sql-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || lr_store_open(&st, dir, LR_STORE_CREATE))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sql = lr_fuzz_text(data, size);

	(void)lr_store_sql_screen(st, sql);
	free(sql);
	return 0;
}
