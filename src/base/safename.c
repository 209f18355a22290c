#include "config.h"
#include "base/system.h"

#include "base/safename.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0; /* overlong, surrogate or beyond Unicode */
	return n;
}

char *lr_safe_member(char *buf, size_t len, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t o = 0, n;
	int start = 1; /* at the start of a component */

#define PUT(str, k) \
	do { \
		if (o + (k) >= len) \
			return NULL; \
		memcpy(buf + o, (str), (k)); \
		o += (k); \
	} while (0)
	while (*s) {
		char esc[4];

		if (start && s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2])) {
			PUT("%2E%2E", 6);
			s += 2;
			start = 0;
			continue;
		}
		if (start && s[0] == '.' && (s[1] == '/' || !s[1])) {
			PUT("%2E", 3);
			s++;
			start = 0;
			continue;
		}
		if (*s == '/') {
			if (start)
				PUT("%2F", 3); /* would be absolute, or an empty component */
			else
				PUT("/", 1);
			start = !start;
			s++;
			continue;
		}
		start = 0;
		n = *s < 0x20 || *s == 0x7f || *s == '%' ? 0 : utf8_len(s);
		if (!n) {
			snprintf(esc, sizeof esc, "%%%02X", *s);
			PUT(esc, 3);
			s++;
			continue;
		}
		PUT(s, n);
		s += n;
	}
#undef PUT
	if (o >= len)
		return NULL;
	buf[o] = '\0';
	return buf;
}
