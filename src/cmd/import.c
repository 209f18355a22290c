#include "config.h"
#include "base/system.h"

#include <signal.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "record/runjson.h"
#include "import/job.h"

extern char **environ;

static const char usage[] =
	"usage: labrun import --model M --tokens T [--mode whole|stream] [--layout strided|copy]\n"
	"                     [--backend sim|atom] [--kernel K] [--source FILE] [--seed S] [OPTIONS]\n"
	"\n"
	"Import a KV export into a device: lay it out as the device stores it, encode BF16 to\n"
	"DLFloat16, write it to a lease on a lane and commit; then read every tensor back and\n"
	"compare it with an independent expectation. Prints the host time of each stage\n"
	"(modelled link time apart) and records the run in the store.\n";

struct opts {
	struct lr_import_job_opts j;
	struct lr_strlist issues;
	int json, progress;
};

static int parse(struct opts *o, int argc, char **argv)
{
	static const char *const modes[] = { "whole", "stream", NULL }, *const layouts[] = { "strided", "copy", NULL },
				 *const exports[] = { "head", "token", NULL };
	struct lr_import_job_opts *j = &o->j;
	int64_t capacity_mib = 0;
	int mode = j->mode, layout = j->path, contract = j->contract, rc, first;
	const struct cmd_opt opts[] = {
		CMD_HEADING("Geometry:"),
		CMD_STRING(0, "model", &j->model, "M", "qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b, or custom"),
		CMD_INT(0, "layers", &j->layers, 1, LR_KV_MAXLAYERS, "N", "layers, for --model custom"),
		CMD_INT(0, "kv-heads", &j->kv_heads, 1, 1024, "N", "KV heads, for --model custom"),
		CMD_INT(0, "head-dim", &j->head_dim, 1, 65536, "N", "head dimension, for --model custom"),
		CMD_I64(0, "tokens", &j->tokens, 1, 1LL << 31, "T", "tokens in the export (synthetic source)"),
		CMD_I64(0, "capacity", &j->capacity, 1, 1LL << 31, "N",
			"tokens the compiled cache holds (default: --tokens)"),
		CMD_I64(0, "block-size", &j->block_size, 1, 1LL << 31, "N",
			"tokens per device block (default: the capacity, one block)"),
		CMD_STRING(0, "compiled-model", &j->compiled_model, "M",
			   "the model the device was compiled for (default: --model)"),
		CMD_HEADING("Source:"),
		CMD_STRING(0, "source", &j->source, "FILE", "a .npy or .safetensors export (default: synthetic data)"),
		CMD_STRING(0, "tensor", &j->tensor, "NAME", "the tensor of a safetensors file with several"),
		CMD_CHOICE(0, "export", &j->token_major, exports, "head|token",
			   "memory order of the export: [L,2,H,T,D] or [L,2,T,H,D] (default token)"),
		CMD_U64(0, "seed", &j->seed, 0, INT64_MAX, "S", "seed of the synthetic export (default 1)"),
		CMD_BOOL(0, "specials", &j->specials, "inject special values (zeros, subnormals, overflow, Inf, NaN)"),
		CMD_HEADING("Pipeline:"),
		CMD_CHOICE(0, "mode", &mode, modes, "whole|stream",
			   "stage everything then write, or overlap encoding with writes per layer"),
		CMD_CHOICE(0, "layout", &layout, layouts, "strided|copy",
			   "encode straight from the view, or the old copy-transpose-reverse path"),
		CMD_STRING(0, "kernel", &j->kernel, "K", "the encoder kernel, as for 'labrun encode'"),
		CMD_CHOICE(0, "contract", &contract, cmd_contract_choices, "C",
			   "saturate or ninf, as for 'labrun encode'"),
		CMD_INT(0, "threads", &j->threads, 1, 1024, "N", "encoder threads, as for 'labrun encode'"),
		CMD_INT(0, "staging", &j->staging, 2, 64, "N", "stream mode staging buffers (default 2)"),
		CMD_INT(0, "repeat", &j->repeat, 1, LR_IMPORT_MAXREPEAT, "N",
			"import it N times, the device keeping its memory"),
		CMD_HEADING("Backend:"),
		CMD_STRING(0, "backend", &j->backend, "sim|atom",
			   "simulated device (default) or ATOM through the RBLN runtime"),
		CMD_INT(0, "lanes", &j->cfg.lanes, 1, 1024, "N", "lanes of the device (default 4)"),
		CMD_INT(0, "lane", &j->lane, 0, 1023, "L", "the lane to import into (default 0)"),
		CMD_I64(0, "capacity-mib", &capacity_mib, 1, 1LL << 24, "N",
			"simulated device memory (default: unlimited)"),
		CMD_REAL(0, "link-gbps", &j->cfg.link_gbps, "X", "simulated link bandwidth (MODELLED time)"),
		CMD_REAL(0, "link-latency-us", &j->cfg.link_latency_us, "Y", "simulated link latency (MODELLED time)"),
		CMD_STRING(0, "rbln-lib", &j->cfg.rbln_lib, "PATH",
			   "the runtime library (default $LABRUN_RBLN_LIB, else librbln.so)"),
		CMD_INT(0, "device", &j->cfg.device_id, 0, 1023, "N", "physical NPU id (default 0)"),
		CMD_HEADING("Faults (for tests):"),
		CMD_I64(0, "fail-write", &j->cfg.fail_write, 1, 1LL << 40, "K", "the K-th device write fails"),
		CMD_INT(0, "cancel-at", &j->cancel_at, 0, INT_MAX, "LAYER", "cancel the import at this layer"),
		CMD_INT(0, "die-at", &j->die_at, 0, INT_MAX, "LAYER", "the producer thread exits at this layer"),
		CMD_HEADING("Record:"),
		CMD_STRING(0, "experiment", &j->experiment, "NAME", "the experiment the run belongs to"),
		CMD_CALLBACK(0, "issue", &o->issues, cmd_opt_issues, "REF",
			     "an issue the run is evidence for (repeatable)"),
		CMD_STRING(0, "note", &j->note, "TEXT", "a note stored with the run"),
		CMD_HEADING("Output:"),
		CMD_BOOL(0, "json", &o->json,
			 "the recorded run as 'labrun show --json' gives it, instead of the stages"),
		CMD_PROGRESS(&o->progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "import", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	j->mode = (enum lr_import_mode)mode;
	j->path = (enum lr_import_path)layout;
	j->contract = (enum lr_dlf16_contract)contract;
	if (capacity_mib)
		j->cfg.capacity_bytes = (uint64_t)capacity_mib << 20;
	if (!j->model)
		return cmd_usage_error("import", "--model is required (%s, or custom)",
				       "qwen3-0.6b, qwen3-4b, gemma3-1b, koni-8b");
	return !j->source && !j->tokens ? cmd_usage_error("import", "--tokens is required for a synthetic export") : 0;
}

int cmd_import(const struct lr_global *gl, int argc, char **argv)
{
	struct opts o = {
		.j = { .kernel = "auto",
		       .backend = "sim",
		       .token_major = 1,
		       .seed = 1,
		       .threads = 1,
		       .staging = 2,
		       .cfg = { .lanes = 4 },
		       .cancel_at = -1,
		       .die_at = -1,
		       .cancel = &cmd_cancel_requested },
	};
	struct lr_import_job job;
	struct lr_store *st = NULL;
	struct cmd_cancel cancel;
	int rc, exit_code = LR_EXIT_OK;

	memset(&job, 0, sizeof job);
	lr_run_init(&job.run);
	if ((rc = parse(&o, argc, argv))) {
		exit_code = rc;
		goto out;
	}
	o.j.issues = &o.issues;
	if ((rc = lr_import_job_prepare(&job, &o.j))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if ((exit_code = cmd_store(&st, gl)))
		goto out;
	/* Ctrl-C cancels the import: the lease is released, nothing partial shows. */
	cmd_cancel_install(&cancel);
	cmd_progress_begin("labrun import", o.progress, 0);
	rc = lr_import_job_execute(&job, &o.j, st, gl->argv, environ);
	cmd_progress_end();
	cmd_cancel_restore(&cancel);
	if (rc) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (o.json) {
		json_t *run = lr_run_json(&job.run, 1);

		cmd_json_print(run);
	} else {
		lr_render_import(stdout, &job, &o.j);
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
	return exit_code;
}
