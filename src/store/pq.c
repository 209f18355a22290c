/* libpq, loaded on first use (see pq.h). */
#include "config.h"
#include "base/system.h"

#define LR_PQ_LOADER

#include <dlfcn.h>
#include <pthread.h>

#include "base/error.h"
#include "store/pq.h"

struct lr_pq lr_pq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void)
{
	void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(failure, sizeof failure, "%s", dlerror());
		return;
	}
	/* each pointer is assigned the symbol of its own name, with its own type */
#define LR_PQ_SYM(f) \
	if (!failure[0] && !(*(void **)&lr_pq.f = dlsym(lib, #f))) \
		snprintf(failure, sizeof failure, "libpq.so.5 lacks %s", #f);
	LR_PQ_FUNCS(LR_PQ_SYM)
#undef LR_PQ_SYM
}

int lr_pq_load(void)
{
	pthread_once(&once, load);
	if (!failure[0])
		return 0;
	lr_error_set(LR_ESTORE, "cannot load PostgreSQL's client library: %s", failure);
	lr_error_hint("install it (Debian: apt-get install libpq5)");
	return LR_ESTORE;
}
