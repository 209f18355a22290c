/* Shared libraries loaded on first use (see dynlib.h). */
#include "config.h"
#include "base/system.h"

#include <dlfcn.h>
#include <pthread.h>

#include "base/dynlib.h"
#include "base/error.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void load(struct lr_dynlib *l)
{
	void *lib = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!lib) {
		snprintf(l->failure, sizeof l->failure, "%s", dlerror());
		l->state = -1;
		return;
	}
	for (i = 0; i < l->nsyms; i++) {
		void *f = dlsym(lib, l->syms[i].name);

		if (!f) {
			snprintf(l->failure, sizeof l->failure, "%s lacks %s", l->soname, l->syms[i].name);
			l->state = -1;
			return; /* the library stays loaded: it may be in use by whoever else loaded it */
		}
		memcpy((char *)l->table + l->syms[i].offset, &f, sizeof f);
	}
	__atomic_store_n(&l->state, 1, __ATOMIC_RELEASE);
}

int lr_dynlib_load(struct lr_dynlib *l)
{
	if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) <= 0) {
		pthread_mutex_lock(&lock);
		if (!l->state)
			load(l);
		pthread_mutex_unlock(&lock);
	}
	if (l->state > 0)
		return 0;
	lr_error_set(LR_ESTORE, "cannot load %s: %s", l->what, l->failure);
	lr_error_hint(
		"install the package that provides %s (build-aux/install-deps installs every library labrun uses)",
		l->soname);
	return LR_ESTORE;
}
