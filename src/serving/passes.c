/* The figures of collected passes, recomputed from their rows (passes.h). */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include <jansson.h>

#include "base/error.h"
#include "base/list.h"
#include "serving/passes.h"
#include "store/collect.h"

int lr_values_push(struct lr_values *s, double x)
{
	int rc;

	if ((rc = LR_ALLOC_GROW(s->v, s->n + 1, s->cap)))
		return rc;
	s->v[s->n++] = x;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void lr_values_sort(struct lr_values *s)
{
	qsort(s->v, s->n, sizeof *s->v, cmp_double);
}

/* The p-th percentile of sorted v[0..n), between ranks as NumPy's default does. */
static double percentile(const double *v, size_t n, double p)
{
	double r = p / 100 * (double)(n - 1), f = floor(r);
	size_t i = (size_t)f;

	return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (r - f) : v[n - 1];
}

double lr_values_percentile(const struct lr_values *s, double p)
{
	return s->n ? percentile(s->v, s->n, p) : NAN;
}

static void summarise(struct lr_values *s, struct lr_dist4 *d)
{
	double sum = 0;

	memset(d, 0, sizeof *d);
	if (!(d->n = (int64_t)s->n))
		return;
	lr_values_sort(s);
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	d->mean = sum / (double)s->n;
	d->median = percentile(s->v, s->n, 50);
	d->p90 = percentile(s->v, s->n, 90);
	d->p99 = percentile(s->v, s->n, 99);
}

static int take_itl(struct lr_pass_acc *a, const char *json)
{
	json_t *v = json ? json_loads(json, 0, NULL) : NULL;
	int rc = 0;

	for (size_t i = 0; json_is_array(v) && i < json_array_size(v) && !rc; i++)
		rc = lr_values_push(&a->itl, json_number_value(json_array_get(v, i)));
	json_decref(v);
	return rc;
}

int lr_pass_add(struct lr_pass_acc *a, const struct lr_collect_row *r)
{
	int rc = 0;

	a->p->requests++;
	if (!r->sent) {
		a->p->unsent++;
		return 0;
	}
	a->first = fmin(a->first, r->sent_ms);
	a->last = fmax(a->last, r->end_ms);
	if ((rc = lr_values_push(&a->edges, r->sent_ms)) || (rc = lr_values_push(&a->edges, -r->end_ms - 1e-9)))
		return rc;
	if (r->failed) {
		a->p->failed++;
		return 0;
	}
	a->p->completed++;
	if (!isnan(r->lag_ms)) { /* the client's checks, stored since migration 24 */
		a->p->has_checks = 1;
		a->p->usage_differs +=
			r->usage_tokens >= 0 && r->received_tokens >= 0 && r->usage_tokens != r->received_tokens;
		a->p->first_late += r->first_ok == 0;
		if ((rc = lr_values_push(&a->lag, r->lag_ms)) ||
		    (!isnan(r->ttft_ms) && (rc = lr_values_push(&a->sttft, r->ttft_ms + r->lag_ms))) ||
		    (!isnan(r->e2el_ms) && (rc = lr_values_push(&a->se2el, r->e2el_ms + r->lag_ms))))
			return rc;
	}
	if (r->output_tokens >= 0)
		a->out_tokens += r->output_tokens;
	a->all_tokens +=
		(r->output_tokens >= 0 ? r->output_tokens : 0) + (r->prompt_tokens >= 0 ? r->prompt_tokens : 0);
	if (!isnan(r->ttft_ms))
		rc = lr_values_push(&a->ttft, r->ttft_ms);
	if (!rc && !isnan(r->e2el_ms))
		rc = lr_values_push(&a->e2el, r->e2el_ms);
	if (!rc && r->output_tokens > 1 && !isnan(r->ttft_ms) && !isnan(r->e2el_ms))
		rc = lr_values_push(&a->tpot, (r->e2el_ms - r->ttft_ms) / (double)(r->output_tokens - 1));
	if (!rc) {
		/* vLLM's goodput: every SLO given met; a request of one token has a TPOT of 0 */
		double tpot = r->output_tokens > 1 ? (r->e2el_ms - r->ttft_ms) / (double)(r->output_tokens - 1) : 0;
		const struct lr_pass_stats *p = a->p;

		a->p->good += (!p->slo_ms[0] || r->ttft_ms <= p->slo_ms[0]) &&
			      (!p->slo_ms[1] || tpot <= p->slo_ms[1]) && (!p->slo_ms[2] || r->e2el_ms <= p->slo_ms[2]);
	}
	return rc ? rc : take_itl(a, r->itl_json);
}

static int take_row(void *arg, const struct lr_collect_row *r)
{
	return lr_pass_add(arg, r);
}

static int by_time(const void *x, const void *y)
{
	double a = fabs(*(const double *)x), b = fabs(*(const double *)y);

	return a < b ? -1 : a > b;
}

/* Requests in flight over the pass: peak, time-weighted mean, share at the level asked, histogram. */
static int occupancy(struct lr_pass_acc *a)
{
	struct lr_pass_stats *p = a->p;
	double span = a->last - a->first, t = a->first, *w;
	int k = 0;

	qsort(a->edges.v, a->edges.n, sizeof *a->edges.v, by_time);
	for (size_t i = 0; i < a->edges.n; i++)
		p->peak = (k += a->edges.v[i] >= 0 ? 1 : -1) > p->peak ? k : p->peak;
	if (!(w = calloc((size_t)p->peak + 1, sizeof *w)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	k = 0;
	for (size_t i = 0; i < a->edges.n; i++) { /* an end sorts after a start at the same time: k >= 0 */
		double at = fabs(a->edges.v[i]);

		w[k] += at - t;
		t = at;
		k += a->edges.v[i] >= 0 ? 1 : -1;
	}
	p->occupancy = w;
	p->level_asked = !(p->rate > 0 && p->concurrency >= p->requests);
	p->reached = p->peak >= p->concurrency;
	for (int j = 0; span > 0 && j <= p->peak; j++) {
		w[j] /= span;
		p->mean_inflight += j * w[j];
		if (j >= p->concurrency)
			p->at_level += w[j];
	}
	return 0;
}

void lr_pass_begin(struct lr_pass_acc *a, struct lr_pass_stats *p)
{
	memset(a, 0, sizeof *a);
	a->p = p;
	a->first = INFINITY;
	a->last = -INFINITY;
}

int lr_pass_end(struct lr_pass_acc *a, int rc)
{
	struct lr_pass_stats *p = a->p;

	if (!rc && a->edges.n && !(rc = occupancy(a))) {
		p->duration_s = (a->last - a->first) / 1e3;
		if (p->duration_s > 0) {
			p->request_rate = (double)p->completed / p->duration_s;
			p->output_rate = (double)a->out_tokens / p->duration_s;
			p->total_rate = (double)a->all_tokens / p->duration_s;
			if (p->slo_ms[0] > 0 || p->slo_ms[1] > 0 || p->slo_ms[2] > 0)
				p->goodput = (double)p->good / p->duration_s;
		}
	}
	summarise(&a->ttft, &p->ttft_ms);
	summarise(&a->tpot, &p->tpot_ms);
	summarise(&a->itl, &p->itl_ms);
	summarise(&a->e2el, &p->e2el_ms);
	summarise(&a->sttft, &p->sched_ttft_ms);
	summarise(&a->se2el, &p->sched_e2el_ms);
	summarise(&a->lag, &p->lag_ms);
	p->ttft_at = lr_valid_percentile(&p->rules, &a->ttft); /* sorted by summarise */
	p->tpot_at = lr_valid_percentile(&p->rules, &a->tpot);
	p->ttft_over = lr_valid_over(&a->ttft, p->rules.ttft_ms);
	p->tpot_over = lr_valid_over(&a->tpot, p->rules.tpot_ms);
	free(a->ttft.v);
	free(a->tpot.v);
	free(a->itl.v);
	free(a->e2el.v);
	free(a->sttft.v);
	free(a->se2el.v);
	free(a->lag.v);
	free(a->edges.v);
	return rc;
}

/* The samples of a pass, read from the store into an array for lr_pass_gauges. */
struct gauges {
	struct lr_gauge_sample *v;
	size_t n, cap;
};

static int take_gauge(void *arg, const struct lr_gauge_sample *g)
{
	struct gauges *x = arg;
	int rc;

	if ((rc = LR_ALLOC_GROW(x->v, x->n + 1, x->cap)))
		return rc;
	x->v[x->n] = *g;
	x->v[x->n++].failed = g->failed ? "failed" : NULL; /* the store's text lives only in the callback */
	return 0;
}

struct build {
	struct lr_store *st;
	int64_t run;
	struct lr_pass_stats *v;
	int n;
};

static int take_pass(void *arg, const struct lr_collect_pass_row *row)
{
	struct build *b = arg;
	struct lr_pass_stats *v = realloc(b->v, (size_t)(b->n + 1) * sizeof *v), *p;
	struct lr_pass_acc a;
	int rc;

	if (!v)
		return lr_error_set(LR_ENOMEM, "out of memory");
	b->v = v;
	p = &v[b->n++];
	memset(p, 0, sizeof *p);
	p->run = b->run;
	p->set = row->set;
	snprintf(p->route, sizeof p->route, "%s", row->route);
	p->cond = row->cond;
	p->concurrency = row->concurrency;
	p->cancelled = row->cancelled;
	p->rate = row->rate;
	memcpy(p->slo_ms, row->slo_ms, sizeof p->slo_ms);
	p->rules =
		(struct lr_valid_rules){ row->min_duration_s, row->min_requests, row->ttft_limit_ms, row->tpot_limit_ms,
					 row->percentile,     row->linear,       row->early };
	lr_pass_begin(&a, p);
	rc = lr_store_collect_rows(b->st, row->set, take_row, &a);
	if ((rc = lr_pass_end(&a, rc)))
		return rc;
	{
		struct gauges g = { NULL, 0, 0 };

		if (!(rc = lr_store_collect_gauges(b->st, p->set, take_gauge, &g)))
			rc = lr_pass_gauges(p, g.v, g.n);
		free(g.v);
	}
	if (!rc)
		lr_pass_verdict(p);
	return rc;
}

int lr_pass_stats_build(struct lr_store *st, const int64_t *runs, int n, struct lr_pass_stats **out, int *nout)
{
	struct build b = { st, 0, NULL, 0 };
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		b.run = runs[i];
		rc = lr_store_collect_passes(st, runs[i], take_pass, &b);
	}
	if (rc) {
		lr_pass_stats_free(b.v, b.n);
		b.v = NULL, b.n = 0;
	}
	*out = b.v;
	*nout = b.n;
	return rc;
}

void lr_pass_stats_free(struct lr_pass_stats *p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i].occupancy);
		free(p[i].gauge_occupancy);
	}
	free(p);
}
