#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"  --seed N       seed of the synthetic BF16 data (default 205)\n";

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

int cmd_bench(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shape", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "contract", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defaults[] = { "1,2,8,2048,128", "1,2,8,8192,128", "28,2,8,2048,128",
						"28,2,8,8192,128" };
	const char *shapes[32], *which = NULL;
	int nshapes = 0, c, i, rc = 0;
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
	printf("labrun bench encoder: %d repetitions per variant (first dropped), contract %s, seed %llu\n",
	       o.reps, lr_dlf16_contract_name(o.contract), (unsigned long long)o.seed);
	{
		struct lr_host h;

		if (lr_host_probe(&h) == 0) {
			printf("host %s: %s, %lld CPUs, %s; labrun %s, auto kernel %s\n", h.hostname,
			       h.cpu_model ? h.cpu_model : "unknown CPU", (long long)h.cores, h.kernel, PACKAGE_VERSION,
			       lr_dlf16_auto()->name);
			lr_host_release(&h);
		}
	}
	for (i = 0; i < nshapes; i++) {
		if ((rc = lr_shape_parse(o.shape, &o.rank, shapes[i], "--shape")))
			break;
		if (o.rank != 5 || o.shape[1] != 2) {
			rc = lr_error_set(LR_EINVAL, "invalid --shape '%s': expected [L,2,H,T,D]", shapes[i]);
			lr_error_hint("e.g. --shape 28,2,8,8192,128");
			break;
		}
		if ((rc = lr_bench_encoder(&o, r)))
			break;
		if (i == 0)
			printf("timing thread pinned to CPU %d\n", r->cpu);
		print_result(&o, r);
		fflush(stdout);
	}
	free(r);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
