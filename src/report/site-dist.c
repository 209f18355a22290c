/*
 * labrun site: what 'labrun collect' timed, drawn. On an issue's page, the
 * CDF of TTFT, ITL and E2EL per route, pooled over every pass of the issue's
 * runs (the tables give each pass's percentiles; the curve shows the whole
 * distribution, its tail included). On a run's page, each pass over time:
 * requests in flight as the client's own send and end times give them, and
 * the server's running and waiting gauges where they were sampled, on one
 * time axis with the concurrency asked.
 */
#include "config.h"
#include "base/system.h"

#include <jansson.h>
#include <math.h>

#include "base/error.h"
#include "base/list.h"
#include "report/site-int.h"
#include "report/text.h"
#include "serving/passes.h"
#include "serving/report.h"
#include "store/collect.h"

#define POINTS  240 /* a CDF is drawn through this many of its values at most */
#define COLUMNS 480 /* a pass is drawn as this many columns of time, each its largest count */

/* ---- distributions per route ---- */

enum { TTFT, ITL, E2EL, NMETRICS };

int lr_site_pool_add(struct lr_site_pool *p, double x)
{
	int rc;

	if (!p->stride)
		p->stride = 1;
	if (p->seen++ % p->stride)
		return 0;
	if ((rc = lr_values_push(&p->v, x)) || p->v.n < (p->most ? p->most : LR_SITE_POOL_MOST))
		return rc;
	for (size_t i = 0; 2 * i < p->v.n; i++) /* those at every 2 * stride-th place stay */
		p->v.v[i] = p->v.v[2 * i];
	p->v.n = (p->v.n + 1) / 2;
	p->stride *= 2;
	return 0;
}

struct dist_ctx {
	struct lr_store *st;
	const struct lr_serving_report *sv;
	struct lr_site_pool (*v)[NMETRICS]; /* per route of sv */
	int route, passes;
};

static int dist_row(void *arg, const struct lr_collect_row *r)
{
	struct dist_ctx *c = arg;
	struct lr_site_pool *v = c->v[c->route];
	json_t *gaps, *gap;
	size_t i;
	int rc = 0;

	if (!r->sent || r->failed) /* completed requests only, as the pass tables count them */
		return 0;
	if (!isnan(r->ttft_ms))
		rc = lr_site_pool_add(&v[TTFT], r->ttft_ms);
	if (!rc && !isnan(r->e2el_ms))
		rc = lr_site_pool_add(&v[E2EL], r->e2el_ms);
	gaps = r->itl_json ? json_loads(r->itl_json, 0, NULL) : NULL;
	json_array_foreach(gaps, i, gap) {
		if (!rc && json_is_number(gap))
			rc = lr_site_pool_add(&v[ITL], json_number_value(gap));
	}
	json_decref(gaps);
	return rc;
}

static int dist_pass(void *arg, const struct lr_collect_pass_row *p)
{
	struct dist_ctx *c = arg;

	for (c->route = 0; c->route < c->sv->nroutes && strcmp(c->sv->routes[c->route], p->route); c->route++)
		;
	if (c->route == c->sv->nroutes)
		return 0;
	c->passes++;
	return lr_store_collect_rows(c->st, p->set, dist_row, c);
}

/* A time in ms, to three significant figures or so. */
static const char *ms_text(char *buf, size_t len, double ms)
{
	snprintf(buf, len, "%.*f ms", ms >= 100 ? 0 : ms >= 10 ? 1 : 2, ms);
	return buf;
}

static void cdf(FILE *f, const struct lr_serving_report *sv, struct lr_site_pool (*pools)[NMETRICS], int m, int passes)
{
	static const char *const names[] = { "TTFT", "ITL", "E2EL" };
	struct lr_plot p = { .w = 560, .l = 64, .r = 16, .t = 28, .y0 = 0, .y1 = 1, .ystep = 0.25, .ypct = 1 };
	double lo = INFINITY, hi = -INFINITY, x[POINTS + 1], y[POINTS + 1];
	char title[160], axis[96], key[512], kept[64], a[32], b[32], c[32];
	int rows = 0;

	for (int k = 0; k < sv->nroutes; k++) {
		struct lr_values *s = &pools[k][m].v;

		if (s->n) {
			lr_values_sort(s); /* the axis from the fastest to the slowest, as a CDF's */
			lo = fmin(lo, s->v[0]);
			hi = fmax(hi, s->v[s->n - 1]);
			rows++;
		}
	}
	if (!rows)
		return;
	lr_plot_range(&lo, &hi, 6, 0, &p.xstep);
	p.x0 = lo;
	p.x1 = hi;
	lr_plot_size(&p, 180, rows);
	snprintf(title, sizeof title, "%s per route, %d pass%s pooled", names[m], passes, passes == 1 ? "" : "es");
	snprintf(axis, sizeof axis, "%s (ms)", names[m]);
	p.title = title;
	p.xlabel = axis;
	p.ylabel = m == ITL ? "share of gaps" : "share of requests";
	lr_plot_open(f, &p);
	rows = 0;
	for (int k = 0; k < sv->nroutes; k++) {
		const struct lr_values *s = &pools[k][m].v;
		size_t n = s->n, pts = n < POINTS ? n : POINTS;

		if (!n)
			continue;
		x[0] = s->v[0]; /* from 0 at the smallest value, a step up at each value drawn */
		y[0] = 0;
		for (size_t j = 0; j < pts; j++) {
			size_t i = pts > 1 ? (size_t)llround((double)j * (double)(n - 1) / (double)(pts - 1)) : n - 1;

			x[j + 1] = s->v[i];
			y[j + 1] = (double)(i + 1) / (double)n;
		}
		lr_plot_line(f, &p, k, x, y, pts + 1, 1, 0);
		snprintf(kept, sizeof kept, ", 1 in %zu kept", pools[k][m].stride);
		snprintf(key, sizeof key, "%s: %zu%s, median %s, p90 %s, p99 %s", sv->routes[k], pools[k][m].seen,
			 pools[k][m].stride > 1 ? kept : "", ms_text(a, sizeof a, lr_values_percentile(s, 50)),
			 ms_text(b, sizeof b, lr_values_percentile(s, 90)),
			 ms_text(c, sizeof c, lr_values_percentile(s, 99)));
		lr_plot_key(f, &p, rows++, k, 0, key);
	}
	lr_plot_close(f);
}

int lr_site_distributions(FILE *f, struct lr_store *st, const int64_t *runs, int n, const struct lr_serving_report *sv)
{
	struct lr_site_pool(*v)[NMETRICS] = calloc((size_t)(sv->nroutes ? sv->nroutes : 1), sizeof *v);
	struct dist_ctx c = { st, sv, v, 0, 0 };
	int rc = v ? 0 : lr_error_set(LR_ENOMEM, "out of memory");

	for (int i = 0; i < n && !rc; i++)
		rc = lr_store_collect_passes(st, runs[i], dist_pass, &c);
	if (!rc && c.passes) {
		fputs("<h3 id=\"distributions\">Distributions per route</h3>\n<p>Every request 'labrun collect' completed in the passes of "
		      "these runs, pooled per route: a curve rises at each time by the share of requests (for ITL, of "
		      "gaps between successive content events) that took that long, so its right end is the slowest "
		      "and a curve to the left of another is faster throughout. The key gives each route's count and "
		      "percentiles (linear between ranks, as the pass tables; past a million values of a route, "
		      "from an evenly spaced share of them, as the key says).</p>\n",
		      f);
		for (int m = 0; m < NMETRICS; m++)
			cdf(f, sv, v, m, c.passes);
	}
	for (int k = 0; v && k < sv->nroutes; k++)
		for (int m = 0; m < NMETRICS; m++)
			free(v[k][m].v.v);
	free(v);
	return rc;
}

/* ---- requests in flight over a pass ---- */

struct edge {
	double t;
	int d; /* +1 sent, -1 ended */
};

struct occ_ctx {
	struct edge *e;
	size_t n, cap;
	struct lr_values t, running, waiting; /* the gauge samples, ms after the pass start */
	double end;                           /* the last time anything happened, ms */
	int peak;
};

static int occ_row(void *arg, const struct lr_collect_row *r)
{
	struct occ_ctx *c = arg;
	int rc;

	if (!r->sent || isnan(r->end_ms)) /* never sent, or no end to put it between */
		return 0;
	if ((rc = LR_ALLOC_GROW(c->e, c->n + 2, c->cap)))
		return lr_error_set(rc, "out of memory");
	c->e[c->n++] = (struct edge){ r->sent_ms, 1 };
	c->e[c->n++] = (struct edge){ r->end_ms, -1 };
	c->end = fmax(c->end, r->end_ms);
	return 0;
}

static int occ_gauge(void *arg, const struct lr_gauge_sample *g)
{
	struct occ_ctx *c = arg;
	int rc;

	c->end = fmax(c->end, g->t_s * 1e3);
	if ((rc = lr_values_push(&c->t, g->t_s * 1e3)) || (rc = lr_values_push(&c->running, g->running)))
		return rc;
	return lr_values_push(&c->waiting, g->waiting);
}

/* A start sorts before an end at the same time, as the pass tables count them. */
static int by_time(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t ? 1 : b->d - a->d;
}

/*
 * A step series (value v[i] from t[i] on; NAN before t[0], and after t[n-1]
 * unless 'hold') as COLUMNS columns of time from 0, each the largest value
 * it saw (out[COLUMNS] the last again, at the end): a request shorter than
 * a pixel still shows, and a gauge is drawn over the span it was sampled,
 * no further.
 */
static void columns(const double *t, const double *v, size_t n, double dt, int hold, double *out)
{
	double level = NAN;
	size_t i = 0;

	for (int k = 0; k < COLUMNS; k++) {
		double most = !hold && n && k * dt > t[n - 1] ? NAN : level;

		while (i < n && t[i] < (k + 1) * dt) {
			level = v[i++];
			most = isnan(most) ? level : fmax(most, level);
		}
		out[k] = most;
	}
	out[COLUMNS] = out[COLUMNS - 1];
}

static int occ_plot(FILE *f, const struct lr_collect_pass_row *pass, struct occ_ctx *c, int64_t run)
{
	struct lr_plot p = { .w = 560, .l = 56, .r = 16, .t = 28, .x0 = 0 };
	double *t = malloc((c->n + 1) * sizeof *t), *v = malloc((c->n + 1) * sizeof *v), x[COLUMNS + 1], y[COLUMNS + 1],
	       unit = c->end > 10000 ? 1e3 : 1, top = fmax(pass->concurrency, 1), lo = 0, dt;
	char title[320], key[160];
	int level = 0, row = 0;

	if (!t || !v) {
		free(t);
		free(v);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	qsort(c->e, c->n, sizeof *c->e, by_time);
	t[0] = 0;
	v[0] = 0;
	for (size_t i = 0; i < c->n; i++) {
		t[i + 1] = c->e[i].t;
		v[i + 1] = level += c->e[i].d;
		c->peak = level > c->peak ? level : c->peak;
	}
	top = fmax(top, c->peak);
	for (size_t i = 0; i < c->t.n; i++)
		top = fmax(top, fmax(isnan(c->running.v[i]) ? 0 : c->running.v[i],
				     isnan(c->waiting.v[i]) ? 0 : c->waiting.v[i]));
	p.x1 = c->end > 0 ? c->end / unit : 1;
	lr_plot_range(&p.x0, &p.x1, 6, 0, &p.xstep);
	lr_plot_range(&lo, &top, 5, 1, &p.ystep);
	p.y1 = top;
	lr_plot_size(&p, 150, c->t.n ? 4 : 2);
	snprintf(title, sizeof title, "Run %lld, the pass of set %lld, route %s: requests in flight", (long long)run,
		 (long long)pass->set, pass->route);
	p.title = title;
	p.xlabel = unit > 1 ? "s since the pass began" : "ms since the pass began";
	p.ylabel = "requests";
	lr_plot_open(f, &p);
	x[0] = p.x0; /* under the counts: where they reach it, they are drawn over it */
	x[1] = p.x1;
	y[0] = y[1] = pass->concurrency;
	lr_plot_line(f, &p, 4, x, y, 2, 0, 0);
	dt = p.x1 * unit / COLUMNS;
	for (int k = 0; k <= COLUMNS; k++)
		x[k] = k * dt / unit;
	columns(t, v, c->n + 1, dt, 1, y);
	lr_plot_line(f, &p, 0, x, y, COLUMNS + 1, 1, 0);
	snprintf(key, sizeof key, "client: requests sent and not yet ended (peak %d)", c->peak);
	lr_plot_key(f, &p, row++, 0, 0, key);
	if (c->t.n) {
		columns(c->t.v, c->running.v, c->t.n, dt, 0, y);
		lr_plot_line(f, &p, 1, x, y, COLUMNS + 1, 1, 0);
		snprintf(key, sizeof key, "server: the running gauge, %zu sample%s, each held to the next", c->t.n,
			 c->t.n == 1 ? "" : "s");
		lr_plot_key(f, &p, row++, 1, 0, key);
		columns(c->t.v, c->waiting.v, c->t.n, dt, 0, y);
		lr_plot_line(f, &p, 2, x, y, COLUMNS + 1, 1, 0);
		lr_plot_key(f, &p, row++, 2, 0, "server: the waiting gauge");
	}
	snprintf(key, sizeof key, "the concurrency asked: %d", pass->concurrency);
	lr_plot_key(f, &p, row, 4, 0, key);
	lr_plot_close(f);
	free(t);
	free(v);
	return 0;
}

struct occ_run {
	FILE *f;
	struct lr_store *st;
	int64_t run;
	int shown;
};

static int occ_pass(void *arg, const struct lr_collect_pass_row *p)
{
	struct occ_run *o = arg;
	struct occ_ctx c = { 0 };
	int rc;

	if (!(rc = lr_store_collect_rows(o->st, p->set, occ_row, &c)) &&
	    !(rc = lr_store_collect_gauges(o->st, p->set, occ_gauge, &c))) {
		if (!o->shown++)
			fputs("<h3 id=\"in-flight\">Requests in flight over each pass</h3>\n<p>Each pass 'labrun collect' made, over "
			      "time from its start: the requests the client had sent and not yet seen end (from each "
			      "request's own send and end times), and, where the server's Prometheus gauges were "
			      "sampled (--metrics-url), its running and waiting counts, each sample held until the "
			      "next. A time column is drawn at the most it held, so a request shorter than a pixel "
			      "still shows.</p>\n",
			      o->f);
		rc = occ_plot(o->f, p, &c, o->run);
	}
	free(c.e);
	free(c.t.v);
	free(c.running.v);
	free(c.waiting.v);
	return rc;
}

int lr_site_occupancy(FILE *f, struct lr_store *st, int64_t run)
{
	struct occ_run o = { f, st, run, 0 };

	return lr_store_collect_passes(st, run, occ_pass, &o);
}
