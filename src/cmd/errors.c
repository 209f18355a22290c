/* Errors as the user sees them: one message, a hint, one exit code (docs/labrun.md). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"

int cmd_fail(int rc)
{
	const char *hint = lr_error_hint_msg();

	fprintf(stderr, "labrun: error: %s\n", lr_error_msg());
	if (hint && *hint)
		fprintf(stderr, "hint: %s\n", hint);
	switch (rc) {
	case LR_EINVAL: return LR_EXIT_USAGE;
	case LR_EDATA: return LR_EXIT_DATA;
	case LR_ESTORE:
	case LR_ESCHEMA: return LR_EXIT_STORE;
	default: return LR_EXIT_FAIL;
	}
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("labrun: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nhint: see 'labrun %s -h'\n", cmd);
	return LR_EXIT_USAGE;
}

void cmd_warn_license(const char *license)
{
	fprintf(stderr,
		"labrun: warning: the evidence declares the licence '%s': a hub cannot tell how it may be reused\n"
		"hint: declare it once for this store (labrun config manifest.license CC-BY-4.0), or pass manifest --license NAME\n",
		license);
}
