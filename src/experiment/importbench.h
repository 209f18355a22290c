#ifndef LR_IMPORTBENCH_H
#define LR_IMPORTBENCH_H

/*
 * 'labrun bench import': the import command itself, 'labrun import --json'
 * on a throwaway store in o->dir, for each mode (whole, stream) and layout
 * (strided, copy), alternating forward and reversed, o->reps times each.
 * From each run: the import total and the copy ceiling the command measured
 * itself (memcpy of the same bytes, in the same process), and the wall time
 * of the whole command (source, lease, import, readback, recording); and
 * after each, in this process, the tree-hash ceiling: the device state's
 * digest (base/treehash.h) of as many bytes, in memory, on every CPU. Ratios
 * are per run, then their median (the first run dropped as warm-up).
 */

#include "base/error.h"
#include <stdint.h>

#include "experiment/benchjob.h"

#define LR_IMPORTBENCH_VARIANTS 4
#define LR_IMPORTBENCH_MAXREPS 51

struct lr_importbench_opts {
	const char *model;
	int64_t tokens;
	int reps, threads;
	const char *dir, *self;	/* throwaway stores; the labrun executable */
	char *const *argv, *const *envp;
};

struct lr_importbench_variant {
	char name[32];		/* "whole, strided" ... */
	double import_s[LR_IMPORTBENCH_MAXREPS], ceiling_s[LR_IMPORTBENCH_MAXREPS], command_s[LR_IMPORTBENCH_MAXREPS];
	double tree_s[LR_IMPORTBENCH_MAXREPS];	/* the tree-hash ceiling after each run */
	double import_ms, ceiling_ms, command_ms, tree_ms;	/* medians, the first run dropped */
	double x_import, x_command;	/* medians of import / ceiling and command / ceiling */
	double x_ceilings;		/* median of command / (copy ceiling + tree-hash ceiling); 0 when not measured */
};

struct lr_importbench_result {
	struct lr_importbench_variant v[LR_IMPORTBENCH_VARIANTS];
};

extern const char *const lr_importbench_names[LR_IMPORTBENCH_VARIANTS];

LR_MUST_CHECK int lr_importbench(const struct lr_importbench_opts *o, struct lr_importbench_result *r);

/* From the times in r->v[].*_s: the medians and ratios. */
void lr_importbench_summarise(struct lr_importbench_result *r, int reps);

/*
 * As a run of kind 'bench' (binding benchmark = import, model, tokens,
 * reps, threads): measurements 'VARIANT import|ceiling|command|tree rep K' in
 * seconds. lr_importbench_job_results reads one back.
 */
LR_MUST_CHECK int lr_importbench_job_begin(struct lr_bench_job *j, struct lr_store *st,
					   const struct lr_importbench_opts *o);
LR_MUST_CHECK int lr_importbench_job_add(struct lr_bench_job *j, int reps, const struct lr_importbench_result *r);
LR_MUST_CHECK int lr_importbench_job_results(const struct lr_run *run, struct lr_importbench_result *r);

#endif
