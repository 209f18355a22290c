#include "config.h"
#include "base/system.h"

#include <sched.h>

#include "base/error.h"
#include "cmd/bench-int.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "encode/cpu.h"
#include "encode/npy.h"
#include "experiment/encoderbench.h"

static const char usage[] =
	"usage: labrun bench encoder [--shape L,2,H,T,D ...] [--reps N] [--contract C] [--seed N] [--threads N]\n"
	"                            [--dir DIR | --no-files] [--json]\n"
	"       labrun bench import [--model M] [--tokens T] [--reps N] [--threads N]   ('bench import -h')\n"
	"       labrun bench store [--scale N ...] [--reps N] [--dir DIR] [--json]   ('bench store -h')\n"
	"       labrun bench remote [NAME] [--runs N] [--reps N] [--object-mib M]   ('bench remote -h')\n"
	"       labrun bench collect [--concurrency N,...] [--requests N] [--tokens N] [--reps N]   ('bench collect -h')\n"
	"       labrun bench ingest [--responses N] [--tokens N] [--reps N]   ('bench ingest -h')\n"
	"       labrun bench scan [--bytes N] [--reps N] [--dir DIR] [--json]   ('bench scan -h')\n"
	"\n"
	"Time every available BF16 -> DLF16 kernel against the copy ceiling (the best of\n"
	"memcpy, a plain vector copy and a non-temporal-store copy of the same bytes) and\n"
	"the auto kernel on a permuted (token-major) view, single-threaded, pinned to one\n"
	"CPU. Variants alternate forward/reversed each repetition; the first repetition is\n"
	"a warm-up and is dropped. Outputs are checked bit-identical before timing counts.\n"
	"GB/s counts bytes read plus bytes written. Measured, not modelled. The benchmark is\n"
	"recorded as a run (kind bench, every repetition's time): 'labrun report --run ID'\n"
	"prints its tables again. Small, to try it: labrun bench encoder --shape 1,2,2,256,128\n"
	"--reps 3 --no-files.\n";

struct bench_args {
	struct lr_encoderbench_opts eo; /* eo.shape is shape[], eo.fastest fastest[] */
	struct lr_bench_opts shape[32]; /* each --shape, parsed and checked before anything runs */
	struct lr_ktable_entry fastest[32];
	const char *text[32];
	struct lr_strlist shapes; /* the --shape values text[] points into */
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
		CMD_LIST(
			0, "shape", &shapes, "S",
			"a 5-D shape [L,2,H,T,D] (repeatable); default: the seed's\n1,2,8,2048,128  1,2,8,8192,128  28,2,8,2048,128  28,2,8,8192,128"),
		CMD_INT(0, "reps", &a->eo.base.reps, 2, LR_BENCH_MAXREPS, "N",
			"repetitions per variant, the first dropped (default 7)"),
		CMD_CHOICE(0, "contract", &a->contract, cmd_contract_choices, "C", "saturate (default) or ninf"),
		CMD_U64(0, "seed", &a->eo.base.seed, 0, INT64_MAX, "N",
			"seed of the synthetic BF16 data (default 205)"),
		CMD_INT(0, "threads", &a->eo.base.threads, 1, LR_BENCH_MAXTHREADS, "N",
			"run every variant, the copies too, on N threads pinned to N\nCPUs (default 1): the N-thread ceiling beside the N-thread kernels"),
		CMD_BOOL(0, "json", &a->json, "one JSON object at the end instead of the tables (docs/labrun.md)"),
		CMD_STRING(
			0, "dir", &a->eo.base.dir, "DIR",
			"where the file variants write the array as a .npy file and time\ncp of it beside 'labrun encode' of it, file to file (default:\n$TMPDIR, else /tmp; give a directory on the file system you use)"),
		CMD_BOOL(0, "no-files", &no_files, "time in memory only"),
		CMD_PROGRESS(&cmd_bench_progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "bench", .usage = usage };
	cpu_set_t cpus;
	int i, k, rc;

	a->eo.base.reps = 7;
	a->eo.base.seed = 205;
	a->eo.base.threads = 1;
	rc = cmd_parse_options(&p, opts, argc, argv, &i);
	for (i = 0; !rc && (size_t)i < shapes.n && i < 32; i++)
		a->text[a->nshapes++] = shapes.v[i];
	if (!rc && shapes.n > 32)
		rc = cmd_usage_error("bench", "at most 32 --shape options");
	a->shapes = shapes; /* a->text points into it */
	if (rc)
		return rc;
	if (strcmp(argv[0], "encoder")) /* options before any name: cmd_run_sub gave them to the first */
		return cmd_usage_error(
			"bench",
			"which benchmark? 'labrun bench encoder', 'import', 'store', 'remote', 'collect', 'ingest' or 'scan'");
	a->eo.base.contract = (enum lr_dlf16_contract)a->contract;
	if (no_files && a->eo.base.dir)
		return cmd_usage_error("bench", "--dir and --no-files: give one");
	if (!no_files &&
	    (rc = cmd_bench_dirs(&a->eo.base.dir, "; the file variants write the array there (or give --no-files)",
				 NULL, 0)))
		return rc;
	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && a->eo.base.threads > CPU_COUNT(&cpus))
		return cmd_usage_error("bench",
				       "--threads %d: this process may run on %d CPU(s); more threads than CPUs "
				       "measure the scheduler, not the memory",
				       a->eo.base.threads, CPU_COUNT(&cpus));
	if (!a->nshapes)
		for (i = 0; i < 4; i++)
			a->text[a->nshapes++] = defaults[i];
	for (i = 0; i < a->nshapes; i++) {
		a->shape[i] = a->eo.base;
		if (lr_shape_parse(a->shape[i].shape, &a->shape[i].rank, a->text[i], "--shape"))
			return cmd_fail(LR_EINVAL);
		if (a->shape[i].rank != 5 || a->shape[i].shape[1] != 2)
			return cmd_usage_error("bench",
					       "invalid --shape '%s': expected [L,2,H,T,D], e.g. 28,2,8,8192,128",
					       a->text[i]);
		if (!a->shape[i].shape[0] || !a->shape[i].shape[2] || !a->shape[i].shape[3] || !a->shape[i].shape[4])
			return cmd_usage_error("bench", "shape [%s] holds no elements: there is nothing to time",
					       a->text[i]);
		for (k = 0; k < i; k++)
			if (!memcmp(a->shape[k].shape, a->shape[i].shape, sizeof a->shape[i].shape))
				return cmd_usage_error("bench", "--shape '%s' is given twice", a->text[i]);
	}
	return 0;
}

/* The fastest kernel per size into the table 'auto' reads (encode/ktable.h); a cache, so a failure only warns. */
static void write_table(void *opts, int json)
{
	const struct lr_encoderbench_opts *o = opts;
	struct lr_ktable_entry e[32];
	size_t m = 0;

	if (o->base.threads > 1) /* what 'auto' takes: one thread, as encode and import run a kernel */
		return;
	for (int i = 0; i < o->nshapes; i++)
		if (o->fastest[i].k)
			e[m++] = o->fastest[i];
	if (!m)
		return;
	if (lr_ktable_write(e, m)) {
		fprintf(stderr, "labrun: warning: %s; 'auto' keeps its previous choice\n", lr_error_msg());
		return;
	}
	if (!json)
		printf("auto now takes the kernel fastest here at the nearest of these sizes (table %s)\n",
		       lr_ktable_path());
}

/*
 * With AVX-512 hidden (LABRUN_CPU_HIDE), the ceiling must not use it either:
 * glibc picks its memcpy once, at start-up, so labrun starts again with
 * glibc's AVX-512 masked (encode/cpu.h). Returns only when nothing had to be
 * done or the new start failed (then it says so and the benchmark goes on).
 */
static void mask_glibc_avx512(const struct lr_global *g)
{
	char value[1024];

	if (!lr_cpu_hidden("avx512") || !lr_cpu_glibc_mask(getenv("GLIBC_TUNABLES"), value, sizeof value))
		return;
	if (setenv("GLIBC_TUNABLES", value, 1) == 0)
		execv("/proc/self/exe", g->argv);
	fprintf(stderr,
		"labrun: warning: cannot start again with glibc's AVX-512 masked (%s); the copy ceiling may use it\n",
		strerror(errno));
}

static int bench_encoder(const struct lr_global *g, int argc, char **argv)
{
	struct bench_args a;
	int exit_code;

	mask_glibc_avx512(g);
	memset(&a, 0, sizeof a);
	if (!(exit_code = parse(&a, argc, argv))) {
		a.eo.shape = a.shape;
		a.eo.nshapes = a.nshapes;
		a.eo.fastest = a.fastest;
		exit_code = cmd_bench_run(g, &lr_encoderbench_ops, &a.eo, a.json, write_table);
	}
	lr_strlist_release(&a.shapes);
	return exit_code;
}

int cmd_bench(const struct lr_global *g, int argc, char **argv)
{
	static const struct cmd_sub benches[] = {
		{ "encoder", bench_encoder },     { "import", cmd_bench_import },
		{ "store", cmd_bench_store },     { "remote", cmd_bench_remote },
		{ "collect", cmd_bench_collect }, { "ingest", cmd_bench_ingest },
		{ "scan", cmd_bench_scan },       { NULL, NULL },
	};

	return cmd_run_sub(g, "bench", "benchmark", benches, argc, argv);
}
