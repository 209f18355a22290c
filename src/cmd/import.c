#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/backend.h"
#include "cmd/cmd.h"
#include "base/error.h"
#include "import/import.h"
#include "import/kvsrc.h"
#include "record/record.h"
#include "record/spool.h"
#include "base/stats.h"

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
	"Record: --experiment NAME, --issue REF (repeatable), --note TEXT\n";

static volatile int cancel_requested;

static void on_cancel(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

/* The copy ceiling of the export's bytes: median of 4 memcpy after a warm-up. */
static double copy_ceiling(const struct lr_kvsrc *s, uint64_t bytes)
{
	double t[5], t0;
	void *dst = malloc(bytes ? bytes : 1);
	const void *src = s->owned ? (const void *)s->owned : s->map.addr;
	int i;

	if (!dst || !src)
		return 0;
	memset(dst, 0, bytes); /* resident before timing, like the import's buffers */
	for (i = 0; i < 5; i++) {
		t0 = lr_monotonic_s();
		memcpy(dst, src, bytes);
		__asm__ volatile("" : : "r"(dst) : "memory"); /* the copy must happen */
		t[i] = lr_monotonic_s() - t0;
	}
	free(dst);
	return lr_median(t + 1, 4);
}

struct opts {
	const char *model, *compiled_model, *source, *tensor, *kernel, *backend, *experiment, *note;
	struct lr_strlist issues;
	int64_t tokens, capacity, block_size;
	int layers, kv_heads, head_dim;
	int token_major, specials, threads, staging, lanes, lane, device, contract;
	uint64_t seed;
	struct lr_backend_config cfg;
	enum lr_import_mode mode;
	enum lr_import_path path;
	int cancel_at, die_at;
};

static int num(const char *opt, const char *arg, long long min, long long *out)
{
	char *end;

	*out = strtoll(arg, &end, 10);
	if (*end || end == arg || *out < min)
		return cmd_usage_error("import", "invalid %s '%s': expected a whole number >= %lld", opt, arg, min);
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	enum {
		O_MODEL = 256, O_TOKENS, O_MODE, O_LAYOUT, O_BACKEND, O_KERNEL, O_SOURCE, O_SEED, O_LAYERS,
		O_KVHEADS, O_HEADDIM, O_CAPACITY, O_BLOCK, O_COMPILED, O_TENSOR, O_EXPORT, O_SPECIALS, O_CONTRACT,
		O_THREADS, O_STAGING, O_LANES, O_LANE, O_CAPMIB, O_GBPS, O_LAT, O_RBLN, O_DEVICE, O_FAILW,
		O_CANCEL, O_DIE, O_EXP, O_ISSUE, O_NOTE,
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
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	long long v;
	char *end;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case O_MODEL: o->model = optarg; break;
		case O_COMPILED: o->compiled_model = optarg; break;
		case O_SOURCE: o->source = optarg; break;
		case O_TENSOR: o->tensor = optarg; break;
		case O_KERNEL: o->kernel = optarg; break;
		case O_BACKEND: o->backend = optarg; break;
		case O_EXP: o->experiment = optarg; break;
		case O_NOTE: o->note = optarg; break;
		case O_SPECIALS: o->specials = 1; break;
		case O_ISSUE: rc = lr_strlist_add(&o->issues, optarg) ? LR_EXIT_FAIL : 0; break;
		case O_RBLN: o->cfg.rbln_lib = optarg; break;
		case O_TOKENS: rc = num("--tokens", optarg, 1, &v); o->tokens = v; break;
		case O_CAPACITY: rc = num("--capacity", optarg, 1, &v); o->capacity = v; break;
		case O_BLOCK: rc = num("--block-size", optarg, 1, &v); o->block_size = v; break;
		case O_LAYERS: rc = num("--layers", optarg, 1, &v); o->layers = (int)v; break;
		case O_KVHEADS: rc = num("--kv-heads", optarg, 1, &v); o->kv_heads = (int)v; break;
		case O_HEADDIM: rc = num("--head-dim", optarg, 1, &v); o->head_dim = (int)v; break;
		case O_SEED: rc = num("--seed", optarg, 0, &v); o->seed = (uint64_t)v; break;
		case O_THREADS: rc = num("--threads", optarg, 1, &v); o->threads = (int)v; break;
		case O_STAGING: rc = num("--staging", optarg, 2, &v); o->staging = (int)v; break;
		case O_LANES: rc = num("--lanes", optarg, 1, &v); o->cfg.lanes = (int)v; break;
		case O_LANE: rc = num("--lane", optarg, 0, &v); o->lane = (int)v; break;
		case O_DEVICE: rc = num("--device", optarg, 0, &v); o->cfg.device_id = (int)v; break;
		case O_CAPMIB: rc = num("--capacity-mib", optarg, 1, &v); o->cfg.capacity_bytes = (uint64_t)v << 20; break;
		case O_FAILW: rc = num("--fail-write", optarg, 1, &v); o->cfg.fail_write = v; break;
		case O_CANCEL: rc = num("--cancel-at", optarg, 0, &v); o->cancel_at = (int)v; break;
		case O_DIE: rc = num("--die-at", optarg, 0, &v); o->die_at = (int)v; break;
		case O_GBPS:
		case O_LAT: {
			double d = strtod(optarg, &end);

			if (*end || d < 0)
				return cmd_usage_error("import", "invalid %s '%s': expected a number",
						       c == O_GBPS ? "--link-gbps" : "--link-latency-us", optarg);
			if (c == O_GBPS)
				o->cfg.link_gbps = d;
			else
				o->cfg.link_latency_us = d;
			break;
		}
		case O_MODE:
			if (!strcmp(optarg, "whole") || !strcmp(optarg, "stream"))
				o->mode = optarg[0] == 's' ? LR_IMPORT_STREAM : LR_IMPORT_WHOLE;
			else
				return cmd_usage_error("import", "invalid --mode '%s': expected whole or stream", optarg);
			break;
		case O_LAYOUT:
			if (!strcmp(optarg, "strided") || !strcmp(optarg, "copy"))
				o->path = optarg[0] == 'c' ? LR_PATH_COPY : LR_PATH_STRIDED;
			else
				return cmd_usage_error("import", "invalid --layout '%s': expected strided or copy", optarg);
			break;
		case O_EXPORT:
			if (!strcmp(optarg, "head") || !strcmp(optarg, "token"))
				o->token_major = optarg[0] == 't';
			else
				return cmd_usage_error("import", "invalid --export '%s': expected head or token", optarg);
			break;
		case O_CONTRACT:
			if ((o->contract = lr_dlf16_contract_parse(optarg)) < 0)
				return cmd_usage_error("import", "invalid --contract '%s': expected saturate or ninf", optarg);
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
	if (!o->model)
		return cmd_usage_error("import", "--model is required (%s, or custom)", "qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b");
	if (!o->source && !o->tokens)
		return cmd_usage_error("import", "--tokens is required for a synthetic export");
	return 0;
}

/* Geometry of the model: a preset, or custom from the options. */
static int model_geometry(struct lr_kvgeom *g, const char *name, const struct opts *o)
{
	if (strcmp(name, "custom"))
		return lr_kvgeom_preset(g, name);
	if (!o->layers || !o->kv_heads || !o->head_dim) {
		lr_error_set(LR_EINVAL, "--model custom needs --layers, --kv-heads and --head-dim");
		return LR_EINVAL;
	}
	memset(g, 0, sizeof *g);
	snprintf(g->model, sizeof g->model, "custom");
	g->layers = o->layers;
	g->kv_heads = o->kv_heads;
	g->head_dim = o->head_dim;
	if (g->layers > LR_KV_MAXLAYERS)
		return lr_error_set(LR_EINVAL, "--layers %d: at most %d", g->layers, LR_KV_MAXLAYERS);
	return 0;
}

static void add_fact(struct lr_kvlist *l, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", v);
	lr_kvlist_set(l, key, buf, "auto");
}

static void print_stage(const char *name, double s, const char *what)
{
	printf("  %-18s %10.3f ms  %s\n", name, s * 1e3, what);
}

int cmd_import(const struct lr_global *gl, int argc, char **argv)
{
	struct opts o;
	struct lr_kvgeom g, compiled;
	struct lr_kvsrc src;
	struct lr_import_opts io;
	struct lr_import_result r;
	struct lr_backend_stats bst;
	const struct lr_backend_ops *ops = NULL;
	struct lr_backend *b = NULL;
	struct lr_store *st = NULL;
	struct lr_run run;
	double t0, source_s = 0, readback_s = 0, ceiling_s = 0;
	int rc, exit_code = LR_EXIT_OK, have_src = 0, import_rc = 0, verify_rc = 0, lock = -1;
	char hex[65] = "", note[1024] = "", mib[32];
	uint64_t bytes;
	struct sigaction sa, old_int, old_term;

	memset(&o, 0, sizeof o);
	memset(&src, 0, sizeof src);
	lr_run_init(&run);
	o.kernel = "auto";
	o.backend = "sim";
	o.token_major = 1;
	o.seed = 1;
	o.threads = 1;
	o.staging = 2;
	o.cfg.lanes = 4;
	o.cancel_at = o.die_at = -1;
	if ((rc = parse(&o, argc, argv))) {
		exit_code = rc < 0 ? LR_EXIT_OK : rc;
		goto out;
	}
	memset(&io, 0, sizeof io);
	if ((rc = lr_dlf16_kernel_find(&io.k, o.kernel)) || (rc = lr_backend_find(&ops, o.backend)) ||
	    (rc = model_geometry(&g, o.model, &o)) ||
	    (rc = model_geometry(&compiled, o.compiled_model ? o.compiled_model : o.model, &o)))
		goto fail;

	/* The source, and its geometry checked against the compiled one before any byte is written. */
	t0 = lr_monotonic_s();
	g.tokens = o.tokens;
	if (!o.source)
		rc = lr_kvsrc_synthetic(&src, &g, o.token_major, o.seed, o.specials);
	else if (strlen(o.source) > 12 && !strcmp(o.source + strlen(o.source) - 12, ".safetensors"))
		rc = lr_kvsrc_safetensors(&src, o.source, o.tensor, o.token_major);
	else
		rc = lr_kvsrc_npy(&src, o.source, o.token_major);
	source_s = lr_monotonic_s() - t0;
	if (rc)
		goto fail;
	have_src = 1;
	lr_kvsrc_geometry(&src, &g);
	compiled.capacity = o.capacity ? o.capacity : g.tokens;
	compiled.block_size = o.block_size ? o.block_size : compiled.capacity;
	if ((rc = lr_kvgeom_check(&compiled, &g)))
		goto fail;
	g.capacity = compiled.capacity;
	g.block_size = compiled.block_size;
	bytes = lr_kvgeom_export_bytes(&g);

	/* The run row, before anything touches the device. */
	if ((rc = cmd_open_store(&st, gl, 1))) {
		exit_code = rc;
		goto out;
	}
	if ((rc = lr_run_capture(st, &run, "import", gl->argv, environ, o.experiment, o.note, &o.issues)))
		goto fail;
	lr_kvlist_set(&run.geometry, "model", g.model, NULL);
	add_fact(&run.geometry, "layers", g.layers);
	add_fact(&run.geometry, "kv_heads", g.kv_heads);
	add_fact(&run.geometry, "head_dim", g.head_dim);
	add_fact(&run.geometry, "tokens", g.tokens);
	add_fact(&run.geometry, "capacity", g.capacity);
	add_fact(&run.geometry, "block_size", g.block_size);
	if (g.window)
		add_fact(&run.geometry, "window", g.window);
	lr_kvlist_set(&run.geometry, "export", o.token_major ? "token-major" : "head-major", NULL);
	lr_kvlist_set(&run.binding, "backend", ops->name, "user");
	add_fact(&run.binding, "lane", o.lane);
	add_fact(&run.binding, "lanes", o.cfg.lanes);
	add_fact(&run.binding, "encoder_threads", o.threads);
	lr_kvlist_set(&run.binding, "mode", lr_import_mode_name(o.mode), "user");
	lr_kvlist_set(&run.binding, "layout", lr_import_path_name(o.path), "user");
	lr_kvlist_set(&run.binding, "kernel", io.k->name, "user");
	lr_kvlist_set(&run.binding, "contract", lr_dlf16_contract_name(o.contract), "user");
	if (!strcmp(ops->name, "atom"))
		add_fact(&run.binding, "device", o.cfg.device_id);
	/* The backend, before the run row: its runtime version is a tool version of the run. */
	if ((rc = ops->open(&b, &o.cfg)))
		goto fail;
	ops->stats(b, &bst);
	if (!strcmp(ops->name, "atom"))
		lr_kvlist_set(&run.tools, "rbln-runtime", bst.runtime_version, NULL);
	run.started_at = lr_now_iso();
	/* held while the run is 'running', so no other labrun takes it for abandoned */
	if ((rc = lr_spool_lock(lr_store_dir(st), run.uuid, &lock)) || (rc = lr_store_run_begin(st, &run)))
		goto fail;

	/* Import, with Ctrl-C as a cancel: the lease is released, nothing partial shows. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_cancel;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	io.g = &g;
	io.src = &src.view;
	io.mode = o.mode;
	io.path = o.path;
	io.contract = (enum lr_dlf16_contract)o.contract;
	io.threads = o.threads;
	io.lane = o.lane;
	io.staging = o.staging;
	io.cancel_at = o.cancel_at;
	io.die_at = o.die_at;
	io.cancel = &cancel_requested;
	memset(&r, 0, sizeof r);
	import_rc = lr_import(ops, b, &io, &r);
	if (!import_rc) {
		t0 = lr_monotonic_s();
		verify_rc = lr_import_verify(ops, b, &io);
		if (!verify_rc)
			verify_rc = lr_import_state_hash(ops, b, o.lane, &g, hex);
		readback_s = lr_monotonic_s() - t0;
	}
	ops->stats(b, &bst);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (import_rc || verify_rc)
		snprintf(note, sizeof note, "%s", lr_error_msg());
	if (!import_rc && !verify_rc)
		ceiling_s = copy_ceiling(&src, bytes);

	printf("import %s: %d layers x %d KV heads x %lld tokens x %d dims, %s BF16 (%s, %s)\n", g.model, g.layers,
	       g.kv_heads, (long long)g.tokens, g.head_dim, cmd_human_size(mib, sizeof mib, (long long)bytes),
	       o.token_major ? "token-major" : "head-major", src.what);
	printf("  backend %s, lane %d, mode %s, layout %s, kernel %s, contract %s, %d encoder thread%s\n", ops->name,
	       o.lane, lr_import_mode_name(o.mode), lr_import_path_name(o.path), io.k->name,
	       lr_dlf16_contract_name(o.contract), o.threads, o.threads == 1 ? "" : "s");
	print_stage("source", source_s, "measured (host)");
	print_stage("lease", r.lease_s, !strcmp(ops->name, "sim") ? "measured (host; the simulated device faults its memory in here)" : "measured (host, device allocation)");
	print_stage("layout+encode", r.encode_s, "measured (host, summed over layers)");
	print_stage("device writes", r.write_s, "measured (host time inside the write calls)");
	print_stage("import total", r.total_s, "measured (after the lease: first encode to commit, wall clock)");
	if (!import_rc)
		print_stage("readback", readback_s, verify_rc ? "measured; MISMATCH" : "measured; device state matches the expectation");
	if (ceiling_s > 0) {
		print_stage("copy ceiling", ceiling_s, "measured: memcpy of the same bytes (median of 4)");
		printf("  import total / copy ceiling = %.2fx\n", r.total_s / ceiling_s);
	}
	if (o.cfg.link_gbps > 0)
		printf("  %-18s %10.3f ms  MODELLED, not measured (%.1f GB/s, %.1f us per call)\n", "DMA (link model)",
		       bst.modelled_dma_s * 1e3, o.cfg.link_gbps, o.cfg.link_latency_us);
	printf("  %lld device writes, %s; device state sha256 %s\n", (long long)r.writes,
	       cmd_human_size(mib, sizeof mib, (long long)r.bytes), hex[0] ? hex : "-");

	lr_run_add_measure(&run, "source_s", source_s, "s", 0);
	lr_run_add_measure(&run, "lease_s", r.lease_s, "s", 0);
	lr_run_add_measure(&run, "encode_s", r.encode_s, "s", 0);
	lr_run_add_measure(&run, "write_s", r.write_s, "s", 0);
	lr_run_add_measure(&run, "import_s", r.total_s, "s", 0);
	lr_run_add_measure(&run, "writes", (double)r.writes, "count", 0);
	lr_run_add_measure(&run, "bytes", (double)r.bytes, "bytes", 0);
	if (!import_rc)
		lr_run_add_measure(&run, "readback_s", readback_s, "s", 0);
	if (ceiling_s > 0)
		lr_run_add_measure(&run, "copy_ceiling_s", ceiling_s, "s", 0);
	if (o.cfg.link_gbps > 0)
		lr_run_add_measure(&run, "dma_modelled_s", bst.modelled_dma_s, "s", 1);
	if (import_rc || verify_rc) {
		run.status = r.cancelled && r.died_at < 0 && !verify_rc && (o.cancel_at >= 0 || cancel_requested)
				     ? LR_CANCELLED
				     : LR_FAILED;
		run.failure = strdup(note);
	} else {
		run.status = LR_PASSED;
	}
	run.wall_s = r.total_s;
	run.ended_at = lr_now_iso();
	if ((rc = lr_store_run_finish(st, &run, 0)))
		goto fail;
	lr_spool_unlock(lr_store_dir(st), run.uuid, lock);
	lock = -1;
	printf("recorded run %lld (%s)\n", (long long)run.id, lr_status_name(run.status));
	if (import_rc || verify_rc) {
		lr_error_set(LR_EIO, "%s", note);
		lr_error_hint("'labrun show %lld' has the details", (long long)run.id);
		exit_code = cmd_fail(LR_EIO);
	}
	goto out;
fail:
	exit_code = cmd_fail(rc);
out:
	if (lock >= 0 && !run.id)
		lr_spool_unlock(lr_store_dir(st), run.uuid, lock);
	else if (lock >= 0)
		close(lock); /* the row stays 'running': the next labrun marks it abandoned */
	if (b)
		ops->close(b);
	if (have_src)
		lr_kvsrc_release(&src);
	lr_strlist_release(&o.issues);
	lr_run_release(&run);
	lr_store_free(st);
	return exit_code;
}
