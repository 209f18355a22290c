/*
 * A definition's conditions: how many its grid makes (a command target's
 * keys, or the built-in targets' models x layers x tokens), the parameters
 * and geometry of the i-th, and the labels reports name them by.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/expdef.h"
#include "import/kvgeom.h"

int lr_expdef_conditions(const struct lr_expdef *d)
{
	int n = 1, i;

	if (d->target != LR_TARGET_COMMAND)
		return d->nmodels * (d->nlayers ? d->nlayers : 1) * d->ntokens;
	for (i = 0; i < d->ngrid; i++)
		n *= d->grid[i].n;
	return n;
}

int lr_expdef_condition_params(const struct lr_expdef *d, int i, struct lr_kvlist *out)
{
	int k, rc;

	/* the first key varies slowest, as model, layers, tokens do */
	for (k = 0; k < d->ngrid; k++) {
		int below = 1, j;

		for (j = k + 1; j < d->ngrid; j++)
			below *= d->grid[j].n;
		if ((rc = lr_kvlist_add(out, d->grid[k].key, d->grid[k].values[(i / below) % d->grid[k].n], NULL)))
			return rc;
	}
	return 0;
}

void lr_exp_params_label(const struct lr_kvlist *params, char *buf, size_t len)
{
	size_t k, off = 0;

	buf[0] = '\0';
	for (k = 0; k < params->n && off < len; k++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", k ? " " : "", params->v[k].key,
					params->v[k].value);
	if (!params->n)
		snprintf(buf, len, "all");
}

void lr_exp_geometry_label(const char *model, int64_t layers, int64_t tokens, char *buf, size_t len)
{
	snprintf(buf, len, "%s %lld/%lld", model, (long long)layers, (long long)tokens);
}

void lr_expdef_condition(const struct lr_expdef *d, int i, struct lr_exp_condition *c)
{
	int nl = d->nlayers ? d->nlayers : 1, t, l, m;
	struct lr_kvgeom g;

	memset(c, 0, sizeof *c);
	if (d->target == LR_TARGET_COMMAND) {
		struct lr_kvlist params = { 0 };

		if (lr_expdef_condition_params(d, i, &params))
			snprintf(c->label, sizeof c->label, "(out of memory)");
		else
			lr_exp_params_label(&params, c->label, sizeof c->label);
		lr_kvlist_release(&params);
		return;
	}
	t = i % d->ntokens;
	l = (i / d->ntokens) % nl;
	m = i / (d->ntokens * nl);
	snprintf(c->model, sizeof c->model, "%s", d->models[m]);
	if (lr_kvgeom_preset(&g, c->model)) /* checked when the definition was loaded */
		g.layers = 0;
	c->layers = d->nlayers ? d->layers[l] : g.layers;
	c->tokens = d->tokens[t];
	lr_exp_geometry_label(c->model, c->layers, c->tokens, c->label, sizeof c->label);
}
