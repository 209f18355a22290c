/*
 * A collected pass's validity verdict, in the manner of MLPerf LoadGen
 * (passes.h): the rules a definition or 'collect --validity' declares,
 * the checks always made, and the server's gauges with their gaps.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/buf.h"
#include "base/error.h"
#include "serving/passes.h"

#define LR_LITTLE_TOLERANCE 0.10 /* Little's law: the two sides may differ by this share of the larger */
#define LR_GAUGE_TOLERANCE  0.25 /* the server's gauge against the client's X R: beyond it, a flag */

/*
 * Each "name:value" of text (blanks or commas between), with the index of
 * its name in names[0..n), n when it is none of them: fn's non-zero return
 * stops. 'what' names the text in the error for one too long.
 */
typedef int (*named_fn)(void *arg, int k, const char *tok, const char *value);
static int each_named(const char *text, const char *what, const char *const *names, int n, named_fn fn, void *arg)
{
	char buf[256], *save = NULL, *tok;
	unsigned seen = 0;
	int rc = 0;

	if (strlen(text) >= sizeof buf)
		return lr_error_set(LR_EINVAL, "%s '%.40s...' are too long", what, text);
	snprintf(buf, sizeof buf, "%s", text);
	for (tok = strtok_r(buf, " ,", &save); tok && !rc; tok = strtok_r(NULL, " ,", &save)) {
		char *colon = strchr(tok, ':');
		int k;

		for (k = 0; k < n && (!colon || (size_t)(colon - tok) != strlen(names[k]) ||
				      strncmp(tok, names[k], strlen(names[k])));
		     k++)
			;
		if (k < n && (seen & 1u << k)) { /* the last would win silently: a failing rule made to pass */
			lr_error_set(LR_EINVAL, "%s '%s' name '%s' twice", what, text, names[k]);
			lr_error_hint("give each once");
			return LR_EINVAL;
		}
		seen |= k < n ? 1u << k : 0;
		rc = fn(arg, k, tok, colon ? colon + 1 : "");
	}
	if (!rc && !seen && !strpbrk(text, ":")) {
		lr_error_set(LR_EINVAL, "%s '%s' name none", what, text);
		lr_error_hint("leave the option out for none");
		return LR_EINVAL;
	}
	return rc;
}

/* A decimal number, as written in a rule: digits, '.', an exponent; no hex, inf or nan. */
static int decimal(const char *v)
{
	return *v && strspn(v, "0123456789.eE+-") == strlen(v);
}

static int take_slo(void *arg, int k, const char *tok, const char *value)
{
	double *slo_ms = arg;
	char *end;

	if (k == 3 || !decimal(value) || !((slo_ms[k] = strtod(value, &end)) > 0) || *end) {
		lr_error_set(LR_EINVAL, "goodput SLO '%s' is not ttft:MS, tpot:MS or e2el:MS with MS > 0", tok);
		lr_error_hint("as vLLM's bench serve takes them: e.g. 'ttft:200 tpot:50'");
		return LR_EINVAL;
	}
	return 0;
}

int lr_pass_slos(const char *text, double slo_ms[3])
{
	static const char *const names[] = { "ttft", "tpot", "e2el" };

	slo_ms[0] = slo_ms[1] = slo_ms[2] = 0;
	return each_named(text, "goodput SLOs", names, 3, take_slo, slo_ms);
}

static int bad_rule(const char *tok)
{
	lr_error_set(LR_EINVAL,
		     "validity rule '%s' is not duration:S, requests:N, ttft:MS, tpot:MS, percentile:P, "
		     "convention:nearest-rank|linear or early-stopping:yes|no",
		     tok);
	lr_error_hint("e.g. 'duration:600 requests:1000 ttft:2000 tpot:100' (LoadGen's Llama2-70B server limits)");
	return LR_EINVAL;
}

static int take_rule(void *arg, int k, const char *tok, const char *value)
{
	struct lr_valid_rules *r = arg;
	char *end;
	double v;

	if (k == 7)
		return bad_rule(tok);
	if (k == 6) {
		if (strcmp(value, "yes") && strcmp(value, "no"))
			return bad_rule(tok);
		r->early = !strcmp(value, "yes");
		return 0;
	}
	if (k == 5) {
		if (strcmp(value, "nearest-rank") && strcmp(value, "linear"))
			return bad_rule(tok);
		r->linear = !strcmp(value, "linear");
		return 0;
	}
	v = decimal(value) ? strtod(value, &end) : NAN;
	if (!(v > 0) || !isfinite(v) || *value == '\0' || *end || (k == 1 && (v != floor(v) || v > 1e15)) ||
	    (k == 4 && v >= 100))
		return bad_rule(tok);
	if (k == 0)
		r->min_duration_s = v;
	else if (k == 1)
		r->min_requests = (int64_t)v;
	else if (k == 2)
		r->ttft_ms = v;
	else if (k == 3)
		r->tpot_ms = v;
	else
		r->percentile = v;
	return 0;
}

int lr_valid_rules_parse(const char *text, struct lr_valid_rules *r)
{
	static const char *const names[] = { "duration",   "requests",   "ttft",          "tpot",
					     "percentile", "convention", "early-stopping" };

	memset(r, 0, sizeof *r);
	r->percentile = 99;
	return each_named(text, "validity rules", names, 7, take_rule, r);
}

int64_t lr_valid_over(const struct lr_values *v, double limit)
{
	int64_t n = 0;

	for (size_t i = 0; limit > 0 && i < v->n; i++)
		n += v->v[i] > limit;
	return n;
}

/* P(Binomial(h + t, p) >= h): at most t of h + t over the limit, were the true share under it only p. */
static double tail(int64_t h, int64_t t, double p)
{
	double n = (double)(h + t), sum = 0, lq = log1p(-p), lp = log(p);

	for (int64_t i = 0; i <= t; i++) /* i over the limit */
		sum += exp(lgamma(n + 1) - lgamma((double)i + 1) - lgamma(n - (double)i + 1) + (double)i * lq +
			   (n - (double)i) * lp);
	return sum;
}

int64_t lr_valid_early_needed(int64_t t, double p, double confidence)
{
	int64_t lo = 1, hi = 1;

	if (t > 100000)
		return 0;
	while (tail(hi, t, p) > 1 - confidence) { /* the tail falls as h grows: double, then halve */
		if (hi > ((int64_t)1 << 40))
			return 0;
		hi *= 2;
	}
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (tail(mid, t, p) > 1 - confidence)
			lo = mid + 1;
		else
			hi = mid;
	}
	return hi + t;
}

double lr_valid_percentile(const struct lr_valid_rules *r, const struct lr_values *v)
{
	double p = (r->percentile > 0 ? r->percentile : 99) / 100;
	size_t i;

	if (!v->n)
		return NAN;
	if (r->linear) { /* NumPy's: linear between ranks */
		double x = p * (double)(v->n - 1), f = floor(x);

		i = (size_t)f;
		return i + 1 < v->n ? v->v[i] + (v->v[i + 1] - v->v[i]) * (x - f) : v->v[v->n - 1];
	}
	i = (size_t)floor((double)v->n * p); /* LoadGen: the sorted array at n p, not interpolated */
	return v->v[i < v->n ? i : v->n - 1];
}

int lr_pass_gauges(struct lr_pass_stats *p, const struct lr_gauge_sample *g, size_t n)
{
	double span = 0, weighted = 0;

	p->gauge_mean = NAN;
	p->gauge_samples = 0;
	for (size_t i = 0; i < n; i++) {
		p->gauge_failed += g[i].failed != NULL;
		if (isnan(g[i].running))
			continue;
		p->gauge_samples++;
		p->gauge_peak = (int)fmax(p->gauge_peak, g[i].running);
		if (!isnan(g[i].waiting))
			p->gauge_waiting_peak = fmax(p->gauge_waiting_peak, g[i].waiting);
	}
	for (size_t i = 0; i + 1 < n; i++) { /* a value holds to the next sample; a failed scrape is a gap */
		double dt = g[i + 1].t_s - g[i].t_s;

		if (g[i].failed)
			p->gauge_gap_s += dt;
		else if (!isnan(g[i].running))
			span += dt;
	}
	if (!(span > 0))
		return 0;
	if (!(p->gauge_occupancy = calloc((size_t)p->gauge_peak + 1, sizeof *p->gauge_occupancy)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (size_t i = 0; i + 1 < n; i++) {
		double dt = g[i + 1].t_s - g[i].t_s;
		int k;

		if (g[i].failed || isnan(g[i].running))
			continue; /* a gap: no value to convert (NaN to int is undefined) */
		k = (int)g[i].running;
		if (k >= 0 && k <= p->gauge_peak)
			p->gauge_occupancy[k] += dt / span;
		weighted += (g[i].running + (isnan(g[i].waiting) ? 0 : g[i].waiting)) * dt;
	}
	p->gauge_mean = weighted / span;
	return 0;
}

static void failed_rule(struct lr_pass_stats *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed_rule(struct lr_pass_stats *p, const char *fmt, ...)
{
	size_t n = strlen(p->invalid);
	va_list ap;

	if (n + 3 >= sizeof p->invalid)
		return;
	if (n)
		n += (size_t)snprintf(p->invalid + n, sizeof p->invalid - n, "; ");
	va_start(ap, fmt);
	vsnprintf(p->invalid + n, sizeof p->invalid - n, fmt, ap);
	va_end(ap);
	p->valid = 0;
}

/* LoadGen's early stopping on one limit: enough queries for its percentile, t of them over it. */
static void early(struct lr_pass_stats *p, const char *metric, double limit, int64_t n, int64_t t)
{
	int64_t need;

	if (!(limit > 0) || !p->rules.early)
		return;
	need = lr_valid_early_needed(t, p->rules.percentile / 100, 0.99);
	if (!need || n < need)
		failed_rule(p, "early stopping (%s): %lld of %lld over %g ms; it needs at least %lld more", metric,
			    (long long)t, (long long)n, limit, need ? (long long)(need - n) : -1LL);
}

/*
 * Little's law over the pass: the client's time-weighted requests in flight
 * against completion rate x mean latency of the completed requests; they
 * part only when requests were lost (in flight, never completed). The
 * server's gauge, when sampled, is the independent side: it counts less of
 * each request (no HTTP, no queue before the server), so beyond a wider
 * tolerance it is a flag, never a failed rule.
 */
static void little(struct lr_pass_stats *p)
{
	double x = p->duration_s > 0 ? (double)p->completed / p->duration_s : 0;

	p->little_n = p->mean_inflight;
	p->little_xr = p->e2el_ms.n ? x * p->e2el_ms.mean / 1e3 : 0;
	if (p->duration_s > 0 &&
	    fabs(p->little_n - p->little_xr) > LR_LITTLE_TOLERANCE * fmax(p->little_n, p->little_xr))
		failed_rule(p,
			    "Little's law: %.3g requests in flight against %.3g = completion rate x mean latency "
			    "(requests lost)",
			    p->little_n, p->little_xr);
	p->little_gauge = !isnan(p->gauge_mean) && p->duration_s > 0 &&
			  fabs(p->gauge_mean - p->little_xr) > LR_GAUGE_TOLERANCE * fmax(p->gauge_mean, p->little_xr);
}

void lr_pass_verdict(struct lr_pass_stats *p)
{
	const struct lr_valid_rules *r = &p->rules;
	const char *conv = r->linear ? "linear" : "nearest-rank";
	int64_t sent = p->requests - p->unsent;

	p->valid = 1;
	p->invalid[0] = '\0';
	if (r->min_duration_s > 0 && p->duration_s < r->min_duration_s)
		failed_rule(p, "duration %.3g s < %g s", p->duration_s, r->min_duration_s);
	if (r->min_requests > 0 && sent < r->min_requests)
		failed_rule(p, "requests %lld < %lld", (long long)sent, (long long)r->min_requests);
	if (r->ttft_ms > 0 && !(p->ttft_at <= r->ttft_ms))
		failed_rule(p, "TTFT p%g (%s) %.4g ms > %g ms", r->percentile, conv, p->ttft_at, r->ttft_ms);
	if (r->tpot_ms > 0 && !(p->tpot_at <= r->tpot_ms))
		failed_rule(p, "TPOT p%g (%s) %.4g ms > %g ms", r->percentile, conv, p->tpot_at, r->tpot_ms);
	if (p->failed + p->unsent > 0)
		failed_rule(p, "completed %lld of %lld requests", (long long)p->completed, (long long)p->requests);
	if (!(p->rate > 0) && !p->reached)
		failed_rule(p, "concurrency %d never reached (peak %d)", p->concurrency, p->peak);
	if (p->usage_differs)
		failed_rule(p, "TEST06: %lld stream(s) whose usage.completion_tokens differs from the tokens received",
			    (long long)p->usage_differs);
	early(p, "TTFT", r->ttft_ms, p->ttft_ms.n, p->ttft_over);
	early(p, "TPOT", r->tpot_ms, p->tpot_ms.n, p->tpot_over);
	if (p->first_late)
		failed_rule(p, "TEST06: %lld stream(s) whose first token came after the event TTFT was timed on",
			    (long long)p->first_late);
	little(p);
}
