#include "config.h"
#include "base/system.h"

#include "encode/ktable.h"
#include "experiment/benchjob.h"
#include "record/record.h"

static const char *kv(const struct lr_kvlist *l, const char *key)
{
	const struct lr_kv *e = lr_kvlist_find(l, key);

	return e ? e->value : NULL;
}

/* "L,2,H,T,D": the shape as a sample's subject. */
static void shape_text(char *buf, size_t size, const struct lr_bench_opts *o)
{
	snprintf(buf, size, "%lld,%lld,%lld,%lld,%lld", (long long)o->shape[0], (long long)o->shape[1],
		 (long long)o->shape[2], (long long)o->shape[3], (long long)o->shape[4]);
}

/* "L,2,H,T,D" back into o's shape; a row from another host may say anything, so at most 2^40 elements. */
static int shape_parse(const char *s, struct lr_bench_opts *o)
{
	int64_t elements = 1;
	char *end;

	for (int i = 0; i < 5; i++, s = end + 1) {
		errno = 0;
		o->shape[i] = strtoll(s, &end, 10);
		if (errno || end == s || o->shape[i] <= 0 || o->shape[i] > (INT64_C(1) << 40) / elements ||
		    *end != (i < 4 ? ',' : '\0'))
			return -1;
		elements *= o->shape[i];
	}
	o->rank = 5;
	return 0;
}

int lr_bench_job_capture(struct lr_bench_job *j, struct lr_store *st, char *const *argv, char *const *envp,
			 const char *benchmark)
{
	int rc;

	memset(&j->ss, 0, sizeof j->ss);
	if ((rc = lr_run_capture(st, &j->run, LR_KIND_BENCH, argv, envp, NULL, NULL, NULL)))
		return rc;
	return lr_kvlist_set(&j->run.binding, "benchmark", benchmark, "user");
}

int lr_bench_job_bind(struct lr_bench_job *j, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", v);
	return lr_kvlist_set(&j->run.binding, key, buf, "user");
}

int lr_bench_job_start(struct lr_bench_job *j, struct lr_store *st)
{
	return lr_session_start(&j->ss, st, &j->run);
}

int lr_bench_scratch(char **out, const char *dir, const char *name)
{
	int rc;

	if (asprintf(out, "%s/%s", dir, name) < 0) {
		*out = NULL;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (mkdir(*out, 0700) == 0)
		return 0;
	rc = lr_error_set(LR_EIO, "cannot create '%s': %s", *out, strerror(errno));
	free(*out);
	*out = NULL;
	return rc;
}

int lr_bench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_bench_opts *o,
		       char *const *argv, char *const *envp)
{
	char seed[32], cpu[16];
	int rc;

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	if ((rc = lr_bench_job_capture(j, st, argv, envp, "encoder")) || (rc = lr_bench_job_bind(j, "reps", o->reps)) ||
	    (rc = lr_kvlist_set(&j->run.binding, "contract", lr_dlf16_contract_name(o->contract), "user")) ||
	    (rc = lr_kvlist_set(&j->run.binding, "auto_kernel", lr_dlf16_auto()->name, "auto")) ||
	    (rc = lr_kvlist_set(&j->run.binding, "seed", seed, "user")) ||
	    (rc = lr_bench_job_bind(j, "threads", o->threads > 1 ? o->threads : 1)) ||
	    (o->dir && (rc = lr_kvlist_set(&j->run.binding, "file_dir", o->dir, "user"))))
		return rc;
	/* the timing thread's CPU, from now on: each shape pins again to the CPU it is on */
	snprintf(cpu, sizeof cpu, "%d", lr_bench_pin(o->threads));
	if (strcmp(cpu, "-1") && (rc = lr_kvlist_set(&j->run.binding, "pinned_cpu", cpu, "auto")))
		return rc;
	return lr_bench_job_start(j, st);
}

int lr_bench_job_add(struct lr_bench_job *j, const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	char shape[128], name[160];
	int i, rep, rc;

	shape_text(shape, sizeof shape, o);
	snprintf(name, sizeof name, "encoder_output [%s]", shape);
	if ((rc = lr_kvlist_set(&j->run.digests, name, r->digest, NULL)))
		return rc;
	for (i = 0; i < r->nvar; i++)
		for (rep = 0; rep < o->reps; rep++)
			if ((rc = lr_run_add_sample(&j->run, shape, r->var[i].name, rep, r->var[i].ms[rep] / 1e3, "s")))
				return rc;
	return 0;
}

int lr_bench_job_end(struct lr_bench_job *j, int failed)
{
	j->run.status = failed ? LR_FAILED : LR_PASSED;
	if (failed && !(j->run.failure = strdup(lr_error_msg())))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return lr_session_end(&j->ss, 0);
}

void lr_bench_job_release(struct lr_bench_job *j)
{
	lr_session_release(&j->ss);
	lr_run_release(&j->run);
}

/* The variant named 'name' in r, added (kind and kernel from its name) if new. */
static struct lr_bench_variant *variant_of(struct lr_bench_result *r, const char *name)
{
	struct lr_bench_variant *v;
	int i;

	for (i = 0; i < r->nvar; i++)
		if (!strcmp(r->var[i].name, name))
			return &r->var[i];
	if (r->nvar == LR_BENCH_MAXVAR)
		return NULL;
	v = &r->var[r->nvar++];
	lr_bench_variant_name(v, name);
	return v;
}

int lr_bench_job_results(const struct lr_run *run, struct lr_bench_result **res, struct lr_bench_opts **shapes,
			 int *n)
{
	struct lr_bench_result *r = NULL;
	struct lr_bench_opts *o = NULL, cur;
	struct lr_bench_samples sm;
	const char *reps = kv(&run->binding, "reps"), *subject = NULL;
	char name[160];
	size_t i;
	int rc = 0, nreps = reps ? atoi(reps) : 0;

	*n = 0;
	if (nreps < 2 || nreps > LR_BENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "run %lld is not a benchmark run", (long long)run->id);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (i = 0; !rc && i < sm.n; i++) {
		const struct lr_sample *m = &sm.v[i];
		struct lr_bench_variant *v;

		if (!subject || strcmp(subject, m->subject)) {
			void *nr, *no;

			memset(&cur, 0, sizeof cur);
			if (shape_parse(m->subject, &cur)) {
				rc = lr_error_set(LR_EINVAL, "run %lld: sample subject '%s' is not a shape", (long long)run->id,
						  m->subject);
				break;
			}
			if ((nr = realloc(r, (size_t)(*n + 1) * sizeof *r)))
				r = nr;
			no = nr ? realloc(o, (size_t)(*n + 1) * sizeof *o) : NULL;
			if (!no) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
			o = no;
			subject = m->subject;
			memset(&r[*n], 0, sizeof *r);
			cur.reps = nreps;
			o[(*n)++] = cur;
			r[*n - 1].elements = cur.shape[0] * cur.shape[1] * cur.shape[2] * cur.shape[3] * cur.shape[4];
			snprintf(name, sizeof name, "encoder_output [%s]", m->subject);
			snprintf(r[*n - 1].digest, sizeof r[*n - 1].digest, "%s",
				 kv(&run->digests, name) ? kv(&run->digests, name) : "");
		}
		if (m->rep >= nreps)
			rc = lr_error_set(LR_EINVAL, "run %lld: sample '%s' rep %d of %d", (long long)run->id, m->variant,
					  m->rep, nreps);
		else if (!(v = variant_of(&r[*n - 1], m->variant)))
			rc = lr_error_set(LR_EINVAL, "run %lld: more than %d variants", (long long)run->id, LR_BENCH_MAXVAR);
		else
			v->ms[m->rep] = m->value * 1e3;
	}
	lr_bench_samples_release(&sm);
	for (int s = 0; !rc && s < *n; s++) {
		lr_bench_summarise(&r[s], nreps);
		r[s].cpu = kv(&run->binding, "pinned_cpu") ? atoi(kv(&run->binding, "pinned_cpu")) : -1;
	}
	if (rc || !*n) {
		free(r);
		free(o);
		*n = 0;
		return rc ? rc : lr_error_set(LR_EINVAL, "benchmark run %lld holds no samples", (long long)run->id);
	}
	*res = r;
	*shapes = o;
	return 0;
}
