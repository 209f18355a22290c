#include "config.h"
#include "base/system.h"

#include "base/error.h"

/* One message per thread: workers of later pipelines may fail concurrently. */
static _Thread_local char err_msg[2048];
static _Thread_local char err_hint[1024];

int lr_error_vset(int code, const char *fmt, va_list ap)
{
	vsnprintf(err_msg, sizeof err_msg, fmt, ap);
	err_hint[0] = '\0';
	return code;
}

int lr_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_error_vset(code, fmt, ap);
	va_end(ap);
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

const char *lr_vfmt_cut(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n >= 0 && (size_t)n >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
	return buf;
}

void lr_fmt_cut(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_vfmt_cut(buf, size, fmt, ap);
	va_end(ap);
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

void lr_visible(char *out, size_t size, const char *text)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p && o + 1 < size; p++) {
		int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		out[o++] = *p < 0x20 || *p == 0x7f || c1 ? '?' : (char)*p;
		p += c1;
	}
	out[o] = '\0';
}
