#include "config.h"
#include "base/system.h"

#include "base/error.h"

/* One message per thread: workers of later pipelines may fail concurrently. */
static _Thread_local char err_msg[2048];
static _Thread_local char err_hint[1024];

int lr_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof err_msg, fmt, ap);
	va_end(ap);
	err_hint[0] = '\0';
	return code;
}

void lr_error_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_hint, sizeof err_hint, fmt, ap);
	va_end(ap);
}

void lr_error_wrap(const char *fmt, ...)
{
	char prefix[1024], old[sizeof err_msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err_msg, sizeof old);
	snprintf(err_msg, sizeof err_msg, "%s: %s", prefix, old);
}

const char *lr_error_msg(void)
{
	return err_msg[0] ? err_msg : "unknown error";
}

const char *lr_error_hint_msg(void)
{
	return err_hint;
}

void lr_error_clear(void)
{
	err_msg[0] = '\0';
	err_hint[0] = '\0';
}
