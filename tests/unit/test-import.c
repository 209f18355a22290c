#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "import/backend.h"
#include "encode/ktable.h"
#include "import/import.h"
#include "import/kvgeom.h"
#include "import/kvsrc.h"
#include "testutil.h"

/* A small export of a preset: few tokens, blocks smaller than the export so
 * whole blocks and a partial one both occur; gemma3-1b gets more tokens than
 * its 512-token window so local layers crop. */
static void small_geometry(struct lr_kvgeom *g, const char *model)
{
	assert_int_equal(lr_kvgeom_preset(g, model), 0);
	g->tokens = g->window ? 600 : 40;
	g->capacity = g->window ? 640 : 48;
	g->block_size = 16;
}

static void opts_for(struct lr_import_opts *o, const struct lr_kvgeom *g, const struct lr_kvsrc *s,
		     enum lr_import_mode m, enum lr_import_path p, int lane)
{
	memset(o, 0, sizeof *o);
	o->g = g;
	o->src = &s->view;
	o->mode = m;
	o->path = p;
	o->k = lr_dlf16_auto();
	o->contract = LR_DLF16_SATURATE;
	o->threads = 1;
	o->lane = lane;
	o->staging = 2;
	o->cancel_at = -1;
	o->die_at = -1;
}

static struct lr_backend_config sim_cfg(void)
{
	struct lr_backend_config c;

	memset(&c, 0, sizeof c);
	c.lanes = 4;
	return c;
}

/* Import with every mode and path into fresh backends; all four device states must agree. */
static void all_modes_and_paths(const struct lr_backend_ops *ops, const struct lr_backend_config *cfg,
				const char *model)
{
	static const enum lr_import_mode modes[2] = { LR_IMPORT_WHOLE, LR_IMPORT_STREAM };
	static const enum lr_import_path paths[2] = { LR_PATH_STRIDED, LR_PATH_COPY };
	char first[65] = "", hex[65], fused[65];
	struct lr_import_result r;
	struct lr_import_opts o;
	struct lr_backend *b;
	struct lr_kvgeom g;
	struct lr_kvsrc s;
	int m, p;
	int64_t writes = -1;

	small_geometry(&g, model);
	assert_int_equal(lr_kvsrc_synthetic(&s, &g, 1, 7, 1), 0); /* token-major, with specials */
	for (m = 0; m < 2; m++)
		for (p = 0; p < 2; p++) {
			assert_int_equal(ops->open(&b, cfg), 0);
			opts_for(&o, &g, &s, modes[m], paths[p], 0);
			if (lr_import(ops, b, &o, &r))
				fail_msg("%s %s/%s: %s", model, lr_import_mode_name(modes[m]),
					 lr_import_path_name(paths[p]), lr_error_msg());
			assert_int_equal(lr_import_verify(ops, b, &o, fused),
					 0); /* equals the independent expectation */
			assert_int_equal(lr_import_state_hash(ops, b, 0, &g, 1, hex), 0);
			assert_string_equal(fused,
					    hex); /* the digest of verify's own reads is the digest of the lane */
			if (!first[0])
				memcpy(first, hex, sizeof hex);
			assert_string_equal(hex, first);
			assert_int_equal(r.writes, 2 * g.layers);
			if (writes >= 0)
				assert_int_equal(r.writes, writes);
			writes = r.writes;
			ops->close(b);
		}
	lr_kvsrc_release(&s);
}

static void presets_agree_across_modes_and_paths_on_sim(void **state)
{
	struct lr_backend_config c = sim_cfg();
	int i;

	(void)state;
	for (i = 0; lr_kvgeom_presets[i]; i++)
		all_modes_and_paths(&lr_backend_sim_ops, &c, lr_kvgeom_presets[i]);
}

static void geometry_mismatch_is_refused_naming_field_and_values(void **state)
{
	struct lr_kvgeom compiled, export_;

	(void)state;
	small_geometry(&compiled, "qwen3-4b");
	export_ = compiled;
	export_.layers = 35;
	assert_int_equal(lr_kvgeom_check(&compiled, &export_), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "layers 35"));
	assert_non_null(strstr(lr_error_msg(), "has 36"));
	export_ = compiled;
	export_.head_dim = 64;
	assert_int_equal(lr_kvgeom_check(&compiled, &export_), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "head_dim 64"));
	export_ = compiled;
	export_.tokens = compiled.capacity + 1;
	assert_int_equal(lr_kvgeom_check(&compiled, &export_), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "beyond the capacity"));
}

struct bg {
	const struct lr_backend_ops *ops;
	struct lr_backend *b;
	struct lr_import_opts o;
	int rc;
};

static void *bg_import(void *arg)
{
	struct bg *x = arg;
	struct lr_import_result r;

	x->rc = lr_import(x->ops, x->b, &x->o, &r);
	return NULL;
}

/*
 * A survivor import in lane 0 (committed first, then imported again
 * concurrently with each victim) keeps exact contents while victims in lane 1
 * are cancelled, lose their producer at every layer, or hit a failing write;
 * no slot leaks, nothing partial shows, and a replacement import succeeds.
 */
static void faults(const struct lr_backend_ops *ops, struct lr_backend_config *cfg, long (*outstanding)(void))
{
	struct lr_import_opts vo, so;
	struct lr_import_result r;
	struct lr_backend_stats st0, st;
	struct lr_kvgeom g;
	struct lr_kvsrc survivor, victim;
	struct lr_backend *b;
	char hex0[65], hex[65];
	int mode, l, k, kind, at[5];
	void *probe = malloc(64);

	small_geometry(&g, "qwen3-0.6b");
	assert_int_equal(lr_kvsrc_synthetic(&survivor, &g, 0, 1, 1), 0);
	assert_int_equal(lr_kvsrc_synthetic(&victim, &g, 1, 2, 1), 0);
	assert_int_equal(ops->open(&b, cfg), 0);
	opts_for(&so, &g, &survivor, LR_IMPORT_WHOLE, LR_PATH_STRIDED, 0);
	assert_int_equal(lr_import(ops, b, &so, &r), 0);
	assert_int_equal(lr_import_state_hash(ops, b, 0, &g, 1, hex0), 0);
	ops->stats(b, &st0);

	/* at the edges, where a layer loop's bounds are, and in the middle: every other layer runs the same code */
	at[0] = 0, at[1] = 1, at[2] = g.layers / 2, at[3] = g.layers - 2, at[4] = g.layers - 1;
	for (mode = 0; mode < 2; mode++)
		for (kind = 0; kind < 2; kind++)
			for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
				struct bg x = { ops, b, so, 0 };
				pthread_t th;

				l = at[i];

				/* the survivor re-imports the same data into lane 2 at the same time */
				x.o.lane = 2;
				assert_int_equal(pthread_create(&th, NULL, bg_import, &x), 0);
				opts_for(&vo, &g, &victim, mode ? LR_IMPORT_STREAM : LR_IMPORT_WHOLE, LR_PATH_STRIDED,
					 1);
				if (kind)
					vo.die_at = l;
				else
					vo.cancel_at = l;
				assert_int_not_equal(lr_import(ops, b, &vo, &r), 0);
				assert_true(r.cancelled);
				if (kind)
					assert_int_equal(r.died_at, l);
				pthread_join(th, NULL);
				assert_int_equal(x.rc, 0);
				/* nothing visible in lane 1, survivors exact */
				assert_int_equal(ops->read(b, 1, 0, 0, probe, 2), LR_ENOTFOUND);
				assert_int_equal(lr_import_state_hash(ops, b, 0, &g, 1, hex), 0);
				assert_string_equal(hex, hex0);
				assert_int_equal(lr_import_state_hash(ops, b, 2, &g, 1, hex), 0);
				assert_string_equal(hex, hex0);
			}
	/* lane 2 holds one committed import more than at st0, and nothing else leaked */
	ops->stats(b, &st);
	assert_int_equal(st.slots, st0.slots * 2);
	assert_int_equal(st.bytes, st0.bytes * 2);
	if (outstanding)
		assert_int_equal(outstanding(), st.slots);

	/* a failing write, at every write of the import */
	for (k = 1; k <= 2 * g.layers; k += 5) {
		ops->stats(b, &st);
		cfg->fail_write = st.writes + k;
		opts_for(&vo, &g, &victim, k % 2 ? LR_IMPORT_STREAM : LR_IMPORT_WHOLE, LR_PATH_STRIDED, 1);
		assert_int_not_equal(lr_import(ops, b, &vo, &r), 0);
		assert_non_null(strstr(lr_error_msg(), "failed"));
		cfg->fail_write = 0;
		assert_int_equal(ops->read(b, 1, 0, 0, probe, 2), LR_ENOTFOUND);
		ops->stats(b, &st);
		assert_int_equal(st.slots, st0.slots * 2);
	}
	/* the replacement import after the victims succeeds exactly */
	opts_for(&vo, &g, &victim, LR_IMPORT_STREAM, LR_PATH_COPY, 1);
	assert_int_equal(lr_import(ops, b, &vo, &r), 0);
	assert_int_equal(lr_import_verify(ops, b, &vo, NULL), 0);
	assert_int_equal(lr_import_state_hash(ops, b, 0, &g, 1, hex), 0);
	assert_string_equal(hex, hex0);
	ops->close(b);
	if (outstanding)
		assert_int_equal(outstanding(), 0);
	lr_kvsrc_release(&survivor);
	lr_kvsrc_release(&victim);
	free(probe);
}

static void faults_leave_no_leak_and_no_partial_import_on_sim(void **state)
{
	struct lr_backend_config c = sim_cfg();

	(void)state;
	/* The sim ledger applies fail_write itself; the config is read live. */
	faults(&lr_backend_sim_ops, &c, NULL);
}

static void sim_capacity_is_enforced_without_leaks(void **state)
{
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_import_result r;
	struct lr_backend_stats st;
	struct lr_backend *b;
	struct lr_kvgeom g;
	struct lr_kvsrc s;

	(void)state;
	small_geometry(&g, "qwen3-0.6b");
	c.capacity_bytes = 1000;
	assert_int_equal(lr_kvsrc_synthetic(&s, &g, 0, 1, 0), 0);
	assert_int_equal(lr_backend_sim_ops.open(&b, &c), 0);
	opts_for(&o, &g, &s, LR_IMPORT_WHOLE, LR_PATH_STRIDED, 0);
	assert_int_equal(lr_import(&lr_backend_sim_ops, b, &o, &r), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "the device has"));
	lr_backend_sim_ops.stats(b, &st);
	assert_int_equal(st.slots, 0);
	lr_backend_sim_ops.close(b);
	lr_kvsrc_release(&s);
}

/* ---- the atom backend against the shim ----------------------------------------- */

static const char *shim(void)
{
	const char *p = getenv("RBLN_SHIM");

	if (!p)
		fail_msg("RBLN_SHIM is not set: run through 'make check'");
	return p;
}

static long (*shim_outstanding)(void);

static void atom_agrees_with_sim_through_the_shim(void **state)
{
	struct lr_backend_config c = sim_cfg();

	(void)state;
	c.rbln_lib = shim();
	all_modes_and_paths(&lr_backend_atom_ops, &c, "qwen3-0.6b");
	all_modes_and_paths(&lr_backend_atom_ops, &c, "gemma3-1b");
}

static void atom_faults_through_the_shim(void **state)
{
	struct lr_backend_config c = sim_cfg();
	void *h;

	(void)state;
	c.rbln_lib = shim();
	h = dlopen(c.rbln_lib, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen(c.rbln_lib, RTLD_NOW);
	assert_non_null(h);
	shim_outstanding = (long (*)(void))dlsym(h, "rbln_shim_outstanding");
	assert_non_null(shim_outstanding);
	faults(&lr_backend_atom_ops, &c, shim_outstanding);
	dlclose(h);
}

static void atom_runtime_failures_are_named(void **state)
{
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_import_result r;
	struct lr_backend *b = NULL;
	struct lr_kvgeom g;
	struct lr_kvsrc s;

	(void)state;
	c.rbln_lib = "/nonexistent/librbln.so";
	assert_int_equal(lr_backend_atom_ops.open(&b, &c), LR_EIO);
	assert_null(b);
	assert_non_null(strstr(lr_error_msg(), "cannot load the RBLN runtime '/nonexistent/librbln.so'"));
	assert_non_null(strstr(lr_error_hint_msg(), "--rbln-lib"));

	c.rbln_lib = shim();
	c.device_id = 3; /* the shim has one device */
	assert_int_equal(lr_backend_atom_ops.open(&b, &c), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "cannot use NPU 3"));
	c.device_id = 0;

	/* a runtime call that fails is named with its return code */
	small_geometry(&g, "qwen3-0.6b");
	assert_int_equal(lr_kvsrc_synthetic(&s, &g, 0, 1, 0), 0);
	assert_int_equal(lr_backend_atom_ops.open(&b, &c), 0);
	setenv("RBLN_SHIM_FAIL_MEMCPY", "3", 1);
	{
		void (*reset)(void) =
			(void (*)(void))dlsym(dlopen(c.rbln_lib, RTLD_NOW | RTLD_NOLOAD), "rbln_shim_reset");

		assert_non_null(reset);
		reset();
	}
	opts_for(&o, &g, &s, LR_IMPORT_STREAM, LR_PATH_STRIDED, 0);
	assert_int_equal(lr_import(&lr_backend_atom_ops, b, &o, &r), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "rbln_memcpy (host to device) returned 1 (FAILURE)"));
	unsetenv("RBLN_SHIM_FAIL_MEMCPY");
	lr_backend_atom_ops.close(b);
	lr_kvsrc_release(&s);
}

/* Write a safetensors file: header length, JSON header, then the tensor bytes. */
static void write_safetensors(const char *path, const char *header, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	uint64_t n = strlen(header), hlen = (n + 7) / 8 * 8; /* writers pad with spaces to 8 bytes */
	unsigned char le[8];
	int i;

	assert_non_null(f);
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(hlen >> (8 * i));
	fwrite(le, 1, 8, f);
	fwrite(header, 1, n, f);
	for (; n < hlen; n++)
		fputc(' ', f);
	fwrite(data, 1, len, f);
	fclose(f);
}

static void safetensors_sources_import_like_synthetic_ones(void **state)
{
	char *dir = tmpdir_new(), path[4096], header[512], h1[65], h2[65];
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_import_result r;
	struct lr_kvsrc syn, st;
	struct lr_backend *b;
	struct lr_kvgeom g;
	size_t bytes;

	(void)state;
	small_geometry(&g, "qwen3-0.6b");
	assert_int_equal(lr_kvsrc_synthetic(&syn, &g, 1, 9, 1), 0);
	bytes = (size_t)g.layers * 2 * g.kv_heads * (size_t)g.tokens * g.head_dim * 2;
	snprintf(
		header, sizeof header,
		"{\"__metadata__\": {\"format\": \"pt\"}, \"kv\": {\"dtype\": \"BF16\", \"shape\": [%d, 2, %lld, %d, %d], \"data_offsets\": [0, %zu]}}",
		g.layers, (long long)g.tokens, g.kv_heads, g.head_dim, bytes);
	snprintf(path, sizeof path, "%s/kv.safetensors", dir);
	write_safetensors(path, header, syn.owned, bytes);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, NULL, 1), 0);
	lr_kvsrc_release(&st);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, "nope", 1), LR_EINVAL);
	assert_non_null(strstr(lr_error_msg(), "no tensor named 'nope'"));
	assert_int_equal(lr_kvsrc_safetensors(&st, path, "kv", 1), 0);
	assert_int_equal(st.view.shape[3], g.tokens);
	/* the same data through both sources gives the same device state */
	assert_int_equal(lr_backend_sim_ops.open(&b, &c), 0);
	opts_for(&o, &g, &syn, LR_IMPORT_STREAM, LR_PATH_STRIDED, 0);
	assert_int_equal(lr_import(&lr_backend_sim_ops, b, &o, &r), 0);
	assert_int_equal(lr_import_state_hash(&lr_backend_sim_ops, b, 0, &g, 1, h1), 0);
	opts_for(&o, &g, &st, LR_IMPORT_WHOLE, LR_PATH_COPY, 1);
	assert_int_equal(lr_import(&lr_backend_sim_ops, b, &o, &r), 0);
	assert_int_equal(lr_import_verify(&lr_backend_sim_ops, b, &o, NULL), 0);
	assert_int_equal(lr_import_state_hash(&lr_backend_sim_ops, b, 1, &g, 1, h2), 0);
	assert_string_equal(h1, h2);
	lr_backend_sim_ops.close(b);
	lr_kvsrc_release(&st);

	/* malformed files are refused with the reason */
	write_safetensors(path, "{\"kv\": {\"dtype\": \"F32\", \"shape\": [1, 2, 1, 1, 1], \"data_offsets\": [0, 8]}}",
			  "12345678", 8);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, NULL, 0), LR_EDATA);
	assert_non_null(strstr(lr_error_msg(), "not BF16"));
	write_safetensors(path, "{\"kv\": {\"dtype\": \"BF16\", \"shape\": [1, 2, 1, 1, 2], \"data_offsets\": [0, 6]}}",
			  "123456", 6);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, NULL, 0), LR_EDATA);
	assert_non_null(strstr(lr_error_msg(), "do not match"));
	write_safetensors(path, "{\"a\": {}, \"b\": {}}", "", 0);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, NULL, 0),
			 LR_EINVAL); /* a usage error: name one with --tensor */
	assert_non_null(strstr(lr_error_msg(), "several tensors"));
	write_safetensors(path, "not json", "", 0);
	assert_int_equal(lr_kvsrc_safetensors(&st, path, NULL, 0), LR_EDATA);
	lr_kvsrc_release(&syn);
	tmpdir_remove(dir);
}

static void readback_names_the_first_differing_element(void **state)
{
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_import_result r;
	struct lr_kvsrc a, other;
	struct lr_backend *b;
	struct lr_kvgeom g;

	(void)state;
	small_geometry(&g, "qwen3-0.6b");
	assert_int_equal(lr_kvsrc_synthetic(&a, &g, 0, 1, 0), 0);
	assert_int_equal(lr_kvsrc_synthetic(&other, &g, 0, 1, 0), 0);
	/* one element differs: layer 3, V, head 5, token 17, dim 9 */
	{
		uint16_t *e = (uint16_t *)other.view.data + 3 * other.view.stride[0] + 1 * other.view.stride[1] +
			      5 * other.view.stride[2] + 17 * other.view.stride[3] + 9 * other.view.stride[4];

		*e ^= 0x0100;
	}
	assert_int_equal(lr_backend_sim_ops.open(&b, &c), 0);
	opts_for(&o, &g, &a, LR_IMPORT_WHOLE, LR_PATH_STRIDED, 0);
	assert_int_equal(lr_import(&lr_backend_sim_ops, b, &o, &r), 0);
	o.src = &other.view;
	assert_int_equal(lr_import_verify(&lr_backend_sim_ops, b, &o, NULL), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), "layer 3 V head 5 token 17 dim 9"));
	lr_backend_sim_ops.close(b);
	lr_kvsrc_release(&a);
	lr_kvsrc_release(&other);
}

/* Import o's source into its lane and read it back: the fused digest is the one a plain read of the lane gives. */
static void import_and_agree(struct lr_backend *b, const struct lr_import_opts *o)
{
	struct lr_import_result r;
	char fused[65], alone[65];

	assert_int_equal(lr_import(&lr_backend_sim_ops, b, o, &r), 0);
	assert_int_equal(lr_import_verify(&lr_backend_sim_ops, b, o, fused), 0);
	assert_int_equal(lr_import_state_hash(&lr_backend_sim_ops, b, o->lane, o->g, 1, alone), 0);
	assert_string_equal(fused, alone);
}

/* The readback of the lane against another source fails, naming 'where'. */
static void readback_names(struct lr_backend *b, struct lr_import_opts *o, const struct lr_kvsrc *other,
			   const char *where)
{
	char hex[65];

	o->src = &other->view;
	assert_int_equal(lr_import_verify(&lr_backend_sim_ops, b, o, hex), LR_EIO);
	assert_non_null(strstr(lr_error_msg(), where));
}

/*
 * Tensors of whole 1 MiB leaves are checked on every CPU: the digest is the
 * one a single reader computes, and of two wrong tensors the first in
 * order is the one named, whichever worker found it.
 */
static void readback_on_every_cpu_agrees_with_one_reader(void **state)
{
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_kvsrc a, other;
	struct lr_backend *b;
	struct lr_kvgeom g;

	(void)state;
	assert_int_equal(lr_kvgeom_preset(&g, "qwen3-0.6b"), 0);
	g.layers = 6;
	g.tokens = g.capacity = g.block_size = 512; /* 8 heads x 512 tokens x 128 dims x 2 bytes: 1 MiB a tensor */
	assert_int_equal(lr_kvsrc_synthetic(&a, &g, 0, 3, 1), 0);
	assert_int_equal(lr_kvsrc_synthetic(&other, &g, 0, 3, 1), 0);
	assert_int_equal(lr_backend_sim_ops.open(&b, &c), 0);
	opts_for(&o, &g, &a, LR_IMPORT_STREAM, LR_PATH_STRIDED, 0);
	import_and_agree(b, &o);
	/* wrong in layer 4 K and layer 1 V: layer 1 V comes first */
	((uint16_t *)other.view.data)[4 * other.view.stride[0] + 2 * other.view.stride[2] + 7 * other.view.stride[3]] ^=
		0x0100;
	((uint16_t *)other.view.data)[1 * other.view.stride[0] + 1 * other.view.stride[1] + 3 * other.view.stride[2] +
				      11 * other.view.stride[3] + 5] ^= 0x0100;
	readback_names(b, &o, &other, "layer 1 V head 3 token 11 dim 5");
	lr_backend_sim_ops.close(b);
	lr_kvsrc_release(&a);
	lr_kvsrc_release(&other);
}

/*
 * A token-major export whose heads fill whole leaves is checked a tile at a
 * time (every head over the same tokens, the source read in order): the
 * digest is the one the device's bytes give, and of two wrong elements in a
 * tensor the first in layout order is named, though its tile comes second.
 */
static void readback_of_a_token_major_export_by_tiles(void **state)
{
	struct lr_backend_config c = sim_cfg();
	struct lr_import_opts o;
	struct lr_kvsrc a, other;
	struct lr_backend *b;
	struct lr_kvgeom g;
	uint16_t *e;

	(void)state;
	assert_int_equal(lr_kvgeom_preset(&g, "qwen3-0.6b"), 0);
	g.layers = 2;
	g.tokens = g.capacity = g.block_size = 8192; /* a head's 8,192 rows of 256 bytes: two leaves */
	assert_int_equal(lr_kvsrc_synthetic(&a, &g, 1, 5, 1), 0);
	assert_int_equal(lr_kvsrc_synthetic(&other, &g, 1, 5, 1), 0);
	assert_int_equal(lr_backend_sim_ops.open(&b, &c), 0);
	opts_for(&o, &g, &a, LR_IMPORT_STREAM, LR_PATH_STRIDED, 0);
	import_and_agree(b, &o);
	/* layer 1 K: head 3 token 10 (the first tile) and head 0 token 5000 (the second, first in layout) */
	e = (uint16_t *)other.view.data + 1 * other.view.stride[0];
	e[3 * other.view.stride[2] + 10 * other.view.stride[3] + 2] ^= 0x0100;
	e[5000 * other.view.stride[3] + 7] ^= 0x0100;
	readback_names(b, &o, &other, "layer 1 K head 0 token 5000 dim 7");
	lr_backend_sim_ops.close(b);
	lr_kvsrc_release(&a);
	lr_kvsrc_release(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(presets_agree_across_modes_and_paths_on_sim),
		cmocka_unit_test(readback_on_every_cpu_agrees_with_one_reader),
		cmocka_unit_test(geometry_mismatch_is_refused_naming_field_and_values),
		cmocka_unit_test(faults_leave_no_leak_and_no_partial_import_on_sim),
		cmocka_unit_test(sim_capacity_is_enforced_without_leaks),
		cmocka_unit_test(atom_agrees_with_sim_through_the_shim),
		cmocka_unit_test(atom_faults_through_the_shim),
		cmocka_unit_test(atom_runtime_failures_are_named),
		cmocka_unit_test(safetensors_sources_import_like_synthetic_ones),
		cmocka_unit_test(readback_names_the_first_differing_element),
		cmocka_unit_test(readback_of_a_token_major_export_by_tiles),
	};

	return cmocka_run_group_tests_name("import", tests, NULL, NULL);
}
