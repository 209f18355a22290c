/*
 * The ledger's failure paths, with calloc and the mutex calls wrapped at link
 * time (-Wl,--wrap): an allocation can be made to fail, and every mutex
 * destroyed must have been initialised first.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>

#include "base/error.h"
#include "import/ledger.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __real_pthread_mutex_destroy(pthread_mutex_t *m);
int __wrap_pthread_mutex_destroy(pthread_mutex_t *m);

static int fail_calloc_at = -1; /* the n-th calloc from now fails; -1: none */
static pthread_mutex_t *live[16];
static int nlive, bad_destroys;

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_calloc_at >= 0 && fail_calloc_at-- == 0)
		return NULL;
	return __real_calloc(n, size);
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	if (nlive < 16)
		live[nlive++] = m;
	return __real_pthread_mutex_init(m, a);
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m)
{
	int i;

	for (i = 0; i < nlive; i++)
		if (live[i] == m) {
			live[i] = live[--nlive];
			return __real_pthread_mutex_destroy(m);
		}
	bad_destroys++;
	return 0;
}

static int no_alloc(void *ctx, uint64_t bytes, void **handle)
{
	(void)ctx;
	(void)bytes;
	*handle = NULL;
	return LR_ENOMEM;
}

/* Out of memory in lr_ledger_init: an error, and no mutex destroyed before it was made. */
static void ledger_init_out_of_memory_destroys_only_what_it_made(void **state)
{
	struct lr_device dev = { .alloc = no_alloc };
	struct lr_backend_config cfg = { .lanes = 4 };
	struct lr_ledger lg;
	int at;

	(void)state;
	for (at = 0; at < 3; at++) {
		bad_destroys = 0;
		fail_calloc_at = at;
		assert_int_equal(lr_ledger_init(&lg, &dev, &cfg, "test"), LR_ENOMEM);
		fail_calloc_at = -1;
		assert_int_equal(bad_destroys, 0);
		assert_int_equal(nlive, 0);
	}
	/* and the ordinary path pairs them too */
	assert_int_equal(lr_ledger_init(&lg, &dev, &cfg, "test"), 0);
	assert_int_equal(nlive, 1);
	lr_ledger_release(&lg);
	assert_int_equal(nlive, 0);
	assert_int_equal(bad_destroys, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ledger_init_out_of_memory_destroys_only_what_it_made),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
