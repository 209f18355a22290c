/* Sizes as users write them. */
#include "config.h"
#include "base/system.h"

#include <strings.h>

#include "base/size.h"

int64_t lr_size_parse(const char *s)
{
	static const struct {
		const char *suffix;
		int shift;
	} units[] = { { "", 0 },   { "K", 10 },   { "KiB", 10 }, { "M", 20 },  { "MiB", 20 },
		      { "G", 30 }, { "GiB", 30 }, { "T", 40 },   { "TiB", 40 } };
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcasecmp(end, units[i].suffix))
			return v > (1ULL << 62) >> units[i].shift ? -1 : (int64_t)(v << units[i].shift);
	return -1;
}
