/* 'labrun bench import': the import command timed as a user runs it. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/parallel.h"
#include "base/treehash.h"
#include "base/walk.h"
#include "experiment/importbench.h"
#include "experiment/spawn.h"

#define VARIANTS 4
static const char *const variants[VARIANTS] = { "whole, strided", "whole, copy", "stream, strided", "stream, copy" };

/* The value of measurement 'name' in the run 'labrun import --json' printed; -1 when absent. */
static double figure(json_t *run, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(run, "measurements"), i, m)
		if (json_string_value(json_object_get(m, "name")) &&
		    !strcmp(json_string_value(json_object_get(m, "name")), name))
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

/* Variant v at repetition rep: the command, what it measured itself, and the tree-hash ceiling after it. */
static int one(const struct lr_importbench_opts *o, const char *dir, int v, int rep, struct lr_bench *b,
	       struct tree_ceiling *tc)
{
	char tokens[32], threads[16], imports[16];
	char *const argv[] = { (char *)o->self, "--store",
			       (char *)dir,     "import",
			       "--model",       (char *)o->model,
			       "--tokens",      tokens,
			       "--mode",        v < 2 ? "whole" : "stream",
			       "--layout",      v % 2 ? "copy" : "strided",
			       "--threads",     threads,
			       "--repeat",      imports,
			       "--json",        NULL };
	double command_s, import_s, ceiling_s, tree_s = 0, first_s, steady_s, steady_import_s;
	json_t *run;
	char *out = NULL;
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	snprintf(threads, sizeof threads, "%d", o->threads);
	snprintf(imports, sizeof imports, "%d", o->imports);
	if ((rc = lr_bench_spawn(o->self, argv, o->envp, dir, &out, &command_s, NULL)))
		return rc;
	run = json_loads(out, 0, NULL);
	free(out);
	import_s = figure(run, "import_s");
	ceiling_s = figure(run, "copy_ceiling_s");
	first_s = figure(run, "cycle_s");
	steady_s = figure(run, "steady_cycle_s");
	steady_import_s = figure(run, "steady_import_s");
	if (!run || !json_string_value(json_object_get(run, "status")) ||
	    strcmp(json_string_value(json_object_get(run, "status")), "passed") || import_s <= 0 || ceiling_s <= 0 ||
	    first_s <= 0 || steady_s <= 0 || steady_import_s <= 0)
		rc = lr_error_set(LR_EIO, "'labrun import' (%s) did not pass or gave no import times and ceiling",
				  variants[v]);
	if (!rc)
		rc = tree_ceiling(tc, figure(run, "bytes"), &tree_s);
	json_decref(run);
	if (rc || (rc = lr_bench_add(b, variants[v], "import", rep, import_s, "s")) ||
	    (rc = lr_bench_add(b, variants[v], "ceiling", rep, ceiling_s, "s")) ||
	    (rc = lr_bench_add(b, variants[v], "command", rep, command_s, "s")) ||
	    (rc = lr_bench_add(b, variants[v], "first", rep, first_s, "s")) ||
	    (rc = lr_bench_add(b, variants[v], "steady", rep, steady_s, "s")) ||
	    (rc = lr_bench_add(b, variants[v], "steady_import", rep, steady_import_s, "s")))
		return rc;
	return lr_bench_add(b, variants[v], "tree", rep, tree_s, "s");
}

static int measure(void *opts, struct lr_bench_job *j)
{
	const struct lr_importbench_opts *o = opts;
	struct tree_ceiling tc = { NULL, 0 };
	struct lr_progress *progress;
	char *dir = NULL, name[64];
	int rc = 0, rep, i;

	snprintf(name, sizeof name, "labrun-bench-import-%ld", (long)getpid());
	if ((rc = lr_bench_scratch(&dir, o->dir, name)))
		return rc;
	progress = lr_progress_start("measured", "repetitions", o->reps);
	for (rep = 0; !rc && rep < o->reps; rep++, lr_progress_update(progress, rep))
		for (i = 0; !rc && i < VARIANTS; i++) /* forward, then reversed */
			rc = one(o, dir, rep % 2 ? VARIANTS - 1 - i : i, rep, &j->bench, &tc);
	lr_progress_stop(&progress);
	lr_big_free(tc.buf, tc.n);
	lr_remove_tree(dir);
	free(dir);
	return rc ? rc : lr_bench_job_step(j);
}

/* The settings; the tree-hash ceiling's threads, as this process may run them. */
static int bind(struct lr_run *run, const void *opts)
{
	const struct lr_importbench_opts *o = opts;
	char tokens[32];
	int rc;

	snprintf(tokens, sizeof tokens, "%lld", (long long)o->tokens);
	if ((rc = lr_bench_bind(run, "reps", o->reps)) || (rc = lr_bench_bind(run, "threads", o->threads)) ||
	    (rc = lr_bench_bind(run, "imports", o->imports)) ||
	    (rc = lr_bench_bind(run, "tree_threads", lr_parallel_cpus())) ||
	    (rc = lr_kvlist_set(&run->geometry, "model", o->model, NULL)))
		return rc;
	return lr_kvlist_set(&run->geometry, "tokens", tokens, NULL);
}

const struct lr_bench_ops lr_importbench_ops = { LR_BENCHMARK_IMPORT, NULL, bind, measure };
