/*
 * libFuzzer target: DSSE envelopes (base/dsse.c), as verify opens each
 * statement of a crate: the input as JSON, its signatures held to the key
 * that signed tests/fixtures/verify-old (so a seed's own signature verifies
 * and the fuzzer reaches the payload as well as the refusals).
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/dsse.h"
#include "base/error.h"
#include "base/trust.h"

static struct lr_trust trust;
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_dsse_opened o;
	json_t *env;
	int rc;

	if (!loaded && lr_trust_add_file(&trust, LR_FUZZ_FIXTURES "/verify-old/lab.pub.pem"))
		abort();
	loaded = 1;
	if (!(env = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL)))
		return 0;
	memset(&o, 0, sizeof o);
	rc = lr_dsse_open(env, &trust, NULL, 0, &o);
	if (rc && rc != LR_EINVAL && rc != LR_EREFUSED)
		abort();
	if (rc != LR_EINVAL && (!o.type || (o.len && !o.payload) || (o.payload && strlen(o.payload) > o.len)))
		abort(); /* an envelope opened has its type and its payload, decoded, NUL-terminated */
	if (!rc && !o.signer[0])
		abort(); /* verified: by a trusted key, named */
	lr_dsse_opened_release(&o);
	json_decref(env);
	return 0;
}
