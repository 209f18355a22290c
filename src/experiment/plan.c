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

int lr_plan_store(struct lr_store *st, int64_t run_id, const struct lr_expdef *d, const struct lr_plan *plan,
		  const struct lr_store_arm *arms)
{
	struct lr_store_condition *planned = calloc((size_t)(plan->n > 0 ? plan->n : 1), sizeof *planned);
	struct lr_store_design design;
	int ci, rc;

	if (!planned)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (ci = 0; ci < plan->n; ci++)
		planned[ci] = (struct lr_store_condition){
			.idx = ci,
			.model = plan->cond[ci].c.model,
			.layers = plan->cond[ci].c.layers,
			.tokens = plan->cond[ci].c.tokens,
			.status = "missing",
			.failure = "not completed: the run ended before this condition's outcome was stored",
			.params = d->target == LR_TARGET_COMMAND ? &plan->cond[ci].params : NULL,
		};
	lr_plan_design(d, &design);
	rc = lr_store_experiment_plan(st, run_id, d->path, d->sha256, d->text, &design, arms, d->narms, planned,
				      plan->n);
	free(planned);
	return rc;
}

void lr_plan_design(const struct lr_expdef *d, struct lr_store_design *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->name, sizeof out->name, "%s", d->name);
	snprintf(out->title, sizeof out->title, "%s", d->title);
	snprintf(out->target, sizeof out->target, "%s", lr_exp_target_name(d->target));
	snprintf(out->backend, sizeof out->backend, "%s", d->backend);
	snprintf(out->order, sizeof out->order, "%s", lr_exp_order_name(d->order));
	out->blocks = d->blocks;
	out->warmup = d->warmup;
	out->margin = d->margin;
	out->seed = d->seed;
	snprintf(out->metric, sizeof out->metric, "%s", d->metric);
}

/* Run 'run''s design row as the report reads it: a target or order labrun does not know is refused, never taken for another. */
static int from_design(const struct lr_store_design *s, int64_t run, struct lr_stored_design *out)
{
	int target, order;

	if (lr_enum_parse(&lr_exp_targets, s->target, &target) || lr_enum_parse(&lr_exp_orders, s->order, &order)) {
		lr_error_wrap("cannot read the design of run %lld", (long long)run);
		lr_error_hint("a newer labrun stored it; upgrade labrun to read it");
		return LR_ESCHEMA;
	}
	snprintf(out->name, sizeof out->name, "%s", s->name);
	snprintf(out->title, sizeof out->title, "%s", s->title);
	snprintf(out->backend, sizeof out->backend, "%s", s->backend);
	snprintf(out->metric, sizeof out->metric, "%s", s->metric);
	out->target = (enum lr_exp_target)target;
	out->order = (enum lr_exp_order)order;
	out->blocks = s->blocks;
	out->warmup = s->warmup;
	out->margin = s->margin;
	out->seed = s->seed;
	return 0;
}

int lr_plan_stored(struct lr_store *st, int64_t run, struct lr_stored_design *out)
{
	struct lr_store_design row;
	struct lr_expdef d;
	char *path = NULL, *text = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&d, 0, sizeof d);
	if ((rc = lr_store_definition(st, run, &path, &text)) || (rc = lr_sha256_buf(text, strlen(text), out->sha256)))
		goto out;
	snprintf(out->path, sizeof out->path, "%s", path);
	if (!(rc = lr_store_design(st, run, &row))) {
		rc = from_design(&row, run, out);
		out->from_rows = 1;
	} else if (rc == LR_ENOTFOUND) {
		/* stored before migration 18: its definition is all there is */
		lr_error_clear();
		if (!(rc = lr_expdef_load(&d, path, text))) {
			lr_plan_design(&d, &row);
			rc = from_design(&row, run, out);
		}
	}
out:
	lr_expdef_release(&d);
	free(path);
	free(text);
	return rc;
}

int lr_plan_stored_label(struct lr_store *st, int64_t run, const struct lr_stored_design *d,
			 const struct lr_store_condition_row *c, char *buf, size_t len)
{
	struct lr_kvlist params = { 0 };
	int rc;

	if (d->target != LR_TARGET_COMMAND) {
		lr_exp_geometry_label(c->model, c->layers, c->tokens, buf, len);
		return 0;
	}
	if (!(rc = lr_store_condition_params(st, run, c->idx, &params)))
		lr_exp_params_label(&params, buf, len);
	lr_kvlist_release(&params);
	return rc;
}

int lr_plan_check(const struct lr_expdef *d, const struct lr_stored_design *stored, int64_t run)
{
	const char *target = lr_exp_target_name(stored->target), *order = lr_exp_order_name(stored->order);
	const char *field = NULL, *x = "", *y = "";
	struct lr_store_design now;
	char a[2][64], b[2][64];

	if (!stored->from_rows)
		return 0; /* stored before migration 18: nothing to check against */
	lr_plan_design(d, &now);
	snprintf(a[0], sizeof a[0], "%d/%d/%.17g", stored->blocks, stored->warmup, stored->margin);
	snprintf(b[0], sizeof b[0], "%d/%d/%.17g", now.blocks, now.warmup, now.margin);
	snprintf(a[1], sizeof a[1], "%llu", (unsigned long long)stored->seed);
	snprintf(b[1], sizeof b[1], "%llu", (unsigned long long)now.seed);
#define DIFFER(f, s1, s2) \
	if (!field && strcmp((s1), (s2))) \
		field = (f), x = (s1), y = (s2);
	DIFFER("name", stored->name, now.name)
	DIFFER("title", stored->title, now.title)
	DIFFER("target", target, now.target)
	DIFFER("backend", stored->backend, now.backend)
	DIFFER("order", order, now.order)
	DIFFER("blocks/warmup/margin", a[0], b[0])
	DIFFER("seed", a[1], b[1])
	DIFFER("metric", stored->metric, now.metric)
#undef DIFFER
	if (!field)
		return 0;
	lr_error_set(LR_EINVAL,
		     "run %lld's stored definition reads differently today: %s '%s', stored with the run '%s'",
		     (long long)run, field, y, x);
	lr_error_hint("this labrun parses definitions another way than the one that ran it: replay with that version");
	return LR_EINVAL;
}
