#include "config.h"
#include "base/system.h"

#include <sched.h>

#include <jansson.h>

#include "base/error.h"
#include "cmd/bench-int.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "encode/bench.h"
#include "encode/ktable.h"
#include "encode/npy.h"
#include "experiment/benchjob.h"
#include "record/hostinfo.h"

static const char usage[] =
	"usage: labrun bench encoder [--shape L,2,H,T,D ...] [--reps N] [--contract C] [--seed N] [--threads N]\n"
	"                            [--dir DIR | --no-files]\n"
	"       labrun bench import [--model M] [--tokens T] [--reps N] [--threads N]   ('bench import -h')\n"
	"       labrun bench store [--scale N ...] [--reps N] [--dir DIR] [--json]   ('bench store -h')\n"
	"       labrun bench remote [NAME] [--runs N] [--reps N] [--object-mib M]   ('bench remote -h')\n"
	"       labrun bench collect [--concurrency N,...] [--requests N] [--tokens N] [--reps N]   ('bench collect -h')\n"
	"       labrun bench ingest [--responses N] [--tokens N] [--reps N]   ('bench ingest -h')\n"
	"\n"
	"Time every available BF16 -> DLF16 kernel against the copy ceiling (the best of\n"
	"memcpy, a plain vector copy and a non-temporal-store copy of the same bytes) and\n"
	"the auto kernel on a permuted (token-major) view, single-threaded, pinned to one\n"
	"CPU. Variants alternate forward/reversed each repetition; the first repetition is\n"
	"a warm-up and is dropped. Outputs are checked bit-identical before timing counts.\n"
	"GB/s counts bytes read plus bytes written. Measured, not modelled. The benchmark is\n"
	"recorded as a run (kind bench, every repetition's time): 'labrun report --run ID'\n"
	"prints its tables again.\n";

/* The run's header: printed, or the top of the JSON object (host, settings; measured, not modelled). */
static json_t *header(const struct lr_bench_opts *o, int json)
{
	struct lr_host h;
	json_t *root = json ? json_pack("{s:i, s:i, s:s, s:I, s:s, s:s, s:b}", "reps", o->reps, "threads", o->threads, "contract",
					lr_dlf16_contract_name(o->contract), "seed", (json_int_t)o->seed, "labrun", PACKAGE_VERSION,
					"auto_kernel", lr_dlf16_auto()->name, "modelled", 0)
			    : NULL;

	if (!json)
		printf("labrun bench encoder: %d repetitions per variant (first dropped), contract %s, seed %llu, %d thread%s\n",
		       o->reps, lr_dlf16_contract_name(o->contract), (unsigned long long)o->seed, o->threads,
		       o->threads == 1 ? "" : "s");
	if (!json) {
		char extra[64];

		snprintf(extra, sizeof extra, ", auto kernel %s", lr_dlf16_auto()->name);
		cmd_bench_host_line(extra);
	} else if (lr_host_probe(&h) == 0) {
		json_object_set_new(root, "host", json_pack("{s:s, s:s, s:I, s:s}", "hostname", h.hostname, "cpu",
							    h.cpu_model ? h.cpu_model : "unknown", "cpus",
							    (json_int_t)h.cores, "kernel", h.kernel));
		lr_host_release(&h);
	}
	if (json)
		json_object_set_new(root, "shapes", json_array());
	return root;
}

struct bench_args {
	struct lr_bench_opts o;
	struct lr_bench_opts shape[32];	/* each --shape, parsed and checked before anything runs */
	const char *text[32];
	struct lr_strlist shapes;	/* the --shape values text[] points into */
	int nshapes, json, contract;
};

/* Options and operands; every shape checked (and no shape twice) before the run exists. */
static int parse(struct bench_args *a, int argc, char **argv)
{
	static const char *const defaults[] = { "1,2,8,2048,128", "1,2,8,8192,128", "28,2,8,2048,128",
						"28,2,8,8192,128" };
	struct lr_strlist shapes = { 0 };
	int no_files = 0;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "shape", &shapes, "S", "a 5-D shape [L,2,H,T,D] (repeatable); default: the seed's\n1,2,8,2048,128  1,2,8,8192,128  28,2,8,2048,128  28,2,8,8192,128"),
		CMD_INT(0, "reps", &a->o.reps, 2, LR_BENCH_MAXREPS, "N", "repetitions per variant, the first dropped (default 7)"),
		CMD_CHOICE(0, "contract", &a->contract, cmd_contract_choices, "C", "saturate (default) or ninf"),
		CMD_U64(0, "seed", &a->o.seed, 0, INT64_MAX, "N", "seed of the synthetic BF16 data (default 205)"),
		CMD_INT(0, "threads", &a->o.threads, 1, LR_BENCH_MAXTHREADS, "N", "run every variant, the copies too, on N threads pinned to N\nCPUs (default 1): the N-thread ceiling beside the N-thread kernels"),
		CMD_BOOL(0, "json", &a->json, "one JSON object at the end instead of the tables (docs/labrun.md)"),
		CMD_STRING(0, "dir", &a->o.dir, "DIR", "where the file variants write the array as a .npy file and time\ncp of it beside 'labrun encode' of it, file to file (default:\n$TMPDIR, else /tmp; give a directory on the file system you use)"),
		CMD_BOOL(0, "no-files", &no_files, "time in memory only"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	cpu_set_t cpus;
	int i, k, rc;

	a->o.reps = 7;
	a->o.seed = 205;
	a->o.threads = 1;
	rc = cmd_parse_options(&p, opts, argc, argv, &i);
	for (i = 0; !rc && (size_t)i < shapes.n && i < 32; i++)
		a->text[a->nshapes++] = shapes.v[i];
	if (!rc && shapes.n > 32)
		rc = cmd_usage_error("bench", "at most 32 --shape options");
	a->shapes = shapes; /* a->text points into it */
	if (rc)
		return rc;
	if (strcmp(argv[0], "encoder")) /* options before any name: cmd_run_sub gave them to the first */
		return cmd_usage_error("bench", "which benchmark? 'labrun bench encoder', 'import', 'store', 'remote', 'collect' or 'ingest'");
	a->o.contract = (enum lr_dlf16_contract)a->contract;
	if (no_files && a->o.dir)
		return cmd_usage_error("bench", "--dir and --no-files: give one");
	if (!no_files && (rc = cmd_bench_dir(&a->o.dir, "; the file variants write the array there (or give --no-files)")))
		return rc;
	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && a->o.threads > CPU_COUNT(&cpus))
		return cmd_usage_error("bench", "--threads %d: this process may run on %d CPU(s); more threads than CPUs "
				       "measure the scheduler, not the memory", a->o.threads, CPU_COUNT(&cpus));
	if (!a->nshapes)
		for (i = 0; i < 4; i++)
			a->text[a->nshapes++] = defaults[i];
	for (i = 0; i < a->nshapes; i++) {
		a->shape[i] = a->o;
		if (lr_shape_parse(a->shape[i].shape, &a->shape[i].rank, a->text[i], "--shape"))
			return cmd_fail(LR_EINVAL);
		if (a->shape[i].rank != 5 || a->shape[i].shape[1] != 2)
			return cmd_usage_error("bench", "invalid --shape '%s': expected [L,2,H,T,D], e.g. 28,2,8,8192,128",
					       a->text[i]);
		if (!a->shape[i].shape[0] || !a->shape[i].shape[2] || !a->shape[i].shape[3] || !a->shape[i].shape[4])
			return cmd_usage_error("bench", "shape [%s] holds no elements: there is nothing to time", a->text[i]);
		for (k = 0; k < i; k++)
			if (!memcmp(a->shape[k].shape, a->shape[i].shape, sizeof a->shape[i].shape))
				return cmd_usage_error("bench", "--shape '%s' is given twice", a->text[i]);
	}
	return 0;
}

/* One shape's block: what it is, its parity, a row per variant, the sentence that sums it up. */
static int print_shape(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	struct lr_table t;
	char text[1024];
	int rc;

	lr_table_init(&t, lr_render_bench_encoder_cols, lr_render_bench_encoder_ncols);
	lr_render_bench_encoder_rows(&t, o, r);
	if (!(rc = lr_table_error(&t))) {
		lr_render_bench_encoder_heading(text, sizeof text, o, r);
		printf("\nshape %s\nparity: every encoder and the permuted view give identical bytes (sha256 %.16s...)\n",
		       text, r->digest);
		rc = lr_render_table_text(stdout, &t, 2, 0);
		lr_render_bench_encoder_summary(text, sizeof text, r, ".\n");
		printf("%s\n", text);
	}
	lr_table_release(&t);
	return rc;
}

/* Each shape in turn, added to the run as it completes; the first failure ends the run failed. */
static int run_shapes(const struct bench_args *a, struct lr_bench_job *job, json_t *root, struct lr_bench_result *r,
		      struct lr_ktable_entry *fastest)
{
	struct lr_progress *progress = lr_progress_start("measured", "shapes", a->nshapes);
	int i, rc = 0;

	for (i = 0; i < a->nshapes; i++) {
		lr_progress_update(progress, i); /* a shape can take many seconds */
		rc = lr_bench_encoder(&a->shape[i], r);
		if (rc || (rc = lr_bench_job_add(job, &a->shape[i], r))) {
			lr_progress_stop(&progress);
			return rc;
		}
		fastest[i] = (struct lr_ktable_entry){ (uint64_t)r->elements * 2, r->best >= 0 ? r->var[r->best].k : NULL };
		if (root) {
			json_object_set_new(root, "cpu", json_integer(r->cpu));
			json_array_append_new(json_object_get(root, "shapes"), lr_render_bench_json(&a->shape[i], r));
			continue;
		}
		cmd_progress_clear();
		if (i == 0)
			printf("timing thread pinned to CPU %d\n", r->cpu);
		if ((rc = print_shape(&a->shape[i], r)))
			break;
		fflush(stdout);
	}
	lr_progress_update(progress, i);
	lr_progress_stop(&progress);
	return rc;
}

/* The fastest kernel per size into the table 'auto' reads (encode/ktable.h); a cache, so a failure only warns. */
static void write_table(const struct lr_ktable_entry *fastest, int n, int json)
{
	struct lr_ktable_entry e[32];
	size_t m = 0;

	for (int i = 0; i < n; i++)
		if (fastest[i].k)
			e[m++] = fastest[i];
	if (!m)
		return;
	if (lr_ktable_write(e, m)) {
		fprintf(stderr, "labrun: warning: %s; 'auto' keeps its previous choice\n", lr_error_msg());
		return;
	}
	if (!json)
		printf("auto now takes the kernel fastest here at the nearest of these sizes (table %s)\n", lr_ktable_path());
}

static int bench_encoder(const struct lr_global *g, int argc, char **argv)
{
	struct lr_ktable_entry fastest[32];
	struct bench_args a;
	struct lr_bench_job job;
	struct lr_bench_result *r = NULL;
	struct lr_store *st = NULL;
	json_t *root = NULL;
	int rc, exit_code;

	memset(&a, 0, sizeof a);
	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	if ((exit_code = parse(&a, argc, argv))) {
		lr_strlist_release(&a.shapes);
		return exit_code;
	}
	if (!(r = malloc(sizeof *r)))
		return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
	if ((exit_code = cmd_store(&st, g)))
		goto out;
	cmd_progress_begin("labrun bench", cmd_bench_progress, 0);
	if ((rc = lr_bench_job_begin(&job, st, &a.o, g->argv, environ))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	root = header(&a.o, a.json);
	rc = run_shapes(&a, &job, root, r, fastest);
	if ((exit_code = cmd_bench_finish(&job, rc)))
		goto out;
	if (a.o.threads == 1) /* what 'auto' takes from now on: one thread, as encode and import run a kernel */
		write_table(fastest, a.nshapes, a.json);
	if (a.json) {
		json_object_set_new(root, "run", json_integer(job.run.id));
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		printf("recorded run %lld (passed); 'labrun report --run %lld' prints these tables again\n",
		       (long long)job.run.id, (long long)job.run.id);
	}
out:
	json_decref(root);
	lr_bench_job_release(&job);
	lr_strlist_release(&a.shapes);
	free(r);
	return exit_code;
}

int cmd_bench(const struct lr_global *g, int argc, char **argv)
{
	static const struct cmd_sub benches[] = {
		{ "encoder", bench_encoder }, { "import", cmd_bench_import }, { "store", cmd_bench_store },
		{ "remote", cmd_bench_remote }, { "collect", cmd_bench_collect }, { "ingest", cmd_bench_ingest }, { NULL, NULL },
	};

	return cmd_run_sub(g, "bench", "benchmark", benches, argc, argv);
}
