/* An experiment's plan, built once from its definition (experiment/plan.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/plan.h"

int lr_plan_build(struct lr_plan *p, const struct lr_expdef *d)
{
	int i, rc = 0;

	p->n = lr_expdef_conditions(d);
	if (!(p->cond = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *p->cond))) {
		p->n = 0;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (i = 0; i < p->n && !rc; i++) {
		lr_expdef_condition(d, i, &p->cond[i].c);
		rc = lr_expdef_condition_params(d, i, &p->cond[i].params);
	}
	return rc;
}

void lr_plan_release(struct lr_plan *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		lr_kvlist_release(&p->cond[i].params);
	free(p->cond);
	p->cond = NULL;
	p->n = 0;
}
