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

void lr_cpu_features(char *buf, size_t size)
{
	static const char *const isa[] = { "sse2", "ssse3", "sse4.2",  "avx",      "avx2",
					   "fma",  "bmi2",  "avx512f", "avx512bw", "avx512vl" };
	size_t i, n = 0;

	buf[0] = '\0';
	__builtin_cpu_init();
	/* __builtin_cpu_supports takes a literal only: one test per name */
	for (i = 0; i < sizeof isa / sizeof isa[0] && n < size; i++) {
		int has = i == 0   ? __builtin_cpu_supports("sse2")
			  : i == 1 ? __builtin_cpu_supports("ssse3")
			  : i == 2 ? __builtin_cpu_supports("sse4.2")
			  : i == 3 ? __builtin_cpu_supports("avx")
			  : i == 4 ? __builtin_cpu_supports("avx2")
			  : i == 5 ? __builtin_cpu_supports("fma")
			  : i == 6 ? __builtin_cpu_supports("bmi2")
			  : i == 7 ? __builtin_cpu_supports("avx512f")
			  : i == 8 ? __builtin_cpu_supports("avx512bw")
				   : __builtin_cpu_supports("avx512vl");

		if (has)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", isa[i]);
	}
	if (n < size && getenv("LABRUN_CPU_HIDE") && *getenv("LABRUN_CPU_HIDE"))
		snprintf(buf + n, size - n, "; hidden: %s", getenv("LABRUN_CPU_HIDE"));
}

#define GLIBC_MASK "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD"

int lr_cpu_glibc_mask(const char *current, char *buf, size_t size)
{
	if (current && strstr(current, GLIBC_MASK))
		return 0;
	snprintf(buf, size, "%s%s%s", current && *current ? current : "", current && *current ? ":" : "", GLIBC_MASK);
	return 1;
}
