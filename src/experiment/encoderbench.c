/* 'labrun bench encoder' as a benchmark run (encoderbench.h): where the encoder's results meet the model. */
#include "config.h"
#include "base/system.h"

#include "base/progress.h"
#include "encode/cpu.h"
#include "experiment/encoderbench.h"

/* "L,2,H,T,D": the shape as a sample's subject. */
static void shape_text(char *buf, size_t size, const int64_t *shape)
{
	snprintf(buf, size, "%lld,%lld,%lld,%lld,%lld", (long long)shape[0], (long long)shape[1], (long long)shape[2],
		 (long long)shape[3], (long long)shape[4]);
}

static void digest_name(char *buf, size_t size, const char *subject)
{
	snprintf(buf, size, "encoder_output [%s]", subject);
}

const char *lr_bench_shape_digest(const struct lr_run *run, const char *subject)
{
	const struct lr_kv *e;
	char name[160];

	digest_name(name, sizeof name, subject);
	return (e = lr_kvlist_find(&run->digests, name)) ? e->value : NULL;
}

/* The settings, and the timing thread pinned from now on (each shape pins again to the CPU it is on). */
static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_bench_opts *o = &((const struct lr_encoderbench_opts *)opts)->base;
	const char *why;
	char seed[32], cpu[16], features[256];
	int rc;

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	lr_ktable_pick(1, &why); /* the same ground at every size of the run */
	lr_cpu_features(features, sizeof features);
	if ((rc = lr_bench_bind(run, "reps", o->reps)) ||
	    (rc = lr_kvlist_set(&run->binding, "contract", lr_dlf16_contract_name(o->contract), "user")) ||
	    (rc = lr_kvlist_set(&run->binding, "auto_kernel", lr_dlf16_auto()->name, "auto")) ||
	    (rc = lr_kvlist_set(&run->binding, "auto_why", why, "auto")) ||
	    (rc = lr_kvlist_set(&run->binding, "seed", seed, "user")) ||
	    (rc = lr_kvlist_set(&run->binding, "cpu_features", features, "auto")) ||
	    (rc = lr_bench_bind(run, "threads", o->threads > 1 ? o->threads : 1)) ||
	    (o->dir && (rc = lr_kvlist_set(&run->binding, "file_dir", o->dir, "user"))))
		return rc;
	snprintf(cpu, sizeof cpu, "%d", lr_bench_pin(o->threads));
	return strcmp(cpu, "-1") ? lr_kvlist_set(&run->binding, "pinned_cpu", cpu, "auto") : 0;
}

/* One shape's result into the run: its digest, and every variant's time at every repetition. */
static int add_shape(struct lr_bench_job *j, const struct lr_bench_opts *o, const struct lr_bench_result *r,
		     struct lr_ktable_entry *fastest)
{
	struct lr_bench_shape sh;
	char shape[128], name[160];
	int i, rep, rc;

	shape_text(shape, sizeof shape, o->shape);
	digest_name(name, sizeof name, shape);
	if ((rc = lr_kvlist_set(&j->run.digests, name, r->digest, NULL)))
		return rc;
	for (i = 0; i < r->nvar; i++)
		for (rep = 0; rep < o->reps; rep++)
			if ((rc = lr_bench_add(&j->bench, shape, r->var[i].name, rep, r->var[i].ms[rep] / 1e3, "s")))
				return rc;
	if ((rc = lr_bench_shape_read(&sh, &j->bench, shape)))
		return rc;
	*fastest = (struct lr_ktable_entry){ (uint64_t)r->elements * 2, NULL };
	for (i = 0; sh.best && i < r->nvar; i++)
		if (!strcmp(r->var[i].name, sh.best->variant))
			fastest->k = r->var[i].k;
	return 0;
}

/* Each shape in turn, added to the run as it completes; the first failure ends the benchmark. */
static int measure(void *opts, struct lr_bench_job *j)
{
	struct lr_encoderbench_opts *o = opts;
	struct lr_bench_result *r = malloc(sizeof *r);
	struct lr_progress *progress;
	int i, rc = 0;

	if (!r)
		return lr_error_set(LR_ENOMEM, "out of memory");
	progress = lr_progress_start("measured", "shapes", o->nshapes);
	for (i = 0; i < o->nshapes && !rc; i++) {
		lr_progress_update(progress, i); /* a shape can take many seconds */
		if (!(rc = lr_bench_encoder(&o->shape[i], r)) && !(rc = add_shape(j, &o->shape[i], r, &o->fastest[i])))
			rc = lr_bench_job_step(j);
	}
	lr_progress_update(progress, i);
	lr_progress_stop(&progress);
	free(r);
	return rc;
}

const struct lr_bench_ops lr_encoderbench_ops = { LR_BENCHMARK_ENCODER, NULL, bind, measure };

/* "L,2,H,T,D" into dims; a subject from another host may say anything, so at most 2^40 elements. */
static int shape_parse(const char *s, int64_t *dims, int64_t *elements)
{
	char *end;

	*elements = 1;
	for (int i = 0; i < 5; i++, s = end + 1) {
		errno = 0;
		dims[i] = strtoll(s, &end, 10);
		if (errno || end == s || dims[i] <= 0 || dims[i] > (INT64_C(1) << 40) / *elements ||
		    *end != (i < 4 ? ',' : '\0'))
			return -1;
		*elements *= dims[i];
	}
	return 0;
}

/* *role is s when there is none yet, or when s is the faster. */
static void faster(const struct lr_bench_series **role, const struct lr_bench_series *s)
{
	if (!*role || lr_bench_median(s) < lr_bench_median(*role))
		*role = s;
}

int lr_bench_shape_read(struct lr_bench_shape *sh, const struct lr_bench *b, const char *subject)
{
	char kernel[16], contiguous[32];
	enum lr_bench_kind kind;

	memset(sh, 0, sizeof *sh);
	if (shape_parse(subject, sh->dims, &sh->elements))
		return lr_error_set(LR_EINVAL, "sample subject '%s' is not a shape", subject);
	for (size_t i = 0; i < b->n; i++) {
		const struct lr_bench_series *s = &b->s[i];

		if (strcmp(s->subject, subject))
			continue;
		if (lr_bench_variant_parse(s->variant, &kind, kernel, sizeof kernel))
			return lr_error_set(LR_EINVAL, "variant '%s' of shape [%s] is none the encoder benchmark gives",
					    s->variant, subject);
		switch (kind) {
		case LR_BENCH_COPY: faster(&sh->ceiling, s); break;
		case LR_BENCH_ENCODE:
			faster(&sh->best, s);
			if (!strcmp(kernel, "lookup"))
				sh->lookup = s;
			break;
		case LR_BENCH_PERMUTED: /* its kernel's contiguous encode is its twin */
			sh->permuted = s;
			snprintf(contiguous, sizeof contiguous, "encode: %s", kernel);
			break;
		case LR_BENCH_FILE_COPY: sh->file_copy = s; break;
		case LR_BENCH_FILE_ENCODE: sh->file_encode = s; break;
		}
	}
	if (sh->permuted)
		sh->contiguous = lr_bench_find(b, subject, contiguous, "s");
	return 0;
}
