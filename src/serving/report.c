#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/stats.h"
#include "serving/report.h"
#include "store/collect.h"
#include "store/experiments.h"
#include "store/serving.h"

/* ---- rows and routes ----------------------------------------------------------- */

static int route_index(struct lr_serving_report *r, const char *route, int add)
{
	int i;

	for (i = 0; i < r->nroutes; i++)
		if (!strcmp(r->routes[i], route))
			return i;
	if (!add)
		return -1;
	if (r->nroutes == LR_SERVING_MAXROUTES)
		return lr_error_set(LR_EREFUSED, "more than %d routes in one report", LR_SERVING_MAXROUTES);
	snprintf(r->routes[r->nroutes], sizeof r->routes[0], "%s", route);
	return r->nroutes++;
}

static int row_order(const void *a, const void *b)
{
	const struct lr_serving_row *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->cond > y->cond) - (x->cond < y->cond);
}

static int row_index(struct lr_serving_report *r, int64_t run, int cond, int add)
{
	struct lr_serving_row *v;
	int i;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].run == run && r->rows[i].cond == cond)
			return i;
	if (!add)
		return -1;
	if (!(v = realloc(r->rows, (size_t)(r->nrows + 1) * sizeof *v)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	r->rows = v;
	memset(&v[r->nrows], 0, sizeof *v);
	v[r->nrows].run = run;
	v[r->nrows].cond = cond;
	return r->nrows++;
}

struct collect {
	struct lr_serving_report *r;
	struct lr_store *st;
	int add_routes;
	int rc;
	int64_t run; /* the run being read */
};

static int note_set(void *arg, const struct lr_response_set *s)
{
	struct collect *c = arg;
	int row, route;

	if ((row = row_index(c->r, s->run, s->cond, 1)) < 0)
		return row;
	if ((route = route_index(c->r, s->route, c->add_routes)) == -1)
		return 0; /* a route the user left out of --routes */
	if (route < 0)
		return route;
	return 0;
}

/* A route a command experiment's arm declares, even where it collected nothing. */
static int note_route(void *arg, const char *route)
{
	struct collect *c = arg;
	int rc = route_index(c->r, route, 1);

	return rc < 0 ? rc : 0;
}

static int count_route(void *arg, const char *route)
{
	(void)route;
	++*(int *)arg;
	return 0;
}

/*
 * A command experiment with responses, or whose arms declare routes, has a row for every
 * condition, collected or not: an experiment that collected nothing at all is missing evidence.
 */
static int experiment_rows(struct lr_store *st, struct lr_serving_report *r, int64_t run)
{
	struct lr_store_condition_row *conds = NULL;
	int i, n = 0, rc = 0, has = 0;

	for (i = 0; i < r->nrows; i++)
		has |= r->rows[i].run == run && r->rows[i].cond >= 0;
	if (!has && (rc = lr_store_arm_routes(st, run, count_route, &has)))
		return rc;
	if (!has)
		return 0;
	if ((rc = lr_store_conditions(st, run, &conds, &n)))
		return rc;
	for (i = 0; i < n && rc >= 0; i++)
		rc = row_index(r, run, conds[i].idx, 1);
	lr_store_conditions_free(conds, n);
	if (rc < 0)
		return rc;
	/* rows in condition order within a run */
	qsort(r->rows, (size_t)r->nrows, sizeof *r->rows, row_order);
	return 0;
}

/* Labels: a command experiment's grid values, else the run. */
static int label_rows(struct lr_store *st, struct lr_serving_report *r)
{
	int i, rc = 0;

	for (i = 0; i < r->nrows && !rc; i++) {
		struct lr_serving_row *w = &r->rows[i];
		struct lr_kvlist params = { 0 };
		size_t k, off;

		off = (size_t)snprintf(w->label, sizeof w->label, "run %lld", (long long)w->run);
		if (w->cond >= 0 && !(rc = lr_store_condition_params(st, w->run, w->cond, &params)))
			for (k = 0; k < params.n && off < sizeof w->label; k++)
				off += (size_t)snprintf(w->label + off, sizeof w->label - off, "%s%s=%s",
							k ? " " : ": ", params.v[k].key, params.v[k].value);
		lr_kvlist_release(&params);
	}
	return rc;
}

/* ---- cells ----------------------------------------------------------------------- */

static struct lr_serving_cell *cell_of(struct lr_serving_report *r, int64_t run, int cond, const char *route)
{
	int row = row_index(r, run, cond, 0), col = route_index(r, route, 0);

	return row < 0 || col < 0 ? NULL : &r->cells[row * r->nroutes + col];
}

static int count_set(void *arg, const struct lr_response_set *s)
{
	struct collect *c = arg;
	struct lr_serving_cell *cell = cell_of(c->r, s->run, s->cond, s->route);

	if (cell) {
		cell->declared = 1;
		cell->sets++;
		cell->cases += s->cases;
	}
	return 0;
}

/* A route an arm of run c->run names is declared in every row of that run, collected or not. */
static int declare_route(void *arg, const char *route)
{
	struct collect *c = arg;
	int col = route_index(c->r, route, 0);

	for (int i = 0; i < c->r->nrows && col >= 0; i++)
		if (c->r->rows[i].run == c->run)
			c->r->cells[i * c->r->nroutes + col].declared = 1;
	return 0;
}

/* What found a failure: the cell's row and route, its check in full ("comparison 7: ...") and as grouped ("within-route comparison ..."). */
struct case_ctx {
	struct lr_serving_report *r;
	int row, route;
	const char *where; /* NULL: the cell's own failure */
	const char *check;
	int *count; /* r->failing_compared or r->failing_gated */
};

/* "LABEL / ROUTE (WHERE): case ID: WHAT" into 'failing', and its parts into 'failures'. */
static int add_failure(const struct case_ctx *x, const char *case_id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add_failure(const struct case_ctx *x, const char *case_id, const char *fmt, ...)
{
	struct lr_serving_report *r = x->r;
	struct lr_serving_failure *f;
	struct lr_buf what = LR_BUF_INIT, all = LR_BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	lr_buf_vaddf(&what, fmt, ap);
	va_end(ap);
	lr_buf_addf(&all, "%s / %s", r->rows[x->row].label, r->routes[x->route]);
	if (x->where)
		lr_buf_addf(&all, " (%s)", x->where);
	if (case_id)
		lr_buf_addf(&all, ": case %s", case_id);
	lr_buf_addf(&all, ":%s%s", what.len ? " " : "", what.buf);
	if ((rc = lr_buf_error(&what) ?: lr_buf_error(&all)))
		goto out;
	if (!(f = realloc(r->failures, (r->failing.n + 1) * sizeof *f))) { /* first: 'failures' never has fewer */
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	r->failures = f;
	if ((rc = lr_strlist_add(&r->failing, all.buf)))
		goto out;
	f = &f[r->failing.n - 1];
	*f = (struct lr_serving_failure){ x->row, x->route, strdup(x->check), case_id ? strdup(case_id) : NULL,
					  lr_buf_detach(&what, NULL) };
	if (!f->check || (case_id && !f->case_id) || !f->what)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
out:
	lr_buf_release(&what);
	lr_buf_release(&all);
	return rc;
}

static int note_case(void *arg, const char *case_id, const struct lr_case_outcome *o)
{
	struct case_ctx *x = arg;
	char tokens[64] = "", what[160];

	++*x->count;
	if (o->missing)
		return add_failure(x, case_id, "missing in the %s", o->missing == 1 ? "reference" : "candidate");
	if (!o->tokens_equal)
		snprintf(tokens, sizeof tokens, " tokens differ at position %lld;", (long long)o->first_token_diff);
	snprintf(what, sizeof what, "%s%s%s", tokens, o->text_equal ? "" : " text differs;",
		 o->finish_equal ? "" : " finish reason differs;");
	return add_failure(x, case_id, "%s", what + (what[0] == ' '));
}

static int count_comparison(void *arg, const struct lr_comparison_row *k)
{
	struct collect *c = arg;
	struct lr_serving_cell *cell = cell_of(c->r, k->run, k->cond, k->cand_route);
	struct lr_serving_parity *p;
	char where[400], check[400];
	struct case_ctx x = { c->r, 0, 0, where, check, &c->r->failing_compared };
	int within = !strcmp(k->kind, "within-route");

	if (!cell)
		return 0;
	if (!within) { /* the reference was compared too: of the same condition, or by hand */
		struct lr_serving_cell *ref =
			cell_of(c->r, k->ref_run, k->ref_run == k->run ? k->cond : -1, k->ref_route);

		if (ref)
			ref->referenced++;
	}
	p = within ? &cell->within : &cell->cross;
	p->comparisons++;
	p->exact += k->exact;
	p->compared += k->total;
	if (k->exact == k->total && !k->finish_mismatch)
		return 0;
	p->failing++;
	x.row = row_index(c->r, k->run, k->cond, 0);
	x.route = route_index(c->r, k->cand_route, 0);
	lr_fmt_cut(where, sizeof where, "comparison %lld: %s, against %s of run %lld", (long long)k->id, k->kind,
		   k->ref_route, (long long)k->ref_run);
	if (within)
		snprintf(check, sizeof check, "within-route comparison");
	else if (k->ref_run == k->run)
		lr_fmt_cut(check, sizeof check, "%s comparison against %s", k->kind, k->ref_route);
	else
		lr_fmt_cut(check, sizeof check, "%s comparison against %s of run %lld", k->kind, k->ref_route,
			   (long long)k->ref_run);
	return lr_store_comparison_failures(c->st, k->id, note_case, &x);
}

static int note_gate_case(void *arg, const struct lr_gate_case *g)
{
	struct case_ctx *x = arg;
	char what[160];

	++*x->count;
	if (g->missing)
		return add_failure(x, g->case_id, "no response");
	snprintf(what, sizeof what, "%s%s%s", g->format_ok ? "" : " format fails;",
		 g->format_ok && !g->answer_ok ? " wrong answer;" : "", g->eos ? "" : " no EOS;");
	return add_failure(x, g->case_id, "%s", what + (what[0] == ' '));
}

static int count_gate(void *arg, const struct lr_gate_row *g)
{
	struct collect *c = arg;
	struct lr_serving_cell *cell = cell_of(c->r, g->run, g->cond, g->route);
	char where[400];
	struct case_ctx x = { c->r, 0, 0, where, "gate", &c->r->failing_gated };

	if (!cell)
		return 0;
	/* the latest gate of a cell is the one shown */
	cell->gated = 1;
	cell->strict = g->strict;
	cell->formats = g->formats;
	cell->eos = g->eos;
	cell->gate_total = g->total;
	if (g->strict == g->total && g->eos == g->total)
		return 0;
	x.row = row_index(c->r, g->run, g->cond, 0);
	x.route = route_index(c->r, g->route, 0);
	lr_fmt_cut(where, sizeof where, "gate, key %.12s", g->key_sha256);
	return lr_store_gate_failures(c->st, g->id, note_gate_case, &x);
}

static int count_collect_failure(void *arg, const struct lr_collect_failure *f)
{
	struct collect *c = arg;
	struct lr_serving_cell *cell = cell_of(c->r, c->run, f->cond, f->route);
	char where[64];
	struct case_ctx x = { c->r, 0, 0, where, "collect", NULL };

	if (!cell)
		return 0;
	cell->declared = 1;
	cell->not_collected++;
	c->r->not_collected++;
	x.row = row_index(c->r, c->run, f->cond, 0);
	x.route = route_index(c->r, f->route, 0);
	snprintf(where, sizeof where, "collect, set %lld", (long long)f->set);
	return add_failure(&x, f->case_id, "not collected: %s", f->failure);
}

/* ---- latency, TTFT and tokens/s per route ------------------------------------------ */

struct route_samples {
	struct lr_values latency, ttft, tps;
};

static int take(void *arg, const struct lr_response *r)
{
	struct route_samples *s = arg;
	int64_t out = r->output_tokens >= 0 ? r->output_tokens : r->ntokens;
	int rc = 0;

	if (!isnan(r->latency_ms))
		rc = lr_values_push(&s->latency, r->latency_ms);
	if (!rc && !isnan(r->ttft_ms))
		rc = lr_values_push(&s->ttft, r->ttft_ms);
	if (!rc && !isnan(r->latency_ms) && r->latency_ms > 0)
		rc = lr_values_push(&s->tps, (double)out / (r->latency_ms / 1e3));
	return rc;
}

/* Median and p90 (nearest rank) of s; n = 0 when there are none. */
static void summary(struct lr_values *s, struct lr_serving_dist *d)
{
	d->n = (int64_t)s->n;
	if (!s->n)
		return;
	lr_values_sort(s);
	d->p90 = s->v[(size_t)ceil(0.9 * (double)s->n) - 1];
	d->median = lr_median(s->v, s->n);
}

struct stats_ctx {
	struct lr_store *st;
	const char *route;
	struct route_samples *s;
};

static int route_sets(void *arg, const struct lr_response_set *set)
{
	struct stats_ctx *x = arg;

	return lr_store_set_responses(x->st, set->id, take, x->s);
}

/* ---- fault evidence: cut streams against the reference ---- */

/* How token array a (JSON) stands against reference b: equal, a prefix of it, or differing at a position. */
static void against(char *out, size_t len, const char *a, const char *b)
{
	json_t *x = json_loads(a ? a : "[]", 0, NULL), *y = json_loads(b ? b : "[]", 0, NULL);
	size_t n = json_array_size(x), m = json_array_size(y), i = 0;

	while (i < n && i < m && json_equal(json_array_get(x, i), json_array_get(y, i)))
		i++;
	if (i == n && n == m)
		snprintf(out, len, "equal to the reference's %zu", m);
	else if (i == n)
		snprintf(out, len, "the first %zu of the reference's %zu", n, m);
	else
		snprintf(out, len, "differing from the reference at position %zu", i);
	json_decref(x);
	json_decref(y);
}

static int take_cut(void *arg, const struct lr_collect_cut *c)
{
	json_t *t = json_loads(c->tokens, 0, NULL);
	char mine[96] = "no reference", ref[40] = "", repl[128] = "", *line = NULL;
	int rc;

	if (c->ref_set) {
		against(mine, sizeof mine, c->tokens, c->ref_tokens);
		snprintf(ref, sizeof ref, " (set %lld)", (long long)c->ref_set);
	}
	if (c->ref_set && c->repl_set) {
		int k = snprintf(repl, sizeof repl, "; its replacement (set %lld): ", (long long)c->repl_set);

		against(repl + k, sizeof repl - (size_t)k, c->repl_tokens, c->ref_tokens);
	}
	rc = asprintf(&line, "set %lld (%s): case %s cut (%s) after %zu token(s): %s%s%s", (long long)c->set, c->route,
		      c->case_id, c->failure, json_array_size(t), mine, ref, repl) < 0
		     ? lr_error_set(LR_ENOMEM, "out of memory")
		     : lr_strlist_add(arg, line);
	json_decref(t);
	free(line);
	return rc;
}

static int take_survivors(void *arg, int64_t set, int64_t survivors, int64_t exact, int64_t no_ref)
{
	char line[256];

	snprintf(line, sizeof line,
		 "set %lld: %lld survivor(s) of the cut pass, %lld equal to the reference, %lld differing, %lld "
		 "without a reference",
		 (long long)set, (long long)survivors, (long long)exact, (long long)(survivors - exact - no_ref),
		 (long long)no_ref);
	return lr_strlist_add(arg, line);
}

/* Every cut stream of the runs, and every cut pass's survivors, against the reference. */
static int fault_evidence(struct lr_store *st, struct lr_serving_report *r, const int64_t *runs, int nruns)
{
	int rc = 0;

	for (int k = 0; k < nruns && !rc; k++)
		if (!(rc = lr_store_collect_cuts(st, runs[k], take_cut, &r->cuts)))
			rc = lr_store_collect_survivors(st, runs[k], take_survivors, &r->cuts);
	return rc;
}

static int route_stats(struct lr_store *st, struct lr_serving_report *r, const int64_t *runs, int nruns)
{
	int i, k, rc = 0;

	for (k = 0; k < r->nroutes && !rc; k++) {
		struct route_samples s = { { 0 }, { 0 }, { 0 } };
		struct stats_ctx x = { st, r->routes[k], &s };

		for (i = 0; i < nruns && !rc; i++)
			rc = lr_store_sets(st, runs[i], r->routes[k], route_sets, &x);
		summary(&s.latency, &r->stats[k].latency_ms);
		summary(&s.ttft, &r->stats[k].ttft_ms);
		summary(&s.tps, &r->stats[k].tokens_per_s);
		free(s.latency.v);
		free(s.ttft.v);
		free(s.tps.v);
	}
	return rc;
}

/* ---- the report ------------------------------------------------------------------------ */

/* Count a collected cell by one check: 'checks' run on it, 'failing' of them failing. */
static void tally(struct lr_serving_tally *t, int checks, int failing)
{
	if (!checks)
		t->unchecked++;
	else if (failing)
		t->failing++;
	else
		t->exact++;
}

int lr_serving_report_build(struct lr_store *st, const int64_t *runs, int nruns, const char *const *routes, int nroutes,
			    struct lr_serving_report *r)
{
	struct collect c = { r, st, nroutes == 0, 0, 0 };
	int i, k, rc = 0;

	memset(r, 0, sizeof *r);
	for (k = 0; k < nroutes && !rc; k++)
		rc = route_index(r, routes[k], 1) < 0 ? LR_EINVAL : 0;
	for (i = 0; i < nruns && !rc; i++)
		if (!(rc = lr_store_sets(st, runs[i], NULL, note_set, &c)) && nroutes == 0)
			rc = lr_store_arm_routes(st, runs[i], note_route, &c);
	for (i = 0; i < nruns && !rc; i++)
		rc = experiment_rows(st, r, runs[i]);
	if (rc || !r->nrows)
		return rc;
	if ((rc = label_rows(st, r)))
		return rc;
	r->cells = calloc((size_t)r->nrows * (size_t)(r->nroutes ? r->nroutes : 1), sizeof *r->cells);
	r->stats = calloc((size_t)(r->nroutes ? r->nroutes : 1), sizeof *r->stats);
	if (!r->cells || !r->stats)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < r->nrows * r->nroutes && nroutes; i++)
		r->cells[i].declared = 1; /* routes named (--routes) are asked of every row */
	for (i = 0; i < nruns && !rc; i++) {
		c.run = runs[i];
		if (!(rc = lr_store_sets(st, runs[i], NULL, count_set, &c)) &&
		    !(rc = lr_store_arm_routes(st, runs[i], declare_route, &c)) &&
		    !(rc = lr_store_comparisons(st, runs[i], count_comparison, &c)) &&
		    !(rc = lr_store_gates(st, runs[i], count_gate, &c)))
			rc = lr_store_collect_failures(st, runs[i], count_collect_failure, &c);
	}
	if (rc)
		return rc;
	for (i = 0; i < r->nrows * r->nroutes; i++) {
		const struct lr_serving_cell *x = &r->cells[i];
		struct case_ctx own = { r, i / r->nroutes, i % r->nroutes, NULL, "", NULL };

		if (!x->declared) { /* the run never meant to collect that route: no cell */
			r->undeclared++;
			continue;
		}
		r->ncells++;
		if (!x->sets) {
			r->uncollected++;
			if ((rc = add_failure(&own, NULL, "uncollected: the route has no responses there")))
				return rc;
			continue;
		}
		r->collected++;
		if (!x->within.comparisons && !x->cross.comparisons && !x->referenced &&
		    (rc = add_failure(&own, NULL,
				      "collected (%lld responses) but never compared: no repeated execution or "
				      "other route was compared with it ('labrun compare' does)",
				      (long long)x->cases)))
			return rc;
		tally(&r->within, x->within.comparisons, x->within.failing);
		tally(&r->cross, x->cross.comparisons, x->cross.failing);
		tally(&r->gates, x->gated, x->gated && (x->strict < x->gate_total || x->eos < x->gate_total));
	}
	if ((rc = route_stats(st, r, runs, nruns)))
		return rc;
	if ((rc = fault_evidence(st, r, runs, nruns)))
		return rc;
	return lr_pass_stats_build(st, runs, nruns, &r->passes, &r->npasses);
}

void lr_serving_report_release(struct lr_serving_report *r)
{
	free(r->rows);
	free(r->cells);
	free(r->stats);
	lr_pass_stats_free(r->passes, r->npasses);
	for (size_t i = 0; r->failures && i < r->failing.n; i++) {
		free(r->failures[i].check);
		free(r->failures[i].case_id);
		free(r->failures[i].what);
	}
	free(r->failures);
	lr_strlist_release(&r->failing);
	lr_strlist_release(&r->cuts);
	memset(r, 0, sizeof *r);
}
