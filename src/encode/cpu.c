/* Instruction sets hidden from the dispatch (cpu.h). */
#include "config.h"
#include "base/system.h"

#include "encode/cpu.h"

int lr_cpu_hidden(const char *isa)
{
	const char *v = getenv("LABRUN_CPU_HIDE"), *p;
	size_t n = strlen(isa);

	for (p = v; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, isa, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}
