/* Choosing a kernel: by name, or 'auto' by measurement (ktable.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/walk.h"
#include "encode/ktable.h"

const char *lr_ktable_path(void)
{
	static _Thread_local char path[PATH_MAX];
	const char *v = getenv("LABRUN_KERNEL_TABLE"), *dir = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (v && *v)
		return v;
	if (dir && *dir == '/')
		n = snprintf(path, sizeof path, "%s/labrun/kernels", dir);
	else if (home && *home == '/')
		n = snprintf(path, sizeof path, "%s/.cache/labrun/kernels", home);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof path ? path : NULL;
}

/* This CPU as the table names it: its model and the kernels that can run ("Intel Xeon|lookup,scalar,avx2"). */
static void host_key(char *key, size_t size)
{
	char line[512], model[256] = "unknown CPU";
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t n;

	while (f && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			colon += 1 + strspn(colon + 1, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, sizeof model, "%s", colon);
			break;
		}
	}
	if (f)
		fclose(f);
	for (char *p = model; *p; p++) /* the key is one field of a tab-separated line */
		if (*p == '\t' || *p == '|')
			*p = ' ';
	n = (size_t)snprintf(key, size, "%s|", model);
	for (size_t i = 0; lr_dlf16_kernels[i] && n < size; i++)
		if (!lr_dlf16_unavailable(lr_dlf16_kernels[i]))
			n += (size_t)snprintf(key + n, size - n, "%s%s", key[n - 1] == '|' ? "" : ",",
					      lr_dlf16_kernels[i]->name);
}

static const struct lr_dlf16_kernel *runnable(const char *name)
{
	for (size_t i = 0; lr_dlf16_kernels[i]; i++)
		if (!strcmp(lr_dlf16_kernels[i]->name, name))
			return lr_dlf16_unavailable(lr_dlf16_kernels[i]) ? NULL : lr_dlf16_kernels[i];
	return NULL;
}

/* A line of the table: its key (NUL-terminated in place), size and kernel; 0 when it does not parse. */
static int parse_line(char *line, char **key, uint64_t *bytes, char **kernel)
{
	char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *end;

	if (!t2)
		return 0;
	*t1 = *t2 = '\0';
	errno = 0;
	*bytes = strtoull(t1 + 1, &end, 10);
	if (errno || end != t2 || !*bytes)
		return 0;
	t2[1 + strcspn(t2 + 1, "\r\n")] = '\0';
	*key = line;
	*kernel = t2 + 1;
	return 1;
}

const struct lr_dlf16_kernel *lr_ktable_pick(uint64_t bytes, const char **why)
{
	static const char *const order[] = { "avx512", "avx2", "lookup", "scalar" };
	const struct lr_dlf16_kernel *best = NULL;
	const char *path = lr_ktable_path();
	char line[1024], key[600];
	double dist = INFINITY;
	uint64_t largest = 0;
	FILE *f;

	host_key(key, sizeof key);
	f = path ? fopen(path, "re") : NULL;
	while (f && fgets(line, sizeof line, f)) {
		const struct lr_dlf16_kernel *k;
		char *lkey, *kname;
		uint64_t b;
		double d;

		if (!parse_line(line, &lkey, &b, &kname) || strcmp(lkey, key) || !(k = runnable(kname)))
			continue;
		d = bytes ? fabs(log((double)b / (double)bytes)) : 0;
		if (bytes ? d < dist : b > largest) {
			dist = d;
			largest = b;
			best = k;
		}
	}
	if (f)
		fclose(f);
	if (best) {
		if (why)
			*why = bytes ? "the fastest at the nearest size 'labrun bench encoder' measured on this CPU"
				     : "the fastest at the largest size 'labrun bench encoder' measured on this CPU";
		return best;
	}
	if (why)
		*why = "no 'labrun bench encoder' table for this CPU: the first of avx512, avx2, lookup, scalar it can run";
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if ((best = runnable(order[i])))
			return best;
	return runnable("scalar");
}

int lr_ktable_write(const struct lr_ktable_entry *e, size_t n)
{
	const char *path = lr_ktable_path();
	char tmp[PATH_MAX + 16], line[1024], copy[1024], key[600];
	FILE *in, *out;
	int fd, rc = 0;

	if (!path)
		return lr_error_set(
			LR_EIO, "nowhere to keep the kernel table: set HOME, XDG_CACHE_HOME or LABRUN_KERNEL_TABLE");
	if ((rc = lr_mkdir_parents(path, 0755)))
		return rc;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp)
		return lr_error_set(LR_EIO, "the kernel table's path '%s' is too long", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0 || !(out = fdopen(fd, "w"))) {
		rc = lr_error_set(LR_EIO, "cannot write the kernel table '%s': %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	host_key(key, sizeof key);
	if ((in = fopen(path, "re"))) { /* other CPUs' lines stay */
		while (fgets(line, sizeof line, in)) {
			char *lkey, *kname;
			uint64_t b;

			size_t i = 0;

			snprintf(copy, sizeof copy, "%s", line);
			if (!parse_line(copy, &lkey, &b, &kname))
				continue;
			while (i < n && !(e[i].bytes == b && !strcmp(lkey, key)))
				i++;
			if (i == n) /* not measured again now */
				fprintf(out, "%s\t%llu\t%s\n", lkey, (unsigned long long)b, kname);
		}
		fclose(in);
	}
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\t%llu\t%s\n", key, (unsigned long long)e[i].bytes, e[i].k->name);
	if (fflush(out) != 0 || fsync(fileno(out)) != 0)
		rc = lr_error_set(LR_EIO, "cannot write the kernel table '%s': %s", tmp, strerror(errno));
	if (fclose(out) != 0 && !rc)
		rc = lr_error_set(LR_EIO, "cannot write the kernel table '%s': %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path) != 0)
		rc = lr_error_set(LR_EIO, "cannot write the kernel table '%s': %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

const struct lr_dlf16_kernel *lr_dlf16_auto(void)
{
	return lr_ktable_pick(0, NULL);
}

int lr_dlf16_kernel_find(const struct lr_dlf16_kernel **out, const char *name)
{
	return lr_dlf16_kernel_for(out, name, 0);
}

int lr_dlf16_kernel_for(const struct lr_dlf16_kernel **out, const char *name, uint64_t bytes)
{
	size_t i;

	*out = NULL;
	if (!strcmp(name, "auto")) {
		*out = lr_ktable_pick(bytes, NULL);
		return 0;
	}
	for (i = 0; lr_dlf16_kernels[i]; i++) {
		const struct lr_dlf16_kernel *k = lr_dlf16_kernels[i];

		if (strcmp(k->name, name))
			continue;
		if (lr_dlf16_unavailable(k)) {
			lr_error_set(LR_EINVAL, "kernel '%s' is not available: %s", name, lr_dlf16_unavailable(k));
			lr_error_hint(
				k->encode ? "use --kernel auto: the kernel measured fastest here that this CPU supports"
					  : "rebuild with a compiler that supports it, or pick another --kernel");
			return LR_EINVAL;
		}
		*out = k;
		return 0;
	}
	lr_error_set(LR_EINVAL, "unknown kernel '%s'", name);
	lr_error_hint("kernels: " LR_DLF16_KERNEL_NAMES);
	return LR_EINVAL;
}
