#ifndef LR_IMPORTBENCH_H
#define LR_IMPORTBENCH_H

/*
 * 'labrun bench import': the import command itself, 'labrun import --repeat
 * N --json' on a throwaway store in o->dir, for each mode (whole, stream)
 * and layout (strided, copy), alternating forward and reversed, o->reps
 * times each. From each run: the first import's total and cycle (first
 * touch of the simulated device's memory included), the steady cycle and
 * import total (medians over the imports after the device's memory was
 * allocated, import/job.h), the copy ceiling the command measured itself
 * (the fastest copy of the same bytes, in the same process), and the wall time of the
 * whole command (source, the N imports, readback, recording); and
 * after each, in this process, the tree-hash ceiling: the device state's
 * digest (base/treehash.h) of as many bytes, in memory, on every CPU. Ratios
 * are per run, then their median (the first run dropped as warm-up).
 */

#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_IMPORTBENCH_MAXREPS 51

struct lr_importbench_opts {
	const char *model;
	int64_t tokens;
	int reps, threads;
	int imports;            /* a command's imports, more than LR_IMPORT_WARM */
	const char *dir, *self; /* throwaway stores; the labrun executable */
	char *const *argv, *const *envp;
};

/*
 * Its samples (benchjob.h), subject the mode and layout ("whole, strided"),
 * at every repetition, in seconds: 'import' (its total), 'ceiling' (memcpy
 * of the same bytes, measured by the command), 'command' (the whole
 * command's wall time), 'tree' (the tree-hash ceiling; runs stored before
 * it have none), 'first' (the first import's cycle: lease, import, readback
 * and digest), 'steady' (the cycle's median in steady state) and
 * 'steady_import' (the import total's); runs stored before steady state was
 * measured have none of the last three. Binding model and tokens are the run's geometry.
 */
extern const struct lr_bench_ops lr_importbench_ops;

#endif
