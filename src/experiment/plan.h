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
#include "store/experiments.h"

struct lr_plan_condition {
	struct lr_exp_condition c; /* label; model, layers, tokens of a built-in target */
	struct lr_kvlist params;   /* the grid's KEY = VALUE of this condition (command experiments) */
};

struct lr_plan {
	int n;
	struct lr_plan_condition *cond;
};

/* Build the plan of 'd' into p (released with lr_plan_release either way). */
LR_MUST_CHECK int lr_plan_build(struct lr_plan *p, const struct lr_expdef *d);
void lr_plan_release(struct lr_plan *p);

/* Store run_id's plan: definition, design, arms, and every condition as 'missing' until it has an outcome. */
LR_MUST_CHECK int lr_plan_store(struct lr_store *st, int64_t run_id, const struct lr_expdef *d,
				const struct lr_plan *plan, const struct lr_store_arm *arms);

/* The design of 'd' as the store keeps it (run_design). */
void lr_plan_design(const struct lr_expdef *d, struct lr_store_design *out);

/*
 * A stored experiment run's design, read from its rows (run_design and the
 * definition's sha256), never by parsing its definition again: what report
 * and diff show, and what replay checks today's parse of the stored text
 * against.
 */
struct lr_stored_design {
	char name[64], title[256], backend[16], metric[64];
	char path[1024];            /* the definition's file, as given to 'labrun run' */
	char sha256[LR_SHA256_HEX]; /* of the stored definition */
	enum lr_exp_target target;
	enum lr_exp_order order;
	int blocks, warmup;
	double margin;
	uint64_t seed;
	int from_rows; /* 0: a run stored before migration 18, read from its stored definition */
};

/* Run 'run''s design; LR_ENOTFOUND when it has no stored definition (not an experiment run, or its plan was never stored). */
LR_MUST_CHECK int lr_plan_stored(struct lr_store *st, int64_t run, struct lr_stored_design *out);

/* Condition row c's label ("qwen3-4b 28/2048", or its grid values for a command experiment), from the rows. */
LR_MUST_CHECK int lr_plan_stored_label(struct lr_store *st, int64_t run, const struct lr_stored_design *d,
				       const struct lr_store_condition_row *c, char *buf, size_t len);

/* 0 when 'd' (today's parse of run 'run''s stored text) has its stored design, else LR_EINVAL naming the first difference. */
LR_MUST_CHECK int lr_plan_check(const struct lr_expdef *d, const struct lr_stored_design *stored, int64_t run);

#endif
