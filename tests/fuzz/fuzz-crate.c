/*
 * libFuzzer target: a crate's statements as verify reads them
 * (evidence/verify.c). A copy of tests/fixtures/verify-old is made once;
 * each input replaces one of its statements (the first byte says which:
 * the crate's, the ledger head's, run 1's or run 2's) and the crate is
 * verified as 'labrun verify --allow-unsigned' does, so that a statement
 * no trusted key signed is still read. The statement is put back after.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/error.h"
#include "base/trust.h"
#include "evidence/verify.h"

static const char *const statements[] = { "crate.intoto.json", "ledger-head.intoto.json", "run-1/run.intoto.json",
					  "run-2/run.intoto.json" };
static char crate[128];
static struct lr_trust trust;

static void once(void)
{
	char cmd[512];

	if (crate[0])
		return;
	if (access("/dev/shm", W_OK) == 0) /* the throwaway stores' fsyncs: 7 executions a second on disk */
		setenv("TMPDIR", "/dev/shm", 0);
	snprintf(crate, sizeof crate, "%s/crate", lr_fuzz_dir());
	snprintf(cmd, sizeof cmd, "cp -R '%s/verify-old/crate' '%s'", LR_FUZZ_FIXTURES, crate);
	if (system(cmd) || lr_trust_add_file(&trust, LR_FUZZ_FIXTURES "/verify-old/lab.pub.pem"))
		abort();
}

static void put(const char *rel, const void *data, size_t size)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", crate, rel);
	if (!(f = fopen(path, "w")) || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

static void ignore(void *arg, const char *file, const char *problem)
{
	(void)arg;
	(void)file;
	(void)problem;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], *orig = NULL;
	struct lr_verified v;
	const char *rel;
	size_t olen = 0;
	int problems = 0, rc;
	FILE *f;

	if (!size)
		return 0;
	once();
	rel = statements[data[0] % 4];
	snprintf(path, sizeof path, "%s/verify-old/crate/%s", LR_FUZZ_FIXTURES, rel);
	if (!(f = fopen(path, "r")) || getdelim(&orig, &olen, 0, f) < 0 || fclose(f))
		abort();
	olen = strlen(orig);
	put(rel, data + 1, size - 1);
	memset(&v, 0, sizeof v);
	rc = lr_crate_verify(crate, &trust, 1, ignore, NULL, &problems, &v);
	if (rc && rc != LR_ENOTFOUND && rc != LR_ENOMEM)
		abort();
	lr_verified_release(&v);
	put(rel, orig, olen);
	free(orig);
	return 0;
}
