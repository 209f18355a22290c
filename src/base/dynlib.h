#ifndef LR_BASE_DYNLIB_H
#define LR_BASE_DYNLIB_H

#include <stddef.h>

/*
 * A shared library loaded on first use, its functions reached through a
 * table of pointers. Linked in, each of libpq, libgit2 and libarchive brought
 * its own dependencies into every command's start-up (docs/design.md, "libpq
 * is loaded on first use"); loaded on first use, only the commands that need
 * one pay for it.
 *
 * A library's header lists its functions once, X(name) each, declares the
 * table and the load function with LR_DYNLIB_DECLARE, and maps each name to
 * its pointer with a #define, so calls keep their names; its loader's file,
 * with the names not mapped, defines the table and the load function:
 *
 *	LR_DYNLIB_DECLARE(lr_pq, lr_pq_load, LR_PQ_FUNCS)	(pq.h)
 *	#define LR_DYNLIB_TABLE lr_pq				(pq.c)
 *	LR_DYNLIB_DEFINE(lr_pq_load, LR_PQ_FUNCS, "libpq.so.5", "PostgreSQL's client library")
 *
 * Callers call the load function before the first call through the table.
 */

struct lr_dynsym {
	const char *name;
	size_t offset; /* of its pointer in the table */
};

struct lr_dynlib {
	const char *soname; /* "libpq.so.5" */
	const char *what;   /* "PostgreSQL's client library", for errors */
	const struct lr_dynsym *syms;
	size_t nsyms;
	void *table; /* the struct the offsets point into */
	int state;   /* 0: not tried; 1: loaded; -1: failed */
	char failure[512];
};

#define LR_DYNLIB_FIELD(f) __typeof__(f) *f;
/* struct TABLE, a pointer for each of funcs; the one table of that type; and its load function. */
#define LR_DYNLIB_DECLARE(table, loadfn, funcs) \
	struct table { \
		funcs(LR_DYNLIB_FIELD) \
	}; \
	extern struct table table; \
	int loadfn(void);
#define LR_DYNLIB_SYM(f) { #f, offsetof(__typeof__(LR_DYNLIB_TABLE), f) },
#define LR_DYNLIB_DEFINE(loadfn, funcs, so, desc) \
	__typeof__(LR_DYNLIB_TABLE) LR_DYNLIB_TABLE; \
	static const struct lr_dynsym dynlib_syms[] = { funcs(LR_DYNLIB_SYM) }; \
	static struct lr_dynlib dynlib = { \
		so, desc, dynlib_syms, sizeof dynlib_syms / sizeof dynlib_syms[0], &LR_DYNLIB_TABLE, 0, "" \
	}; \
	int loadfn(void) \
	{ \
		return lr_dynlib_load(&dynlib); \
	}

/* Load the library once (thread-safe); 0, or LR_ESTORE naming it, why, and what to install. */
int lr_dynlib_load(struct lr_dynlib *l);

#endif
