/*
 * Synthetic experiment runs for 'labrun bench store': stored through the
 * same calls as a real 'labrun run' (capture, session, plan, conditions,
 * seal, ledger), so report and audit read what they would read, but with
 * times drawn from a seeded generator instead of measured. They go only
 * into the throwaway stores the benchmark makes; each says what it is in
 * its binding ('synthetic').
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sha256.h"
#include "experiment/synthetic.h"
#include "record/record.h"
#include "record/session.h"
#include "store/experiments.h"
#include "store/objects.h"

static const char definition[] =
	"; synthetic: labrun bench store\n"
	"[experiment]\nname = synthetic\ntitle = Store benchmark (synthetic repetitions)\nissues = 270\n"
	"backend = sim\nseed = 1\ntarget = encode\n\n"
	"[design]\norder = abba\nblocks = 6\nwarmup = 0\n\n"
	"[arm lookup]\nkernel = lookup\n\n[arm arithmetic]\nkernel = auto\n\n"
	"[grid]\nmodel = qwen3-0.6b\nlayers = 1\ntokens = 2048, 8192\n";

/* splitmix64: the times of a synthetic run, from its seed */
static double uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* One condition: 'blocks' ABBA blocks, arm 1 about 0.8x arm 0, a little noise. */
static int store_condition(struct lr_store *st, int64_t run, int idx, int64_t blocks, uint64_t *seed)
{
	static const char *const sha[2] = { "5a1f0c0e0b5e7d8a3c4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071829304",
					    "5a1f0c0e0b5e7d8a3c4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071829304" };
	static const int matches[2] = { 1, 1 }, abba[4] = { 0, 1, 1, 0 };
	struct lr_store_condition c = {
		.idx = idx, .model = "qwen3-0.6b", .layers = 1, .kv_heads = 8, .head_dim = 128, .status = "passed"
	};
	struct lr_store_rep *reps = calloc((size_t)blocks * 4, sizeof *reps);
	int64_t b;
	int s, rc;

	if (!reps)
		return lr_error_set(LR_ENOMEM, "out of memory for %lld repetitions", (long long)blocks * 4);
	c.tokens = idx ? 8192 : 2048;
	c.elements = 2 * 8 * c.tokens * 128;
	c.inner = 1;
	for (b = 0; b < blocks; b++)
		for (s = 0; s < 4; s++) {
			struct lr_store_rep *r = &reps[b * 4 + s];
			int a = b % 2 ? 1 - abba[s] : abba[s]; /* ABBA, then BAAB */

			r->block = (int)b;
			r->slot = s;
			r->arm = a;
			r->wall_s = 1e-3 * (a ? 0.8 : 1.0) * (1 + 0.05 * (uniform(seed) - 0.5));
			r->cpu_s = r->wall_s;
		}
	rc = lr_store_condition(st, run, &c, sha, matches, 2, reps, (int)(blocks * 4));
	free(reps);
	return rc;
}

/* An object of 'bytes' pseudo-random bytes (xorshift64 from 'seed'), attached to 'run' as an output. */
static int synthetic_object(struct lr_store *st, struct lr_run *run, int64_t bytes, uint64_t seed)
{
	enum { WORDS = 1 << 17 }; /* 1 MiB a write */
	uint64_t *buf = malloc(WORDS * sizeof *buf), x = seed | 1;
	char hex[LR_SHA256_HEX];
	struct lr_objw *w = NULL;
	int64_t left = bytes, size;
	int rc;

	if (!buf)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_objw_open(&w, lr_store_dir(st), NULL))) {
		free(buf);
		return rc;
	}
	while (left > 0 && !rc) {
		size_t i, n = left < (int64_t)(WORDS * sizeof *buf) ? (size_t)left : WORDS * sizeof *buf;

		for (i = 0; i < WORDS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = x;
		}
		rc = lr_objw_write(w, buf, n);
		left -= (int64_t)n;
	}
	free(buf);
	if (rc) {
		lr_objw_abort(w);
		return rc;
	}
	if ((rc = lr_objw_commit(w, hex, &size)))
		return rc;
	return lr_run_add_artifact(run, "output", "synthetic.bin", hex, size);
}

int lr_synthetic_run(struct lr_store *st, int64_t reps, int64_t object_bytes, uint64_t seed, char *const *argv,
		     char *const *envp, int64_t *id)
{
	static const struct lr_store_arm arms[2] = {
		{ .name = "lookup", .kernel = "lookup", .contract = "saturate", .layout = "", .mode = "", .threads = 1 },
		{ .name = "arithmetic",
		  .kernel = "avx2",
		  .contract = "saturate",
		  .layout = "",
		  .mode = "",
		  .threads = 1 },
	};
	struct lr_store_design design = { .name = "synthetic",
					  .title = "Store benchmark (synthetic repetitions)",
					  .target = "encode",
					  .backend = "sim",
					  .order = "abba",
					  .warmup = 0,
					  .margin = 0.02,
					  .seed = 1 };
	struct lr_session ss = { 0 };
	struct lr_strlist issues = { 0 };
	struct lr_run run;
	char sha[LR_SHA256_HEX];
	int64_t blocks = reps / 8 > 0 ? reps / 8 : 1; /* two conditions of four repetitions a block */
	int rc, ci;

	lr_run_init(&run);
	if ((rc = lr_strlist_add(&issues, "270")) ||
	    (rc = lr_run_capture(st, &run, LR_KIND_EXPERIMENT, argv, envp, "synthetic", NULL, &issues)) ||
	    (rc = lr_kvlist_set(&run.binding, "synthetic", "labrun bench store: times generated, not measured",
				"user")) ||
	    (rc = lr_sha256_buf(definition, sizeof definition - 1, sha)) ||
	    (object_bytes > 0 && (rc = synthetic_object(st, &run, object_bytes, seed))) ||
	    (rc = lr_session_start(&ss, st, &run)))
		goto out;
	design.blocks = (int)blocks; /* the rows have as many as asked for, whatever the text says */
	if ((rc = lr_store_experiment_plan(st, run.id, "synthetic.ini", sha, definition, &design, arms, 2, NULL, 0)))
		goto out;
	for (ci = 0; ci < 2 && !rc; ci++)
		rc = store_condition(st, run.id, ci, blocks, &seed);
	if (rc)
		goto out;
	run.status = LR_PASSED;
	rc = lr_session_end(&ss, run.nartifacts); /* the object was stored with the run's start */
	*id = run.id;
out:
	lr_session_release(&ss);
	lr_strlist_release(&issues);
	lr_run_release(&run);
	return rc;
}
