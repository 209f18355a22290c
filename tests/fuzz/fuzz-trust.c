/*
 * libFuzzer target: the trust files (base/trust.c). The input as a file
 * given to --trust (a PEM public key or trusted-keys lines), then as the
 * user's own signed-stores file, read by lr_trust_load from a private
 * configuration directory (the trust files must be the user's alone).
 */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "base/error.h"
#include "base/trust.h"

static char stores[160];

/* $XDG_CONFIG_HOME in a private directory, no trusted-keys file and no signing key there. */
static void once(void)
{
	const char *dir;
	char path[128];

	if (stores[0])
		return;
	dir = lr_fuzz_dir(); /* mode 0700 */
	snprintf(path, sizeof path, "%s/labrun", dir);
	if (mkdir(path, 0700) || setenv("XDG_CONFIG_HOME", dir, 1) || setenv("LABRUN_KEY", "/nonexistent/key", 1))
		abort();
	unsetenv("LABRUN_TRUSTED_KEYS");
	snprintf(stores, sizeof stores, "%s/signed-stores", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_trust t;
	int fd, rc;

	memset(&t, 0, sizeof t);
	rc = lr_trust_add_file(&t, lr_fuzz_file(data, size));
	if (rc && rc != LR_EDATA && rc != LR_EREFUSED && rc != LR_EINVAL)
		abort();
	lr_trust_release(&t);
	lr_fuzz_file_close();

	once();
	if ((fd = open(stores, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || write(fd, data, size) != (ssize_t)size ||
	    close(fd))
		abort();
	rc = lr_trust_load(&t);
	if (rc && rc != LR_EDATA && rc != LR_ENOMEM)
		abort();
	for (size_t i = 0; !rc && i < t.nstores; i++) /* each store's line read whole */
		if (strlen(t.stores[i].id) != 32 || t.stores[i].from_seq < 1 || !*t.stores[i].path)
			abort();
	lr_trust_release(&t);
	return 0;
}
