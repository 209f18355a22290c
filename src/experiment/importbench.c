/* 'labrun bench import': the import command timed as a user runs it. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/stats.h"
#include "base/parallel.h"
#include "base/treehash.h"
#include "base/walk.h"
#include "experiment/importbench.h"
#include "experiment/spawn.h"
#include "record/record.h"

const char *const lr_importbench_names[LR_IMPORTBENCH_VARIANTS] = { "whole, strided", "whole, copy", "stream, strided",
								    "stream, copy" };
static const char *const kinds[4] = { "import", "ceiling", "command", "tree" };

/* The value of measurement 'name' in the run 'labrun import --json' printed; -1 when absent. */
static double measure(json_t *run, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(run, "measurements"), i, m)
		if (json_string_value(json_object_get(m, "name")) && !strcmp(json_string_value(json_object_get(m, "name")), name))
			return json_number_value(json_object_get(m, "value"));
	return -1;
}

/*
 * The tree-hash ceiling: the device state's digest of 'bytes' bytes already
 * in memory, on every CPU, hashed in this process right after the command
 * (so in the same conditions), from one buffer the whole benchmark reuses.
 */
struct tree_ceiling {
	unsigned char *buf;
	size_t n;
};

static int tree_ceiling(struct tree_ceiling *c, double bytes, double *s)
{
	struct lr_treehash t;
	char hex[LR_SHA256_HEX];
	double t0;
	int rc;

	if (bytes <= 0 || bytes > (double)SIZE_MAX)
		return lr_error_set(LR_EIO, "'labrun import' gave no byte count");
	if (c->n != (size_t)bytes) {
		lr_big_free(c->buf, c->n);
		c->n = (size_t)bytes;
		if (!(c->buf = lr_big_alloc(c->n)))
			return c->n = 0, lr_error_set(LR_ENOMEM, "out of memory for the tree-hash ceiling");
		lr_big_populate(c->buf, c->n);
		for (size_t i = 0; i < c->n; i += 4096)
			c->buf[i] = (unsigned char)(i >> 12); /* not all zero: a hash costs the same, but be honest */
	}
	t0 = lr_monotonic_s();
	lr_tree_init(&t, lr_parallel_cpus());
	if ((rc = lr_tree_update(&t, c->buf, c->n)) || (rc = lr_tree_final(&t, hex)))
		return rc;
	*s = lr_monotonic_s() - t0;
	return 0;
}

static int one(const struct lr_importbench_opts *o, const char *dir, int v, int rep, struct lr_importbench_result *r,
	       struct tree_ceiling *tc)
{
	char tokens[32], threads[16];
	char *const argv[] = { (char *)o->self, "--store", (char *)dir, "import", "--model", (char *)o->model,
			       "--tokens", tokens, "--mode", v < 2 ? "whole" : "stream", "--layout",
			       v % 2 ? "copy" : "strided", "--threads", threads, "--json", NULL };
	json_t *run;
	char *out = NULL;
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	snprintf(threads, sizeof threads, "%d", o->threads);
	if ((rc = lr_bench_spawn(o->self, argv, o->envp, dir, &out, &r->v[v].command_s[rep], NULL)))
		return rc;
	run = json_loads(out, 0, NULL);
	free(out);
	r->v[v].import_s[rep] = measure(run, "import_s");
	r->v[v].ceiling_s[rep] = measure(run, "copy_ceiling_s");
	if (!run || !json_string_value(json_object_get(run, "status")) ||
	    strcmp(json_string_value(json_object_get(run, "status")), "passed") ||
	    r->v[v].import_s[rep] <= 0 || r->v[v].ceiling_s[rep] <= 0)
		rc = lr_error_set(LR_EIO, "'labrun import' (%s) did not pass or gave no import time and ceiling",
				  lr_importbench_names[v]);
	if (!rc)
		rc = tree_ceiling(tc, measure(run, "bytes"), &r->v[v].tree_s[rep]);
	json_decref(run);
	return rc;
}

int lr_importbench(const struct lr_importbench_opts *o, struct lr_importbench_result *r)
{
	struct tree_ceiling tc = { NULL, 0 };
	struct lr_progress *progress;
	char *dir = NULL, name[64];
	int rc = 0, rep, i;

	memset(r, 0, sizeof *r);
	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++)
		snprintf(r->v[i].name, sizeof r->v[i].name, "%s", lr_importbench_names[i]);
	if (o->reps < 2 || o->reps > LR_IMPORTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "repetitions must be between 2 and %d", LR_IMPORTBENCH_MAXREPS);
	snprintf(name, sizeof name, "labrun-bench-import-%ld", (long)getpid());
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++, lr_progress_update(progress, rep))
		for (i = 0; !rc && i < LR_IMPORTBENCH_VARIANTS; i++) /* forward, then reversed */
			rc = one(o, dir, rep % 2 ? LR_IMPORTBENCH_VARIANTS - 1 - i : i, rep, r, &tc);
	lr_progress_stop(&progress);
	lr_big_free(tc.buf, tc.n);
	if (!rc)
		lr_importbench_summarise(r, o->reps);
	lr_remove_tree(dir);
	free(dir);
	return rc;
}

void lr_importbench_summarise(struct lr_importbench_result *r, int reps)
{
	double a[LR_IMPORTBENCH_MAXREPS], b[LR_IMPORTBENCH_MAXREPS], c[LR_IMPORTBENCH_MAXREPS],
		xi[LR_IMPORTBENCH_MAXREPS], xc[LR_IMPORTBENCH_MAXREPS], d[LR_IMPORTBENCH_MAXREPS], xt[LR_IMPORTBENCH_MAXREPS];
	int i, k, m = reps - 1;

	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
		struct lr_importbench_variant *v = &r->v[i];

		for (k = 0; k < m; k++) { /* the first is warm-up */
			a[k] = v->import_s[k + 1];
			b[k] = v->ceiling_s[k + 1];
			c[k] = v->command_s[k + 1];
			d[k] = v->tree_s[k + 1];
			xi[k] = b[k] > 0 ? a[k] / b[k] : 0;
			xc[k] = b[k] > 0 ? c[k] / b[k] : 0;
			xt[k] = b[k] + d[k] > 0 ? c[k] / (b[k] + d[k]) : 0;
		}
		v->import_ms = lr_median(a, (size_t)m) * 1e3;
		v->ceiling_ms = lr_median(b, (size_t)m) * 1e3;
		v->command_ms = lr_median(c, (size_t)m) * 1e3;
		v->x_import = lr_median(xi, (size_t)m);
		v->x_command = lr_median(xc, (size_t)m);
		v->tree_ms = lr_median(d, (size_t)m) * 1e3; /* 0: a run stored before the tree-hash ceiling */
		v->x_ceilings = v->tree_ms > 0 ? lr_median(xt, (size_t)m) : 0;
	}
}

/* ---- as a run ------------------------------------------------------------------- */

int lr_importbench_job_begin(struct lr_bench_job *j, struct lr_store *st, const struct lr_importbench_opts *o)
{
	char tokens[32];
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	if ((rc = lr_bench_job_capture(j, st, o->argv, o->envp, "import")) || (rc = lr_bench_job_bind(j, "reps", o->reps)) ||
	    (rc = lr_bench_job_bind(j, "threads", o->threads)) ||
	    (rc = lr_kvlist_set(&j->run.geometry, "model", o->model, NULL)) ||
	    (rc = lr_kvlist_set(&j->run.geometry, "tokens", tokens, NULL)))
		return rc;
	return lr_bench_job_start(j, st);
}

int lr_importbench_job_add(struct lr_bench_job *j, int reps, const struct lr_importbench_result *r)
{
	int i, k, rep, rc;

	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++)
		for (k = 0; k < 4; k++)
			for (rep = 0; rep < reps; rep++) {
				const double *s = k == 0 ? r->v[i].import_s : k == 1 ? r->v[i].ceiling_s
						: k == 2 ? r->v[i].command_s : r->v[i].tree_s;

				if ((rc = lr_run_add_sample(&j->run, r->v[i].name, kinds[k], rep, s[rep], "s")))
					return rc;
			}
	return 0;
}

int lr_importbench_job_results(const struct lr_run *run, struct lr_importbench_result *r)
{
	const struct lr_kv *e = lr_kvlist_find(&run->binding, "reps");
	int reps = e ? atoi(e->value) : 0, i, k, rep, found = 0, rc;
	struct lr_bench_samples sm;

	memset(r, 0, sizeof *r);
	if (reps < 2 || reps > LR_IMPORTBENCH_MAXREPS)
		return lr_error_set(LR_EINVAL, "run %lld is not an import benchmark", (long long)run->id);
	if ((rc = lr_bench_samples(run, &sm)))
		return rc;
	for (i = 0; i < LR_IMPORTBENCH_VARIANTS; i++) {
		snprintf(r->v[i].name, sizeof r->v[i].name, "%s", lr_importbench_names[i]);
		for (k = 0; k < 4; k++)
			for (rep = 0; rep < reps; rep++) {
				double *s = k == 0 ? r->v[i].import_s : k == 1 ? r->v[i].ceiling_s
					  : k == 2 ? r->v[i].command_s : r->v[i].tree_s;
				const struct lr_sample *m = lr_bench_sample_find(&sm, lr_importbench_names[i], kinds[k], "s", rep);

				if (m) {
					s[rep] = m->value;
					found++;
				}
			}
	}
	lr_bench_samples_release(&sm);
	/* a run from before the tree-hash ceiling has three kinds of sample */
	if (found != LR_IMPORTBENCH_VARIANTS * 3 * reps && found != LR_IMPORTBENCH_VARIANTS * 4 * reps)
		return lr_error_set(LR_EINVAL, "import benchmark run %lld holds %d of its %d samples", (long long)run->id,
				    found, LR_IMPORTBENCH_VARIANTS * 4 * reps);
	lr_importbench_summarise(r, reps);
	return 0;
}
