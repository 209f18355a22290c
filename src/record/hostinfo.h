#ifndef LR_HOSTINFO_H
#define LR_HOSTINFO_H

#include "base/error.h"
#include "base/model.h"

/* Fill 'h' with this machine's facts (uname, /etc/os-release, /proc). */
LR_MUST_CHECK int lr_host_probe(struct lr_host *h);

/*
 * Add the automatically observed device binding to 'binding' (tag "auto"):
 * cpu_affinity (sched_getaffinity, as a CPU list), cpu_count, numa_nodes
 * (nodes whose CPUs meet the mask) and thread/device settings from the
 * environment 'envp' (omp_num_threads, rbln_devices, ...).
 * 'sysfs' is the sysfs root ("/sys"), a seam for tests.
 */
LR_MUST_CHECK int lr_binding_probe(struct lr_kvlist *binding, char *const *envp, const char *sysfs);

/* Format a CPU set as a list ("0-3,8"). 'cpus' is a bitmap of 'ncpu' bits. */
void lr_cpulist_format(char *out, size_t outlen, const unsigned char *cpus, int ncpu);

/* Parse a CPU list ("0-3,8") into a bitmap; 0, or LR_EINVAL on bad syntax. */
LR_MUST_CHECK int lr_cpulist_parse(const char *s, unsigned char *cpus, int ncpu);

#endif
