#ifndef LR_TESTUTIL_H
#define LR_TESTUTIL_H

/* Shared by the unit drivers: a fresh temporary directory per test. */

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* mkdtemp under $TMPDIR; the caller frees and removes with tmpdir_remove(). */
static inline char *tmpdir_new(void)
{
	const char *base = getenv("TMPDIR");
	char *p = NULL;

	if (asprintf(&p, "%s/labrun-unit-XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static inline void tmpdir_remove(char *p)
{
	if (p)
		nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(p);
}

static inline void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fputs(content, f);
	fclose(f);
}

#endif
