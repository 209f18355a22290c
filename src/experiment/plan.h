#ifndef LR_EXPERIMENT_PLAN_H
#define LR_EXPERIMENT_PLAN_H

/*
 * An experiment's plan: its conditions, in order, each with its label, its
 * built-in geometry (model, layers, tokens) and its grid parameters, worked
 * out once from the definition. The runner walks the plan; nothing asks the
 * definition for condition i again.
 */

#include "base/list.h"
#include "experiment/expdef.h"

struct lr_plan_condition {
	struct lr_exp_condition c;	/* label; model, layers, tokens of a built-in target */
	struct lr_kvlist params;	/* the grid's KEY = VALUE of this condition (command experiments) */
};

struct lr_plan {
	int n;
	struct lr_plan_condition *cond;
};

/* Build the plan of 'd' into p (released with lr_plan_release either way). */
LR_MUST_CHECK int lr_plan_build(struct lr_plan *p, const struct lr_expdef *d);
void lr_plan_release(struct lr_plan *p);

#endif
