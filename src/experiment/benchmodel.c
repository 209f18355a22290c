/*
 * The one model of every benchmark's results (benchjob.h): series of values
 * by repetition, filled while a benchmark runs or read from a stored run, and
 * the two figures every table is made of, a median and a ratio taken
 * repetition by repetition.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/enumname.h"
#include "base/stats.h"
#include "experiment/benchjob.h"

static const char *const names[] = {
	[LR_BENCHMARK_ENCODER] = "encoder", [LR_BENCHMARK_STORE] = "store",     [LR_BENCHMARK_IMPORT] = "import",
	[LR_BENCHMARK_REMOTE] = "remote",   [LR_BENCHMARK_COLLECT] = "collect", [LR_BENCHMARK_INGEST] = "ingest",
	[LR_BENCHMARK_SCAN] = "scan",
};
static const struct lr_enum_names benchmarks = LR_ENUM_NAMES("benchmark", names);

LR_ENUM_DEFINE(lr_benchmark, enum lr_benchmark, benchmarks)

void lr_bench_init(struct lr_bench *b, enum lr_benchmark which)
{
	memset(b, 0, sizeof *b);
	b->which = which;
}

void lr_bench_release(struct lr_bench *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->s[i].subject);
		free(b->s[i].variant);
		free(b->s[i].unit);
		free(b->s[i].v);
	}
	free(b->s);
	lr_strlist_release(&b->subjects);
	lr_bench_init(b, b->which);
}

const struct lr_bench_series *lr_bench_find(const struct lr_bench *b, const char *subject, const char *variant,
					    const char *unit)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->s[i].variant, variant) && !strcmp(b->s[i].subject, subject) &&
		    !strcmp(b->s[i].unit, unit))
			return &b->s[i];
	return NULL;
}

/* A new, empty series (subject, variant, unit) at the end of b. */
static int series_new(struct lr_bench *b, const char *subject, const char *variant, const char *unit)
{
	struct lr_bench_series *s;
	int rc;

	if ((rc = LR_ALLOC_GROW(b->s, b->n + 1, b->cap)))
		return rc;
	s = memset(&b->s[b->n], 0, sizeof *s);
	s->subject = strdup(subject);
	s->variant = strdup(variant);
	s->unit = strdup(unit);
	if (!s->subject || !s->variant || !s->unit) {
		free(s->subject);
		free(s->variant);
		free(s->unit);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	b->n++;
	if (!lr_strlist_contains(&b->subjects, subject) && (rc = lr_strlist_add(&b->subjects, subject)))
		return rc;
	return 0;
}

int lr_bench_add(struct lr_bench *b, const char *subject, const char *variant, int rep, double value, const char *unit)
{
	struct lr_bench_series *s = (struct lr_bench_series *)lr_bench_find(b, subject, variant, unit);
	int rc;

	if (rep < 0)
		return lr_error_set(LR_EINVAL, "sample '%s' '%s' at repetition %d", subject, variant, rep);
	if (!s) {
		if ((rc = series_new(b, subject, variant, unit)))
			return rc;
		s = &b->s[b->n - 1];
	}
	if ((size_t)rep < s->n && !isnan(s->v[rep]))
		return lr_error_set(LR_EINVAL, "sample '%s' '%s' in %s is taken twice at repetition %d", subject,
				    variant, unit, rep);
	if ((rc = LR_ALLOC_GROW(s->v, (size_t)rep + 1, s->cap)))
		return rc;
	while (s->n <= (size_t)rep)
		s->v[s->n++] = NAN;
	s->v[rep] = value;
	return 0;
}

/* The timed values of s (all but the warm-up when there are several) that are taken, into v; how many. */
static size_t timed(const struct lr_bench_series *s, double *v)
{
	size_t k = 0;

	for (size_t r = s->n > 1; r < s->n; r++)
		if (!isnan(s->v[r]))
			v[k++] = s->v[r];
	return k;
}

double lr_bench_median(const struct lr_bench_series *s)
{
	double *v, m = NAN;
	size_t k;

	if (!s || !s->n || !(v = malloc(s->n * sizeof *v)))
		return NAN;
	if ((k = timed(s, v)))
		m = lr_median(v, k);
	free(v);
	return m;
}

/* Value of s at rep r: 'none' when there is no series, NAN when it has no such repetition. */
static double at(const struct lr_bench_series *s, size_t r, double none)
{
	return !s ? none : r < s->n ? s->v[r] : NAN;
}

double lr_bench_ratio(const struct lr_bench_series *num, const struct lr_bench_series *den,
		      const struct lr_bench_series *den2, double k)
{
	size_t n = num ? num->n : den ? den->n : 0, m = 0;
	double *v, r = NAN;

	if (!n || !(v = malloc(n * sizeof *v)))
		return NAN;
	for (size_t i = n > 1; i < n; i++) {
		double a = at(num, i, 1), b = at(den, i, 1) + at(den2, i, 0);

		if (!isnan(a) && !isnan(b))
			v[m++] = b > 0 ? k * a / b : 0;
	}
	if (m)
		r = lr_median(v, m);
	free(v);
	return r;
}

int lr_bench_read(struct lr_bench *b, const struct lr_run *run)
{
	const struct lr_kv *name = lr_kvlist_find(&run->binding, "benchmark");
	struct lr_bench_samples sm;
	enum lr_benchmark which = LR_BENCHMARK_ENCODER;
	int rc;

	lr_bench_init(b, LR_BENCHMARK_ENCODER);
	if (run->kind != LR_KIND_BENCH || !name)
		return lr_error_set(LR_EINVAL, "run %lld is not a benchmark run%s", (long long)run->id,
				    run->kind == LR_KIND_BENCH ? ": its binding names no benchmark" : "");
	if ((rc = lr_benchmark_parse(name->value, &which))) {
		lr_error_wrap("cannot read benchmark run %lld", (long long)run->id);
		lr_error_hint("a newer labrun may have stored it; 'labrun show %lld' has its samples",
			      (long long)run->id);
		return rc;
	}
	b->which = which;
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (size_t i = 0; i < sm.n && !rc; i++) {
		const struct lr_sample *m = &sm.v[i];

		/* a row from another host may say anything: no series is longer than the run's samples */
		if (m->rep < 0 || (size_t)m->rep >= sm.n)
			rc = lr_error_set(LR_EINVAL, "sample '%s' '%s' at repetition %d of a run of %zu samples",
					  m->subject, m->variant, m->rep, sm.n);
		else
			rc = lr_bench_add(b, m->subject, m->variant, m->rep, m->value, m->unit);
	}
	lr_bench_samples_release(&sm);
	if (rc) {
		lr_error_wrap("cannot read benchmark run %lld", (long long)run->id);
		lr_bench_release(b);
	}
	return rc;
}

int lr_bench_store(const struct lr_bench *b, struct lr_run *run)
{
	int rc = 0;

	for (size_t i = 0; i < b->n && !rc; i++)
		for (size_t r = 0; r < b->s[i].n && !rc; r++)
			if (!isnan(b->s[i].v[r]))
				rc = lr_run_add_sample(run, b->s[i].subject, b->s[i].variant, (int)r, b->s[i].v[r],
						       b->s[i].unit);
	return rc;
}
