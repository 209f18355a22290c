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
	lr_fmt_cut(err_msg, sizeof err_msg, "%s: %s", prefix, old);
}

void lr_fmt_cut(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
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
