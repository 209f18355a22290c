/*
 * What 'labrun import' measured, a line a stage, and what 'labrun encode
 * --check' found, a line a kernel and contract: for a terminal.
 */
#include "config.h"
#include "base/system.h"

#include "encode/dlf16-oracle.h"
#include "encode/dlf16.h"
#include "import/backend.h"
#include "import/job.h"
#include "report/report.h"
#include "report/text.h"

static void stage(FILE *f, const char *name, double s, const char *what)
{
	fprintf(f, "  %-18s %10.3f ms  %s\n", name, s * 1e3, what);
}

/* A repeated import: the first cycle (first touch) beside the steady state. */
static void steady_stages(FILE *f, const struct lr_import_job *j)
{
	const char *sim = j->ops == &lr_backend_sim_ops ? ", simulated device" : "";

	fprintf(f, "  %d imports of the same export in this process, the device keeping its memory%s:\n", j->imports,
		sim);
	stage(f, "first cycle", j->cycle_s, "measured: lease, import, readback and digest, first touch included");
	if (j->steady_cycle_s <= 0)
		return;
	stage(f, "steady cycle", j->steady_cycle_s, "measured: the same, median over the imports after the second");
	stage(f, "steady lease", j->steady_lease_s, "measured (the device's memory already allocated)");
	stage(f, "steady import", j->steady_import_s, "measured (first encode to commit)");
	stage(f, "steady readback", j->steady_readback_s, "measured (check and digest)");
}

static void stages(FILE *f, const struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	const struct lr_import_result *r = &j->r;
	int sim = j->ops == &lr_backend_sim_ops;

	stage(f, "source", j->source_s, "measured (host)");
	stage(f, "lease", r->lease_s,
	      sim ? "measured (host; the simulated device faults its memory in here)"
		  : "measured (host, device allocation)");
	stage(f, "layout+encode", r->encode_s, "measured (host, summed over layers)");
	stage(f, "device writes", r->write_s, "measured (host time inside the write calls)");
	stage(f, "import total", r->total_s, "measured (after the lease: first encode to commit, wall clock)");
	if (j->imported)
		stage(f, "readback", j->readback_s,
		      j->verified ? "measured; device state matches the expectation" : "measured; MISMATCH");
	if (j->ceiling_s > 0) {
		stage(f, "copy ceiling", j->ceiling_s,
		      "measured: the fastest copy of the same bytes (memcpy, non-temporal)");
		fprintf(f, "  import total / copy ceiling = %.2fx\n", r->total_s / j->ceiling_s);
	}
	if (o->repeat > 1)
		steady_stages(f, j);
	if (o->cfg.link_gbps > 0)
		fprintf(f, "  %-18s %10.3f ms  MODELLED, not measured (%.1f GB/s, %.1f us per call)\n",
			"DMA (link model)", j->stats.modelled_dma_s * 1e3, o->cfg.link_gbps, o->cfg.link_latency_us);
}

void lr_render_import(FILE *f, const struct lr_import_job *j, const struct lr_import_job_opts *o)
{
	const struct lr_kvgeom *g = &j->g;
	const struct lr_import_result *r = &j->r;
	char mib[32];

	fprintf(f, "import %s: %d layers x %d KV heads x %lld tokens x %d dims, %s BF16 (%s, %s)\n", g->model,
		g->layers, g->kv_heads, (long long)g->tokens, g->head_dim,
		lr_human_size(mib, sizeof mib, (long long)j->bytes), o->token_major ? "token-major" : "head-major",
		j->src.what);
	fprintf(f, "  backend %s, lane %d, mode %s, layout %s, kernel %s, contract %s, %d encoder thread%s\n",
		j->ops->name, o->lane, lr_import_mode_name(o->mode), lr_import_path_name(o->path), j->k->name,
		lr_dlf16_contract_name(o->contract), o->threads, o->threads == 1 ? "" : "s");
	stages(f, j, o);
	fprintf(f, "  %lld device writes, %s; device state tree hash (sha256, 1 MiB leaves) %s\n", (long long)r->writes,
		lr_human_size(mib, sizeof mib, (long long)r->bytes), j->state_sha256[0] ? j->state_sha256 : "-");
}

void lr_render_kernel_unavailable(FILE *f, const struct lr_dlf16_kernel *k)
{
	fprintf(f, "%-8s  not available: %s\n", k->name, lr_dlf16_unavailable(k));
}

void lr_render_kernel_check(FILE *f, const struct lr_dlf16_kernel *k, int contract, uint32_t bad, uint16_t first)
{
	if (bad)
		fprintf(f, "%-8s  %-8s  FAILED: %u mismatches, first BF16 %04x -> %04x, oracle %04x\n", k->name,
			lr_dlf16_contract_name(contract), bad, first, lr_dlf16_encode1(first, contract),
			lr_dlf16_oracle(first, contract));
	else
		fprintf(f, "%-8s  %-8s  65536/65536 patterns match the oracle (aligned and offset runs)\n", k->name,
			lr_dlf16_contract_name(contract));
}
