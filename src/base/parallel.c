#include "config.h"

#include <pthread.h>
#include <sched.h>

#include "base/parallel.h"

void lr_parallel(void *parts, size_t size, int n, void *(*fn)(void *part))
{
	pthread_t tid[LR_PARALLEL_MAX];
	int started[LR_PARALLEL_MAX] = { 0 }, i;

	if (n > LR_PARALLEL_MAX)
		n = LR_PARALLEL_MAX;
	for (i = 1; i < n; i++)
		started[i] = pthread_create(&tid[i], NULL, fn, (char *)parts + (size_t)i * size) == 0;
	if (n > 0)
		fn(parts);
	for (i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			fn((char *)parts + (size_t)i * size); /* no thread for it: this one does its part */
	}
}

int lr_parallel_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set) < LR_PARALLEL_MAX ? CPU_COUNT(&set) : LR_PARALLEL_MAX;
	return 1;
}
