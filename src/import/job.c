#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/stats.h"
#include "base/bigmem.h"
#include "encode/ktable.h"
#include "encode/layout.h"
#include "import/job.h"
#include "record/record.h"
#include "record/session.h"

/*
 * The copy ceiling of the export's bytes: the fastest of memcpy and the
 * non-temporal copy in both read orders (encode/layout.h), each the median
 * of 3 after a warm-up, alternated. glibc's memcpy reads four pages at once
 * past its non-temporal threshold, which on some CPUs is the slower order
 * (0.55-0.75x one stream on a Zen 4 VM): a ceiling of memcpy alone would
 * flatter the import there, as the encoder's ceiling would flatter a kernel.
 */
static double copy_ceiling(const struct lr_kvsrc *s, uint64_t bytes)
{
	double t[3][4], t0, best = 0;
	void *dst = lr_big_alloc(bytes);
	const void *src = s->owned ? (const void *)s->owned : s->map.addr;
	int i, c;

	if (!dst || !src) {
		lr_big_free(dst, bytes);
		return 0;
	}
	lr_big_populate(dst, bytes); /* resident before timing, like the device's memory */
	for (i = 0; i < 4; i++)
		for (c = 0; c < 3; c++) {
			int copy = i % 2 ? 2 - c : c; /* forward, then reversed */

			t0 = lr_monotonic_s();
			if (copy == 0)
				memcpy(dst, src, bytes);
			else
				lr_memcpy_stream(dst, src, bytes, copy == 2 ? LR_DLF16_PAGES : 0);
			__asm__ volatile("" : : "r"(dst) : "memory"); /* the copy must happen */
			t[copy][i] = lr_monotonic_s() - t0;
		}
	lr_big_free(dst, bytes);
	for (c = 0; c < 3; c++) {
		double m = lr_median(t[c] + 1, 3);

		if (!best || m < best)
			best = m;
	}
	return best;
}

/* Geometry of the model: a preset, or custom from the options. */
static int model_geometry(struct lr_kvgeom *g, const char *name, const struct lr_import_job_opts *o)
{
	if (strcmp(name, "custom"))
		return lr_kvgeom_preset(g, name);
	if (!o->layers || !o->kv_heads || !o->head_dim)
		return lr_error_set(LR_EINVAL, "--model custom needs --layers, --kv-heads and --head-dim");
	memset(g, 0, sizeof *g);
	snprintf(g->model, sizeof g->model, "custom");
	g->layers = o->layers;
	g->kv_heads = o->kv_heads;
	g->head_dim = o->head_dim;
	if (g->layers > LR_KV_MAXLAYERS)
		return lr_error_set(LR_EINVAL, "--layers %d: at most %d", g->layers, LR_KV_MAXLAYERS);
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

int lr_import_job_prepare(struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	struct lr_kvgeom compiled;
	double t0;
	int rc;

	memset(j, 0, sizeof *j);
	lr_run_init(&j->run);
	if ((rc = lr_dlf16_kernel_find(&j->k, o->kernel)) || (rc = lr_backend_find(&j->ops, o->backend)) ||
	    (rc = model_geometry(&j->g, o->model, o)) ||
	    (rc = model_geometry(&compiled, o->compiled_model ? o->compiled_model : o->model, o)))
		return rc;

	/* The source, and its geometry checked against the compiled one before any byte is written. */
	t0 = lr_monotonic_s();
	j->g.tokens = o->tokens;
	if (!o->source)
		rc = lr_kvsrc_synthetic(&j->src, &j->g, o->token_major, o->seed, o->specials);
	else if (ends_with(o->source, ".safetensors"))
		rc = lr_kvsrc_safetensors(&j->src, o->source, o->tensor, o->token_major);
	else
		rc = lr_kvsrc_npy(&j->src, o->source, o->token_major);
	j->source_s = lr_monotonic_s() - t0;
	if (rc)
		return rc;
	j->have_src = 1;
	lr_kvsrc_geometry(&j->src, &j->g);
	compiled.capacity = o->capacity ? o->capacity : j->g.tokens;
	compiled.block_size = o->block_size ? o->block_size : compiled.capacity;
	if ((rc = lr_kvgeom_check(&compiled, &j->g)))
		return rc;
	j->g.capacity = compiled.capacity;
	j->g.block_size = compiled.block_size;
	j->bytes = lr_kvgeom_export_bytes(&j->g);
	return strcmp(o->kernel, "auto") ? 0
					 : lr_dlf16_kernel_for(&j->k, "auto", (uint64_t)j->bytes); /* for this size */
}

static int set_number(struct lr_kvlist *l, const char *key, long long v, const char *tag)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", v);
	return lr_kvlist_set(l, key, buf, tag);
}

/* What the run records about itself before it starts: geometry and binding. */
static int describe(struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	const struct lr_kvgeom *g = &j->g;
	struct lr_run *run = &j->run;
	int rc;

	if ((rc = lr_kvlist_set(&run->geometry, "model", g->model, NULL)) ||
	    (rc = set_number(&run->geometry, "layers", g->layers, "auto")) ||
	    (rc = set_number(&run->geometry, "kv_heads", g->kv_heads, "auto")) ||
	    (rc = set_number(&run->geometry, "head_dim", g->head_dim, "auto")) ||
	    (rc = set_number(&run->geometry, "tokens", g->tokens, "auto")) ||
	    (rc = set_number(&run->geometry, "capacity", g->capacity, "auto")) ||
	    (rc = set_number(&run->geometry, "block_size", g->block_size, "auto")) ||
	    (g->window && (rc = set_number(&run->geometry, "window", g->window, "auto"))) ||
	    (rc = lr_kvlist_set(&run->geometry, "export", o->token_major ? "token-major" : "head-major", NULL)) ||
	    (rc = lr_kvlist_set(&run->binding, "backend", j->ops->name, "user")) ||
	    (rc = set_number(&run->binding, "lane", o->lane, "auto")) ||
	    (rc = set_number(&run->binding, "lanes", o->cfg.lanes, "auto")) ||
	    (rc = set_number(&run->binding, "encoder_threads", o->threads, "auto")) ||
	    (rc = lr_kvlist_set(&run->binding, "mode", lr_import_mode_name(o->mode), "user")) ||
	    (rc = lr_kvlist_set(&run->binding, "layout", lr_import_path_name(o->path), "user")) ||
	    (rc = lr_kvlist_set(&run->binding, "kernel", j->k->name, "user")) ||
	    (rc = lr_kvlist_set(&run->binding, "contract", lr_dlf16_contract_name(o->contract), "user")))
		return rc;
	if (j->ops == &lr_backend_atom_ops)
		return set_number(&run->binding, "device", o->cfg.device_id, "auto");
	return 0;
}

/* A repeated import's: how many, the first cycle (first touch) and the steady medians. */
static int measure_steady(struct lr_import_job *j)
{
	struct lr_run *run = &j->run;
	int rc;

	if ((rc = lr_run_add_measure(run, "imports", j->imports, "count", 0)) ||
	    (j->imports && (rc = lr_run_add_measure(run, "cycle_s", j->cycle_s, "s", 0))) || j->steady_cycle_s <= 0)
		return rc;
	if ((rc = lr_run_add_measure(run, "steady_cycle_s", j->steady_cycle_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "steady_lease_s", j->steady_lease_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "steady_import_s", j->steady_import_s, "s", 0)))
		return rc;
	return lr_run_add_measure(run, "steady_readback_s", j->steady_readback_s, "s", 0);
}

/* The stage timings as the run's measurements; the link model's time flagged as modelled. */
static int measure(struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	const struct lr_import_result *r = &j->r;
	struct lr_run *run = &j->run;
	int rc;

	if ((rc = lr_run_add_measure(run, "source_s", j->source_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "lease_s", r->lease_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "encode_s", r->encode_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "write_s", r->write_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "import_s", r->total_s, "s", 0)) ||
	    (rc = lr_run_add_measure(run, "writes", (double)r->writes, "count", 0)) ||
	    (rc = lr_run_add_measure(run, "bytes", (double)r->bytes, "bytes", 0)) ||
	    (j->imported && (rc = lr_run_add_measure(run, "readback_s", j->readback_s, "s", 0))) ||
	    (j->ceiling_s > 0 && (rc = lr_run_add_measure(run, "copy_ceiling_s", j->ceiling_s, "s", 0))) ||
	    (j->state_sha256[0] && (rc = lr_kvlist_set(&run->digests, "device_state_tree", j->state_sha256, NULL))))
		return rc;
	if (o->cfg.link_gbps > 0 && (rc = lr_run_add_measure(run, "dma_modelled_s", j->stats.modelled_dma_s, "s", 1)))
		return rc;
	return o->repeat > 1 ? measure_steady(j) : 0;
}

/* What each import of a repeated one took, for the steady medians. */
struct cycles {
	double cycle[LR_IMPORT_MAXREPEAT], lease[LR_IMPORT_MAXREPEAT], total[LR_IMPORT_MAXREPEAT],
		readback[LR_IMPORT_MAXREPEAT];
};

/*
 * Import i of the repeated import: the import, its readback check and the
 * digest from the same reads, which must be the first import's. The first
 * import's figures are the job's own; later ones go to c only.
 */
static int cycle(struct lr_import_job *j, const struct lr_import_opts *io, struct lr_backend *b, int i,
		 struct cycles *c, struct lr_progress *progress)
{
	struct lr_import_result again, *r = i ? &again : &j->r;
	char hex[LR_SHA256_HEX];
	double t0 = lr_monotonic_s(), t1;
	int rc;

	if ((rc = lr_import(j->ops, b, io, r)))
		return rc;
	j->imported = 1;
	lr_progress_update(progress, 2 * i + 1);
	t1 = lr_monotonic_s();
	rc = lr_import_verify(j->ops, b, io, hex); /* and the digest from the same reads */
	c->readback[i] = lr_monotonic_s() - t1;
	c->cycle[i] = lr_monotonic_s() - t0;
	c->lease[i] = r->lease_s;
	c->total[i] = r->total_s;
	if (rc)
		return rc;
	if (!i)
		memcpy(j->state_sha256, hex, sizeof hex);
	else if (strcmp(hex, j->state_sha256))
		return lr_error_set(LR_EIO, "import %d of the same export left device state %s, the first left %s",
				    i + 1, hex, j->state_sha256);
	j->imports = i + 1;
	return 0;
}

/* The first import's cycle, and the medians over the imports after the device's memory was allocated. */
static void steady(struct lr_import_job *j, struct cycles *c)
{
	size_t n = j->imports > LR_IMPORT_WARM ? (size_t)(j->imports - LR_IMPORT_WARM) : 0;

	j->readback_s = c->readback[0];
	j->cycle_s = c->cycle[0];
	if (!n)
		return;
	j->steady_cycle_s = lr_median(c->cycle + LR_IMPORT_WARM, n);
	j->steady_lease_s = lr_median(c->lease + LR_IMPORT_WARM, n);
	j->steady_import_s = lr_median(c->total + LR_IMPORT_WARM, n);
	j->steady_readback_s = lr_median(c->readback + LR_IMPORT_WARM, n);
}

static void import_and_verify(struct lr_import_job *j, const struct lr_import_job_opts *o, struct lr_backend *b)
{
	struct lr_import_staging keep = { NULL }; /* kept from one import to the next, as a serving process does */
	struct lr_import_opts io = {
		.g = &j->g,
		.src = &j->src.view,
		.mode = o->mode,
		.path = o->path,
		.k = j->k,
		.contract = o->contract,
		.threads = o->threads,
		.lane = o->lane,
		.staging = o->staging,
		.cancel_at = o->cancel_at,
		.die_at = o->die_at,
		.cancel = o->cancel,
		.keep = &keep,
	};
	int n = o->repeat > 1 ? o->repeat : 1, i, rc = 0;
	/* the steps: each import, its readback and digest, the copy ceiling (the pipeline's threads report nothing) */
	struct lr_progress *progress = lr_progress_start("imported, read back and measured", "steps", 2 * n + 1);
	struct cycles *c = calloc(1, sizeof *c);
	struct lr_run *run = &j->run;

	if (!c)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; !rc && i < n; i++, lr_progress_update(progress, 2 * i))
		rc = cycle(j, &io, b, i, c, progress);
	j->verified = !rc;
	if (c)
		steady(j, c);
	free(c);
	lr_import_staging_release(&keep);
	j->ops->stats(b, &j->stats);
	if (j->verified) {
		run->status = LR_PASSED;
		j->ceiling_s = copy_ceiling(&j->src, j->bytes);
		lr_progress_update(progress, 2 * n + 1);
	}
	lr_progress_stop(&progress);
	if (!j->verified) {
		/* a cancel asked for (Ctrl-C, or the fault) that stopped the import; anything else failed */
		int cancelled = !j->imported && j->r.cancelled && j->r.died_at < 0 &&
				(o->cancel_at >= 0 || (o->cancel && *o->cancel));

		j->state_sha256[0] = '\0';
		run->status = cancelled ? LR_CANCELLED : LR_FAILED;
		run->failure = strdup(lr_error_msg());
	}
}

int lr_import_job_execute(struct lr_import_job *j, const struct lr_import_job_opts *o, struct lr_store *st,
			  char *const *argv, char *const *envp)
{
	struct lr_session ss = { 0 };
	struct lr_backend *b = NULL;
	int rc;

	if ((rc = lr_run_capture(st, &j->run, LR_KIND_IMPORT, argv, envp, o->experiment, o->note, o->issues)) ||
	    (rc = describe(j, o)))
		goto out;
	/* The backend, before the run row: its runtime version is a tool version of the run. */
	if ((rc = j->ops->open(&b, &o->cfg)))
		goto out;
	j->ops->stats(b, &j->stats);
	if (j->ops == &lr_backend_atom_ops &&
	    (rc = lr_kvlist_set(&j->run.tools, "rbln-runtime", j->stats.runtime_version, NULL)))
		goto out;
	if ((rc = lr_session_start(&ss, st, &j->run)))
		goto out;
	import_and_verify(j, o, b);
	if ((rc = measure(j, o)))
		goto out;
	rc = lr_session_end(&ss, 0);
out:
	lr_session_release(&ss);
	if (b)
		j->ops->close(b);
	return rc;
}

void lr_import_job_release(struct lr_import_job *j)
{
	if (j->have_src)
		lr_kvsrc_release(&j->src);
	j->have_src = 0;
	lr_run_release(&j->run);
}
