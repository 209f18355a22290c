#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sha256.h"
#include "base/parallel.h"
#include "base/treehash.h"
#include "encode/dlf16-oracle.h"
#include "encode/ktable.h"
#include "import/import.h"

/*
 * Checking what the device holds after an import: every tensor read back
 * and compared with an expectation computed apart from the import, and the
 * lane's state hashed from the same reads.
 */

/*
 * The kernel that computes the readback's expectation: a vector one if this
 * CPU has one, never the one that imported, and checked here against the
 * oracle on all 65,536 BF16 patterns. Encoding is elementwise on 16-bit
 * inputs, so a kernel that agrees with the oracle on every pattern gives the
 * oracle's answer for every element: the comparison is the oracle's, at the
 * speed of a vector kernel.
 */
static int expectation_kernel(const struct lr_import_opts *o, const struct lr_dlf16_kernel **vk)
{
	static const char *const order[] = { "avx2", "avx512", "lookup", "scalar" };
	uint16_t bad = 0;
	size_t i;

	for (i = 0; i < sizeof order / sizeof order[0]; i++)
		if ((!o->k || strcmp(o->k->name, order[i])) && !lr_dlf16_kernel_find(vk, order[i]))
			break;
	lr_error_clear(); /* kernels this CPU lacks were only skipped */
	if (i == sizeof order / sizeof order[0])
		return lr_error_set(LR_EIO, "cannot verify the readback: no kernel other than '%s'", o->k->name);
	if (lr_dlf16_verify(*vk, o->contract, &bad))
		return lr_error_set(LR_EIO, "cannot verify the readback: kernel '%s' disagrees with the oracle at BF16 %04x",
				    (*vk)->name, bad);
	return 0;
}

int lr_import_verify(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o, char hex[65])
{
	struct lr_treehash tree;
	const struct lr_kvgeom *g = o->g;
	const struct lr_view *src = o->src;
	const int64_t H = g->kv_heads, D = g->head_dim, Dp = lr_kvgeom_padded_dim(g);
	const struct lr_dlf16_kernel *vk;
	uint16_t *want = NULL, *got = NULL;
	struct lr_kvtensor t, prev = { 0 };
	uint64_t cap = 0;
	int l, kv, rc;

	if ((rc = expectation_kernel(o, &vk)))
		return rc;
	lr_tree_init(&tree, lr_parallel_cpus());
	for (l = 0; l < g->layers && !rc; l++) {
		lr_kvgeom_tensor(g, l, &t);
		/* one pair of buffers for every layer: allocating each anew cost a page fault per 4 KiB */
		if (t.span_bytes > cap) {
			free(want);
			free(got);
			want = malloc((size_t)t.span_bytes);
			got = malloc((size_t)t.span_bytes);
			cap = t.span_bytes;
			prev.span_bytes = 0;
			if (!want || !got) {
				rc = lr_error_set(LR_ENOMEM, "out of memory for readback");
				break;
			}
		}
		/* padding and unused rows are expected zero; a layer laid out like the last keeps them so */
		if (t.span_bytes != prev.span_bytes || t.first_token != prev.first_token || t.ntokens != prev.ntokens ||
		    t.rows != prev.rows)
			memset(want, 0, (size_t)t.span_bytes);
		prev = t;
		for (kv = 0; kv < 2 && !rc; kv++) {
			int64_t h, tok, d, n = (int64_t)(t.span_bytes / 2), i;

			/* expectation, element by element: token tok of head h at row (tok - first) */
			for (h = 0; h < H; h++)
				for (tok = t.first_token; tok < t.first_token + t.ntokens; tok++) {
					int64_t rel = tok - t.first_token, blk = rel / t.rows, row = rel % t.rows;
					const uint16_t *s = (const uint16_t *)src->data + l * src->stride[0] +
							    kv * src->stride[1] + h * src->stride[2] + tok * src->stride[3];
					uint16_t *w = want + ((blk * H + h) * t.rows + row) * Dp;

					if (src->stride[4] == 1)
						vk->encode(w, s, (size_t)D, o->contract, 0);
					else
						for (d = 0; d < D; d++)
							w[d] = lr_dlf16_oracle(s[d * src->stride[4]], o->contract);
				}
			if ((rc = ops->read(b, o->lane, 2 * l + kv, 0, got, t.span_bytes)) ||
			    (hex && (rc = lr_tree_update(&tree, got, (size_t)t.span_bytes))))
				break;
			if (!memcmp(want, got, (size_t)n * 2))
				continue;
			for (i = 0; i < n && want[i] == got[i]; i++)
				;
			if (i < n) {
				int64_t dd = i % Dp, row = (i / Dp) % t.rows, hh = (i / (Dp * t.rows)) % H;
				int64_t blk = i / (Dp * t.rows * H);

				rc = lr_error_set(LR_EIO,
						  "readback mismatch at layer %d %s head %lld token %lld dim %lld: device %04x, expected %04x",
						  l, kv ? "V" : "K", (long long)hh,
						  (long long)(t.first_token + blk * t.rows + row), (long long)dd, got[i], want[i]);
			}
		}
	}
	free(want);
	free(got);
	if (rc || !hex) {
		lr_tree_release(&tree);
		return rc;
	}
	return lr_tree_final(&tree, hex);
}

int lr_import_state_hash(const struct lr_backend_ops *ops, struct lr_backend *b, int lane,
			 const struct lr_kvgeom *g, int tree, char hex[65])
{
	struct lr_treehash th;
	struct lr_sha256 h = { NULL };
	struct lr_kvtensor t;
	void *buf = NULL;
	uint64_t cap = 0;
	int l, kv, rc = 0;

	if (tree)
		lr_tree_init(&th, lr_parallel_cpus());
	else if ((rc = lr_sha256_init(&h)))
		return rc;
	for (l = 0; l < g->layers && !rc; l++) {
		lr_kvgeom_tensor(g, l, &t);
		if (t.span_bytes > cap) { /* one buffer for every layer, as in lr_import_verify */
			free(buf);
			cap = t.span_bytes;
			if (!(buf = malloc((size_t)cap))) {
				rc = lr_error_set(LR_ENOMEM, "out of memory");
				break;
			}
		}
		for (kv = 0; kv < 2 && !rc; kv++) {
			if ((rc = ops->read(b, lane, 2 * l + kv, 0, buf, t.span_bytes)))
				break;
			if (tree)
				rc = lr_tree_update(&th, buf, (size_t)t.span_bytes);
			else
				lr_sha256_update(&h, buf, (size_t)t.span_bytes);
		}
	}
	free(buf);
	if (!tree) {
		if (rc)
			lr_sha256_release(&h);
		else
			lr_sha256_final(&h, hex);
		return rc;
	}
	if (rc) {
		lr_tree_release(&th);
		return rc;
	}
	return lr_tree_final(&th, hex);
}
