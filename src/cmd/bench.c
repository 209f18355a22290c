#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "encode/bench.h"
#include "encode/npy.h"
#include "record/hostinfo.h"

static const char usage[] =
	"usage: labrun bench encoder [--shape L,2,H,T,D ...] [--reps N] [--contract C] [--seed N]\n"
	"\n"
	"Time every available BF16 -> DLF16 kernel against the copy ceiling (the best of\n"
	"memcpy, a plain vector copy and a non-temporal-store copy of the same bytes) and\n"
	"the auto kernel on a permuted (token-major) view, single-threaded, pinned to one\n"
	"CPU. Variants alternate forward/reversed each repetition; the first repetition is\n"
	"a warm-up and is dropped. Outputs are checked bit-identical before timing counts.\n"
	"GB/s counts bytes read plus bytes written. Measured, not modelled.\n"
	"\n"
	"  --shape S      a 5-D shape [L,2,H,T,D] (repeatable); default: the seed's\n"
	"                 1,2,8,2048,128  1,2,8,8192,128  28,2,8,2048,128  28,2,8,8192,128\n"
	"  --reps N       repetitions per variant, the first dropped (default 7)\n"
	"  --contract C   saturate (default) or ninf\n"
	"  --seed N       seed of the synthetic BF16 data (default 205)\n"
	"  --json         one JSON object at the end instead of the tables (docs/labrun.md)\n";

static void print_result(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	const struct lr_bench_variant *ceil = &r->var[r->ceiling];
	int i;

	printf("\nshape [%lld,%lld,%lld,%lld,%lld]: %lld elements, %.1f MiB in + %.1f MiB out\n",
	       (long long)o->shape[0], (long long)o->shape[1], (long long)o->shape[2], (long long)o->shape[3],
	       (long long)o->shape[4], (long long)r->elements, r->elements * 2 / 1048576.0,
	       r->elements * 2 / 1048576.0);
	printf("parity: every encoder and the permuted view give identical bytes (sha256 %.16s...)\n", r->digest);
	printf("  %-34s %10s %8s %10s %9s\n", "variant", "median ms", "GB/s", "x ceiling", "vs lookup");
	for (i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		printf("  %-34s %10.3f %8.2f %10.2f", v->name, v->median_ms, v->gbps, v->gbps / ceil->gbps);
		if (v->kind != LR_BENCH_COPY && r->lookup >= 0)
			printf(" %8.2fx", r->var[r->lookup].median_ms / v->median_ms);
		else
			printf(" %9s", "");
		if (i == r->ceiling)
			printf("  <- ceiling");
		if (i == r->best)
			printf("  <- best kernel");
		putchar('\n');
	}
	printf("best kernel %s: %.2fx the ceiling's throughput, %.2fx faster than lookup\n",
	       r->var[r->best].k->name, r->var[r->best].gbps / ceil->gbps,
	       r->lookup >= 0 ? r->var[r->lookup].median_ms / r->var[r->best].median_ms : 0.0);
	printf("permuted view (%s): %.3f ms = %.2fx the contiguous encode\n", r->var[r->permuted].k->name,
	       r->var[r->permuted].median_ms, r->var[r->permuted].median_ms / r->var[r->contiguous].median_ms);
}

/* One shape's result as JSON: every variant measured, the ratios the tables print. */
static json_t *result_json(const struct lr_bench_opts *o, const struct lr_bench_result *r)
{
	const struct lr_bench_variant *ceil = &r->var[r->ceiling];
	json_t *vars = json_array();
	int i;

	for (i = 0; i < r->nvar; i++) {
		const struct lr_bench_variant *v = &r->var[i];

		json_array_append_new(vars, json_pack("{s:s, s:s, s:f, s:f, s:f, s:o}", "name", v->name, "kind",
						      v->kind == LR_BENCH_COPY ? "copy" : v->kind == LR_BENCH_ENCODE ? "encode" : "permuted",
						      "median_ms", v->median_ms, "gbps", v->gbps, "x_ceiling", v->gbps / ceil->gbps,
						      "vs_lookup", v->kind != LR_BENCH_COPY && r->lookup >= 0
									   ? json_real(r->var[r->lookup].median_ms / v->median_ms)
									   : json_null()));
	}
	return json_pack("{s:[I,I,I,I,I], s:I, s:s, s:s, s:s, s:s, s:o}", "shape", (json_int_t)o->shape[0],
			 (json_int_t)o->shape[1], (json_int_t)o->shape[2], (json_int_t)o->shape[3], (json_int_t)o->shape[4],
			 "elements", (json_int_t)r->elements, "output_sha256", r->digest, "ceiling", ceil->name, "best",
			 r->var[r->best].name, "permuted", r->var[r->permuted].name, "variants", vars);
}

/* The run's header: printed, or the top of the JSON object (host, settings; measured, not modelled). */
static json_t *header(const struct lr_bench_opts *o, int json)
{
	struct lr_host h;
	json_t *root = json ? json_pack("{s:i, s:s, s:I, s:s, s:s, s:b}", "reps", o->reps, "contract",
					lr_dlf16_contract_name(o->contract), "seed", (json_int_t)o->seed, "labrun", PACKAGE_VERSION,
					"auto_kernel", lr_dlf16_auto()->name, "modelled", 0)
			    : NULL;

	if (!json)
		printf("labrun bench encoder: %d repetitions per variant (first dropped), contract %s, seed %llu\n",
		       o->reps, lr_dlf16_contract_name(o->contract), (unsigned long long)o->seed);
	if (lr_host_probe(&h) == 0) {
		if (json)
			json_object_set_new(root, "host", json_pack("{s:s, s:s, s:I, s:s}", "hostname", h.hostname, "cpu",
								    h.cpu_model ? h.cpu_model : "unknown", "cpus",
								    (json_int_t)h.cores, "kernel", h.kernel));
		else
			printf("host %s: %s, %lld CPUs, %s; labrun %s, auto kernel %s\n", h.hostname,
			       h.cpu_model ? h.cpu_model : "unknown CPU", (long long)h.cores, h.kernel, PACKAGE_VERSION,
			       lr_dlf16_auto()->name);
		lr_host_release(&h);
	}
	if (json)
		json_object_set_new(root, "shapes", json_array());
	return root;
}

int cmd_bench(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shape", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "contract", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defaults[] = { "1,2,8,2048,128", "1,2,8,8192,128", "28,2,8,2048,128",
						"28,2,8,8192,128" };
	const char *shapes[32], *which = NULL;
	int nshapes = 0, c, i, rc = 0, json = 0;
	json_t *root;
	struct lr_bench_opts o;
	struct lr_bench_result *r;
	char *end;
	long long v;

	(void)g;
	memset(&o, 0, sizeof o);
	o.reps = 7;
	o.seed = 205;
	if (argc > 1 && argv[1][0] != '-') {
		/* "labrun bench encoder --shape ...": the benchmark's name comes first */
		which = argv[1];
		argv++;
		argc--;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (nshapes == 32)
				return cmd_usage_error("bench", "at most 32 --shape options");
			shapes[nshapes++] = optarg;
			break;
		case 'r':
			if (cmd_parse_int("bench", "--reps", optarg, 2, LR_BENCH_MAXREPS, &v))
				return LR_EXIT_USAGE;
			o.reps = (int)v;
			break;
		case 'c':
			if ((int)(o.contract = lr_dlf16_contract_parse(optarg)) < 0)
				return cmd_usage_error("bench", "invalid --contract '%s': expected saturate or ninf", optarg);
			break;
		case 'S':
			o.seed = strtoull(optarg, &end, 10);
			if (*end)
				return cmd_usage_error("bench", "invalid --seed '%s': expected a number", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("bench", argv, c);
		}
	}
	if (optind < argc)
		return cmd_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (!which)
		return cmd_usage_error("bench", "which benchmark? 'labrun bench encoder'");
	if (strcmp(which, "encoder"))
		return cmd_usage_error("bench", "unknown benchmark '%s': the one there is 'encoder'", which);
	if (!nshapes)
		for (i = 0; i < 4; i++)
			shapes[nshapes++] = defaults[i];
	r = malloc(sizeof *r);
	if (!r)
		return cmd_fail(lr_error_set(LR_ENOMEM, "out of memory"));
	root = header(&o, json);
	for (i = 0; i < nshapes; i++) {
		if ((rc = lr_shape_parse(o.shape, &o.rank, shapes[i], "--shape")))
			break;
		if (o.rank != 5 || o.shape[1] != 2) {
			rc = lr_error_set(LR_EINVAL, "invalid --shape '%s': expected [L,2,H,T,D]", shapes[i]);
			lr_error_hint("e.g. --shape 28,2,8,8192,128");
			break;
		}
		if (isatty(STDERR_FILENO)) /* progress on a terminal: a shape can take many seconds */
			fprintf(stderr, "bench encoder: shape %d of %d [%s], %d repetitions...\r", i + 1, nshapes, shapes[i],
				o.reps);
		rc = lr_bench_encoder(&o, r);
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\033[K");
		if (rc)
			break;
		if (json) {
			json_object_set_new(root, "cpu", json_integer(r->cpu));
			json_array_append_new(json_object_get(root, "shapes"), result_json(&o, r));
			continue;
		}
		if (i == 0)
			printf("timing thread pinned to CPU %d\n", r->cpu);
		print_result(&o, r);
		fflush(stdout);
	}
	if (!rc && json) {
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(root);
	free(r);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
