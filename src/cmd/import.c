#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "record/runjson.h"
#include "import/backend.h"
#include "import/job.h"

extern char **environ;

static const char usage[] =
	"usage: labrun import --model M --tokens T [--mode whole|stream] [--layout strided|copy]\n"
	"                     [--backend sim|atom] [--kernel K] [--source FILE] [--seed S] [OPTIONS]\n"
	"\n"
	"Import a KV export into a device: lay it out as the device stores it, encode BF16 to\n"
	"DLFloat16, write it to a lease on a lane and commit; then read every tensor back and\n"
	"compare it with an independent expectation. Prints the host time of each stage\n"
	"(modelled link time apart) and records the run in the store.\n"
	"\n"
	"Geometry:\n"
	"  --model M            qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b, or custom\n"
	"  --layers N --kv-heads N --head-dim N   for --model custom\n"
	"  --tokens T           tokens in the export (synthetic source)\n"
	"  --capacity N         tokens the compiled cache holds (default: --tokens)\n"
	"  --block-size N       tokens per device block (default: the capacity, one block)\n"
	"  --compiled-model M   the model the device was compiled for (default: --model)\n"
	"Source:\n"
	"  --source FILE        a .npy or .safetensors export (default: synthetic data)\n"
	"  --tensor NAME        the tensor of a safetensors file with several\n"
	"  --export head|token  memory order of the export: [L,2,H,T,D] or [L,2,T,H,D] (default token)\n"
	"  --seed S             seed of the synthetic export (default 1)\n"
	"  --specials           inject special values (zeros, subnormals, overflow, Inf, NaN)\n"
	"Pipeline:\n"
	"  --mode whole|stream  stage everything then write, or overlap encoding with writes per layer\n"
	"  --layout strided|copy  encode straight from the view, or the old copy-transpose-reverse path\n"
	"  --kernel K --contract C --threads N   as for 'labrun encode'\n"
	"  --staging N          stream mode staging buffers (default 2)\n"
	"Backend:\n"
	"  --backend sim|atom   simulated device (default) or ATOM through the RBLN runtime\n"
	"  --lanes N --lane L   lanes of the device, and the one to import into (default 4, 0)\n"
	"  --capacity-mib N     simulated device memory (default: unlimited)\n"
	"  --link-gbps X --link-latency-us Y   simulated link model (MODELLED time)\n"
	"  --rbln-lib PATH      the runtime library (default $LABRUN_RBLN_LIB, else librbln.so)\n"
	"  --device N           physical NPU id (default 0)\n"
	"Faults (for tests): --fail-write K, --cancel-at LAYER, --die-at LAYER\n"
	"Record: --experiment NAME, --issue REF (repeatable), --note TEXT\n"
	"Output: --json   the recorded run as 'labrun show --json' gives it, instead of the stages\n";

struct opts {
	struct lr_import_job_opts j;
	struct lr_strlist issues;
	int json;
};

/* Import's numbers: checked for range and overflow (cmd_parse_int), never truncated to an int. */
static int num(const char *opt, const char *arg, long long min, long long max, long long *out)
{
	return cmd_parse_int("import", opt, arg, min, max, out);
}

static int real(const char *opt, const char *arg, double *out)
{
	char *end;

	*out = strtod(arg, &end);
	if (*end || end == arg || *out < 0)
		return cmd_usage_error("import", "invalid %s '%s': expected a number", opt, arg);
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	enum {
		O_MODEL = 256, O_TOKENS, O_MODE, O_LAYOUT, O_BACKEND, O_KERNEL, O_SOURCE, O_SEED, O_LAYERS,
		O_KVHEADS, O_HEADDIM, O_CAPACITY, O_BLOCK, O_COMPILED, O_TENSOR, O_EXPORT, O_SPECIALS, O_CONTRACT,
		O_THREADS, O_STAGING, O_LANES, O_LANE, O_CAPMIB, O_GBPS, O_LAT, O_RBLN, O_DEVICE, O_FAILW,
		O_CANCEL, O_DIE, O_EXP, O_ISSUE, O_NOTE, O_JSON,
	};
	static const struct option opts[] = {
		{ "model", required_argument, NULL, O_MODEL }, { "tokens", required_argument, NULL, O_TOKENS },
		{ "mode", required_argument, NULL, O_MODE }, { "layout", required_argument, NULL, O_LAYOUT },
		{ "backend", required_argument, NULL, O_BACKEND }, { "kernel", required_argument, NULL, O_KERNEL },
		{ "source", required_argument, NULL, O_SOURCE }, { "seed", required_argument, NULL, O_SEED },
		{ "layers", required_argument, NULL, O_LAYERS }, { "kv-heads", required_argument, NULL, O_KVHEADS },
		{ "head-dim", required_argument, NULL, O_HEADDIM }, { "capacity", required_argument, NULL, O_CAPACITY },
		{ "block-size", required_argument, NULL, O_BLOCK },
		{ "compiled-model", required_argument, NULL, O_COMPILED },
		{ "tensor", required_argument, NULL, O_TENSOR }, { "export", required_argument, NULL, O_EXPORT },
		{ "specials", no_argument, NULL, O_SPECIALS }, { "contract", required_argument, NULL, O_CONTRACT },
		{ "threads", required_argument, NULL, O_THREADS }, { "staging", required_argument, NULL, O_STAGING },
		{ "lanes", required_argument, NULL, O_LANES }, { "lane", required_argument, NULL, O_LANE },
		{ "capacity-mib", required_argument, NULL, O_CAPMIB },
		{ "link-gbps", required_argument, NULL, O_GBPS },
		{ "link-latency-us", required_argument, NULL, O_LAT },
		{ "rbln-lib", required_argument, NULL, O_RBLN }, { "device", required_argument, NULL, O_DEVICE },
		{ "fail-write", required_argument, NULL, O_FAILW }, { "cancel-at", required_argument, NULL, O_CANCEL },
		{ "die-at", required_argument, NULL, O_DIE }, { "experiment", required_argument, NULL, O_EXP },
		{ "issue", required_argument, NULL, O_ISSUE }, { "note", required_argument, NULL, O_NOTE },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	long long v;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case O_MODEL: o->j.model = optarg; break;
		case O_COMPILED: o->j.compiled_model = optarg; break;
		case O_SOURCE: o->j.source = optarg; break;
		case O_TENSOR: o->j.tensor = optarg; break;
		case O_KERNEL: o->j.kernel = optarg; break;
		case O_BACKEND: o->j.backend = optarg; break;
		case O_EXP: o->j.experiment = optarg; break;
		case O_NOTE: o->j.note = optarg; break;
		case O_SPECIALS: o->j.specials = 1; break;
		case O_ISSUE: rc = lr_strlist_add(&o->issues, optarg) ? LR_EXIT_FAIL : 0; break;
		case O_RBLN: o->j.cfg.rbln_lib = optarg; break;
		case O_TOKENS: rc = num("--tokens", optarg, 1, 1LL << 31, &v); o->j.tokens = v; break;
		case O_CAPACITY: rc = num("--capacity", optarg, 1, 1LL << 31, &v); o->j.capacity = v; break;
		case O_BLOCK: rc = num("--block-size", optarg, 1, 1LL << 31, &v); o->j.block_size = v; break;
		case O_LAYERS: rc = num("--layers", optarg, 1, LR_KV_MAXLAYERS, &v); o->j.layers = (int)v; break;
		case O_KVHEADS: rc = num("--kv-heads", optarg, 1, 1024, &v); o->j.kv_heads = (int)v; break;
		case O_HEADDIM: rc = num("--head-dim", optarg, 1, 65536, &v); o->j.head_dim = (int)v; break;
		case O_SEED: rc = num("--seed", optarg, 0, INT64_MAX, &v); o->j.seed = (uint64_t)v; break;
		case O_THREADS: rc = num("--threads", optarg, 1, 1024, &v); o->j.threads = (int)v; break;
		case O_STAGING: rc = num("--staging", optarg, 2, 64, &v); o->j.staging = (int)v; break;
		case O_LANES: rc = num("--lanes", optarg, 1, 1024, &v); o->j.cfg.lanes = (int)v; break;
		case O_LANE: rc = num("--lane", optarg, 0, 1023, &v); o->j.lane = (int)v; break;
		case O_DEVICE: rc = num("--device", optarg, 0, 1023, &v); o->j.cfg.device_id = (int)v; break;
		case O_CAPMIB: rc = num("--capacity-mib", optarg, 1, 1LL << 24, &v); o->j.cfg.capacity_bytes = (uint64_t)v << 20; break;
		case O_FAILW: rc = num("--fail-write", optarg, 1, 1LL << 40, &v); o->j.cfg.fail_write = v; break;
		case O_CANCEL: rc = num("--cancel-at", optarg, 0, INT_MAX, &v); o->j.cancel_at = (int)v; break;
		case O_DIE: rc = num("--die-at", optarg, 0, INT_MAX, &v); o->j.die_at = (int)v; break;
		case O_GBPS: rc = real("--link-gbps", optarg, &o->j.cfg.link_gbps); break;
		case O_LAT: rc = real("--link-latency-us", optarg, &o->j.cfg.link_latency_us); break;
		case O_JSON:
			o->json = 1;
			break;
		case O_MODE:
			if (!strcmp(optarg, "whole") || !strcmp(optarg, "stream"))
				o->j.mode = optarg[0] == 's' ? LR_IMPORT_STREAM : LR_IMPORT_WHOLE;
			else
				return cmd_usage_error("import", "invalid --mode '%s': expected whole or stream", optarg);
			break;
		case O_LAYOUT:
			if (!strcmp(optarg, "strided") || !strcmp(optarg, "copy"))
				o->j.path = optarg[0] == 'c' ? LR_PATH_COPY : LR_PATH_STRIDED;
			else
				return cmd_usage_error("import", "invalid --layout '%s': expected strided or copy", optarg);
			break;
		case O_EXPORT:
			if (!strcmp(optarg, "head") || !strcmp(optarg, "token"))
				o->j.token_major = optarg[0] == 't';
			else
				return cmd_usage_error("import", "invalid --export '%s': expected head or token", optarg);
			break;
		case O_CONTRACT:
			if ((rc = lr_dlf16_contract_parse(optarg)) < 0)
				return cmd_usage_error("import", "invalid --contract '%s': expected saturate or ninf", optarg);
			o->j.contract = (enum lr_dlf16_contract)rc;
			rc = 0;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cmd_bad_option("import", argv, c);
		}
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cmd_usage_error("import", "unexpected argument '%s'", argv[optind]);
	if (!o->j.model)
		return cmd_usage_error("import", "--model is required (%s, or custom)", "qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b");
	if (!o->j.source && !o->j.tokens)
		return cmd_usage_error("import", "--tokens is required for a synthetic export");
	return 0;
}

static void print_stage(const char *name, double s, const char *what)
{
	printf("  %-18s %10.3f ms  %s\n", name, s * 1e3, what);
}

static void print_import(const struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	const struct lr_kvgeom *g = &j->g;
	const struct lr_import_result *r = &j->r;
	int sim = j->ops == &lr_backend_sim_ops;
	char mib[32];

	printf("import %s: %d layers x %d KV heads x %lld tokens x %d dims, %s BF16 (%s, %s)\n", g->model, g->layers,
	       g->kv_heads, (long long)g->tokens, g->head_dim, cmd_human_size(mib, sizeof mib, (long long)j->bytes),
	       o->token_major ? "token-major" : "head-major", j->src.what);
	printf("  backend %s, lane %d, mode %s, layout %s, kernel %s, contract %s, %d encoder thread%s\n", j->ops->name,
	       o->lane, lr_import_mode_name(o->mode), lr_import_path_name(o->path), j->k->name,
	       lr_dlf16_contract_name(o->contract), o->threads, o->threads == 1 ? "" : "s");
	print_stage("source", j->source_s, "measured (host)");
	print_stage("lease", r->lease_s, sim ? "measured (host; the simulated device faults its memory in here)"
					     : "measured (host, device allocation)");
	print_stage("layout+encode", r->encode_s, "measured (host, summed over layers)");
	print_stage("device writes", r->write_s, "measured (host time inside the write calls)");
	print_stage("import total", r->total_s, "measured (after the lease: first encode to commit, wall clock)");
	if (j->imported)
		print_stage("readback", j->readback_s,
			    j->verified ? "measured; device state matches the expectation" : "measured; MISMATCH");
	if (j->ceiling_s > 0) {
		print_stage("copy ceiling", j->ceiling_s, "measured: memcpy of the same bytes (median of 4)");
		printf("  import total / copy ceiling = %.2fx\n", r->total_s / j->ceiling_s);
	}
	if (o->cfg.link_gbps > 0)
		printf("  %-18s %10.3f ms  MODELLED, not measured (%.1f GB/s, %.1f us per call)\n", "DMA (link model)",
		       j->stats.modelled_dma_s * 1e3, o->cfg.link_gbps, o->cfg.link_latency_us);
	printf("  %lld device writes, %s; device state sha256 %s\n", (long long)r->writes,
	       cmd_human_size(mib, sizeof mib, (long long)r->bytes), j->state_sha256[0] ? j->state_sha256 : "-");
}

int cmd_import(const struct lr_global *gl, int argc, char **argv)
{
	struct opts o = {
		.j = { .kernel = "auto", .backend = "sim", .token_major = 1, .seed = 1, .threads = 1, .staging = 2,
		       .cfg = { .lanes = 4 }, .cancel_at = -1, .die_at = -1, .cancel = &cmd_cancel_requested },
	};
	struct lr_import_job job;
	struct lr_store *st = NULL;
	struct cmd_cancel cancel;
	int rc, exit_code = LR_EXIT_OK;

	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	if ((rc = parse(&o, argc, argv))) {
		exit_code = rc < 0 ? LR_EXIT_OK : rc;
		goto out;
	}
	o.j.issues = &o.issues;
	if ((rc = lr_import_job_prepare(&job, &o.j))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if ((exit_code = cmd_open_store(&st, gl, 1)))
		goto out;
	/* Ctrl-C cancels the import: the lease is released, nothing partial shows. */
	cmd_cancel_install(&cancel);
	rc = lr_import_job_execute(&job, &o.j, st, gl->argv, environ);
	cmd_cancel_restore(&cancel);
	if (rc) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (o.json) {
		json_t *run = lr_run_json(&job.run, 1);

		json_dumpf(run, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(run);
	} else {
		print_import(&job, &o.j);
		printf("recorded run %lld (%s)\n", (long long)job.run.id, lr_status_name(job.run.status));
	}
	if (job.run.status != LR_PASSED) {
		lr_error_set(LR_EIO, "%s", job.run.failure);
		lr_error_hint("'labrun show %lld' has the details", (long long)job.run.id);
		exit_code = cmd_fail(LR_EIO);
	}
out:
	lr_import_job_release(&job);
	lr_strlist_release(&o.issues);
	lr_store_free(st);
	return exit_code;
}
