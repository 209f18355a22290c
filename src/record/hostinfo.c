#include "config.h"
#include "base/system.h"

#include <ctype.h>
#include <sched.h>
#include <sys/utsname.h>
#include <dirent.h>

#include "base/error.h"
#include "record/hostinfo.h"

#define MAXCPU 4096

/* The value after "key" and a separator in a "key : value" or KEY="value" line. */
static char *line_value(const char *line, const char *key, char sep)
{
	size_t n = strlen(key), len;
	const char *p;
	char *v;

	if (strncmp(line, key, n))
		return NULL;
	p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != sep)
		return NULL;
	p++;
	while (*p == ' ' || *p == '"')
		p++;
	v = strdup(p);
	if (!v)
		return NULL;
	len = strlen(v);
	while (len && (v[len - 1] == '\n' || v[len - 1] == '"' || v[len - 1] == ' '))
		v[--len] = '\0';
	return v;
}

/* First value of 'key' in a file of such lines, malloc'd, or NULL. */
static char *file_value(const char *path, const char *key, char sep)
{
	char *line = NULL, *v = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	while (!v && getline(&line, &cap, f) > 0)
		v = line_value(line, key, sep);
	free(line);
	fclose(f);
	return v;
}

int lr_host_probe(struct lr_host *h)
{
	struct utsname u;
	char buf[sizeof u.release + sizeof u.version + 2];
	char *mem;

	memset(h, 0, sizeof *h);
	if (uname(&u) != 0)
		return lr_error_set(LR_EIO, "cannot read host facts: uname failed");
	snprintf(buf, sizeof buf, "%s %s", u.release, u.version);
	h->hostname = strdup(u.nodename);
	h->kernel = strdup(buf);
	h->arch = strdup(u.machine);
	h->os = file_value("/etc/os-release", "PRETTY_NAME", '=');
	h->cpu_model = file_value("/proc/cpuinfo", "model name", ':');
	h->cpu_flags = file_value("/proc/cpuinfo", "flags", ':');
	if (!h->cpu_flags) /* arm64 */
		h->cpu_flags = file_value("/proc/cpuinfo", "Features", ':');
	h->cores = sysconf(_SC_NPROCESSORS_ONLN);
	mem = file_value("/proc/meminfo", "MemTotal", ':');
	if (mem) {
		h->memory_bytes = strtoll(mem, NULL, 10) * 1024;
		free(mem);
	}
	if (!h->hostname || !h->kernel || !h->arch) {
		lr_host_release(h);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	return 0;
}

void lr_cpulist_format(char *out, size_t outlen, const unsigned char *cpus, int ncpu)
{
	size_t off = 0;
	int i = 0, j;

	out[0] = '\0';
	while (i < ncpu) {
		if (!(cpus[i / 8] & (1u << (i % 8)))) {
			i++;
			continue;
		}
		for (j = i; j + 1 < ncpu && (cpus[(j + 1) / 8] & (1u << ((j + 1) % 8))); j++)
			;
		if (off < outlen)
			off += (size_t)snprintf(out + off, outlen - off, "%s%d", off ? "," : "", i);
		if (j > i && off < outlen)
			off += (size_t)snprintf(out + off, outlen - off, "-%d", j);
		i = j + 1;
	}
}

int lr_cpulist_parse(const char *s, unsigned char *cpus, int ncpu)
{
	char *end;
	long a, b, k;

	memset(cpus, 0, (size_t)(ncpu + 7) / 8);
	while (*s && *s != '\n') {
		if (!isdigit((unsigned char)*s))
			return LR_EINVAL;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			b = strtol(end + 1, &end, 10);
			if (b < a)
				return LR_EINVAL;
		}
		for (k = a; k <= b && k < ncpu; k++)
			cpus[k / 8] |= (unsigned char)(1u << (k % 8));
		s = end;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* NUMA nodes whose cpulist meets 'mask', as "0" or "0,1"; "" when sysfs has none. */
static void numa_nodes(char *out, size_t outlen, const unsigned char *mask, const char *sysfs)
{
	unsigned char node_cpus[MAXCPU / 8];
	char path[512], *line = NULL;
	struct dirent *d;
	size_t cap = 0, off = 0;
	int ids[256], n = 0, i, j;
	DIR *dir;
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof path, "%s/devices/system/node", sysfs);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && n < 256)
		if (!strncmp(d->d_name, "node", 4) && isdigit((unsigned char)d->d_name[4]))
			ids[n++] = atoi(d->d_name + 4);
	closedir(dir);
	/* Sort ids so the text is stable. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			int t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", sysfs, ids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (getline(&line, &cap, f) > 0 && lr_cpulist_parse(line, node_cpus, MAXCPU) == 0) {
			for (j = 0; j < MAXCPU / 8; j++)
				if (node_cpus[j] & mask[j])
					break;
			if (j < MAXCPU / 8 && off < outlen)
				off += (size_t)snprintf(out + off, outlen - off, "%s%d", off ? "," : "", ids[i]);
		}
		fclose(f);
	}
	free(line);
}

/* Environment variables that say how work is bound to CPUs and devices. */
/* clang-format off */
static const char *const binding_env[] = {
	"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "MKL_NUM_THREADS",
	"OPENBLAS_NUM_THREADS", "GOMP_CPU_AFFINITY", "KMP_AFFINITY",
	"CUDA_VISIBLE_DEVICES", "RBLN_DEVICES",
};
/* clang-format on */

int lr_binding_probe(struct lr_kvlist *binding, char *const *envp, const char *sysfs)
{
	unsigned char mask[MAXCPU / 8];
	char list[8192], key[64], num[32];
	cpu_set_t *set;
	size_t setsize = CPU_ALLOC_SIZE(MAXCPU), i, k;
	int cpu, count = 0, rc;

	set = CPU_ALLOC(MAXCPU);
	if (!set)
		return lr_error_set(LR_ENOMEM, "out of memory");
	memset(mask, 0, sizeof mask);
	if (sched_getaffinity(0, setsize, set) == 0) {
		for (cpu = 0; cpu < MAXCPU; cpu++)
			if (CPU_ISSET_S(cpu, setsize, set)) {
				mask[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
				count++;
			}
	}
	CPU_FREE(set);
	lr_cpulist_format(list, sizeof list, mask, MAXCPU);
	if ((rc = lr_kvlist_set(binding, "cpu_affinity", list, "auto")))
		return rc;
	snprintf(num, sizeof num, "%d", count);
	if ((rc = lr_kvlist_set(binding, "cpu_count", num, "auto")))
		return rc;
	numa_nodes(list, sizeof list, mask, sysfs);
	if (list[0] && (rc = lr_kvlist_set(binding, "numa_nodes", list, "auto")))
		return rc;
	for (i = 0; i < sizeof binding_env / sizeof binding_env[0]; i++) {
		size_t n = strlen(binding_env[i]);

		for (k = 0; envp && envp[k]; k++) {
			if (strncmp(envp[k], binding_env[i], n) || envp[k][n] != '=')
				continue;
			for (cpu = 0; binding_env[i][cpu] && cpu < (int)sizeof key - 1; cpu++)
				key[cpu] = (char)tolower((unsigned char)binding_env[i][cpu]);
			key[cpu] = '\0';
			if ((rc = lr_kvlist_set(binding, key, envp[k] + n + 1, "auto")))
				return rc;
		}
	}
	return 0;
}
