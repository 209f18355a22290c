/* Helpers for the libFuzzer targets: in-memory files and scratch directories. */
#include "config.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "fuzz.h"

static int mem_fd = -1;
static char mem_path[64];
static char parent[64], target[96];

const char *lr_fuzz_file(const uint8_t *data, size_t size)
{
	if (mem_fd < 0 && (mem_fd = memfd_create("labrun-fuzz", 0)) < 0)
		abort();
	if (ftruncate(mem_fd, 0) || pwrite(mem_fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(mem_path, sizeof mem_path, "/proc/self/fd/%d", mem_fd);
	return mem_path;
}

void lr_fuzz_file_close(void)
{
	if (mem_fd >= 0 && ftruncate(mem_fd, 0))
		abort();
}

char *lr_fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

const char *lr_fuzz_dir(void)
{
	if (!parent[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(parent, sizeof parent, "%s/lr-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(parent))
			abort();
	}
	snprintf(target, sizeof target, "%s/out", parent);
	if (mkdir(target, 0700))
		abort();
	return target;
}

/* Anything beside the target directory was written outside it: a finding. */
void lr_fuzz_dir_clean(void)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "out")) {
			fprintf(stderr, "fuzz: '%s' was written outside the extraction directory\n", e->d_name);
			abort();
		}
	closedir(d);
	if (nftw(target, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		abort();
}
