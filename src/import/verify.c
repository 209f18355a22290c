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
		return lr_error_set(LR_EIO,
				    "cannot verify the readback: kernel '%s' disagrees with the oracle at BF16 %04x",
				    (*vk)->name, bad);
	return 0;
}

/*
 * One reader of the lane: its buffers, a chunk each (a leaf of the tree
 * when whole rows fill one), so the expectation, what was read, the
 * comparison and the hash stay in the cache: the check reads the source and
 * the device once each.
 */
struct reader {
	uint16_t *buf, *want, *got; /* want and got in buf */
	uint64_t cap;               /* bytes of buf */
};

static void reader_release(struct reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

/* Room for 'want' bytes of expectation and 'got' bytes read back; LR_ENOMEM. */
static int reader_fit(struct reader *r, uint64_t want, uint64_t got)
{
	if (want + got > r->cap) {
		reader_release(r);
		if (!(r->buf = malloc((size_t)(want + got))))
			return lr_error_set(LR_ENOMEM, "out of memory for readback");
		r->cap = want + got;
	}
	r->want = r->buf;
	r->got = r->buf + want / 2;
	return 0;
}

/* Where a reader's bytes are hashed: nowhere, in order, or leaf by leaf from 'first_leaf'. */
struct sink {
	struct lr_treehash *tree; /* NULL: no digest */
	int put;                  /* lr_tree_put at first_leaf (else lr_tree_update, in order) */
	uint64_t first_leaf;
};

/* Flat rows [f0, f1) of tensor (l, kv) as the device must hold them: token rows encoded, the rest zero. */
static void expect_rows(const struct lr_import_opts *o, const struct lr_dlf16_kernel *vk, const struct lr_kvtensor *t,
			int l, int kv, int64_t f0, int64_t f1, uint16_t *w)
{
	const struct lr_kvgeom *g = o->g;
	const struct lr_view *src = o->src;
	const int64_t H = g->kv_heads, D = g->head_dim, Dp = lr_kvgeom_padded_dim(g);

	for (int64_t f = f0; f < f1; f++, w += Dp) {
		int64_t row = f % t->rows, h = (f / t->rows) % H, blk = f / (t->rows * H);
		int64_t tok = t->first_token + blk * t->rows + row, d;
		const uint16_t *s = (const uint16_t *)src->data + l * src->stride[0] + kv * src->stride[1] +
				    h * src->stride[2] + tok * src->stride[3];

		if (tok >= t->first_token + t->ntokens) { /* an unused row */
			memset(w, 0, (size_t)Dp * 2);
			continue;
		}
		if (src->stride[4] == 1)
			vk->encode(w, s, (size_t)D, o->contract, 0);
		else
			for (d = 0; d < D; d++)
				w[d] = lr_dlf16_oracle(s[d * src->stride[4]], o->contract);
		if (Dp > D) /* padding */
			memset(w + D, 0, (size_t)(Dp - D) * 2);
	}
}

/* LR_EIO naming element i of tensor (l, kv), where the device and the expectation differ. */
static int mismatch(const struct lr_import_opts *o, const struct lr_kvtensor *t, int l, int kv, int64_t i, uint16_t got,
		    uint16_t want)
{
	const int64_t H = o->g->kv_heads, Dp = lr_kvgeom_padded_dim(o->g);
	int64_t dd = i % Dp, row = (i / Dp) % t->rows, hh = (i / (Dp * t->rows)) % H, blk = i / (Dp * t->rows * H);

	return lr_error_set(
		LR_EIO, "readback mismatch at layer %d %s head %lld token %lld dim %lld: device %04x, expected %04x", l,
		kv ? "V" : "K", (long long)hh, (long long)(t->first_token + blk * t->rows + row), (long long)dd, got,
		want);
}

/*
 * The tiled check, for a token-major export (a token's heads side by side):
 * in layout order a leaf is 4,096 rows of one head, 2 KiB and more apart in
 * the source, a page or two each, and every row waited for its miss (the
 * expectation took as long as the digest of qwen3-4b). A tile is every
 * head's leaf over the same tokens: its expectation is computed reading the
 * source in order, then each leaf is read back, compared and put in its
 * place in the tree. Needs whole leaves per head and block, and a tree
 * filled out of order (or none). The first differing element in layout
 * order is the one named, as the chunked check would.
 */
static int tiled(const struct lr_import_opts *o, const struct lr_kvtensor *t, uint64_t rowb, const struct sink *out)
{
	const struct lr_view *src = o->src;

	return src->stride[4] == 1 && src->stride[3] > src->stride[2] && LR_TREE_LEAF % rowb == 0 &&
	       ((uint64_t)t->rows * rowb) % LR_TREE_LEAF == 0 && (!out->tree || out->put);
}

/* Rows [r0, r0 + n) of block blk of every head, as the device must hold them, head by head in w. */
static void expect_tile(const struct lr_import_opts *o, const struct lr_dlf16_kernel *vk, const struct lr_kvtensor *t,
			int l, int kv, int64_t blk, int64_t r0, int64_t n, uint16_t *w)
{
	const struct lr_view *src = o->src;
	const int64_t H = o->g->kv_heads, D = o->g->head_dim, Dp = lr_kvgeom_padded_dim(o->g);

	for (int64_t r = 0; r < n; r++) {
		int64_t tok = t->first_token + blk * t->rows + r0 + r;
		const uint16_t *s =
			(const uint16_t *)src->data + l * src->stride[0] + kv * src->stride[1] + tok * src->stride[3];

		for (int64_t h = 0; h < H; h++) {
			uint16_t *row = w + (h * n + r) * Dp;

			if (tok >= t->first_token + t->ntokens) { /* an unused row */
				memset(row, 0, (size_t)Dp * 2);
				continue;
			}
			vk->encode(row, s + h * src->stride[2], (size_t)D, o->contract, 0);
			if (Dp > D) /* padding */
				memset(row + D, 0, (size_t)(Dp - D) * 2);
		}
	}
}

static int check_tiles(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o,
		       const struct lr_dlf16_kernel *vk, struct reader *r, int l, int kv, const struct sink *out,
		       const struct lr_kvtensor *t)
{
	const int64_t H = o->g->kv_heads, Dp = lr_kvgeom_padded_dim(o->g), rowb = Dp * 2;
	const int64_t n = (int64_t)LR_TREE_LEAF / rowb, per = n * Dp; /* rows and elements of a leaf */
	int64_t bad = -1, i;
	uint16_t bad_got = 0, bad_want = 0;
	int rc = 0;

	if ((rc = reader_fit(r, (uint64_t)H * LR_TREE_LEAF, LR_TREE_LEAF)))
		return rc;
	for (int64_t blk = 0; blk < t->used_blocks && !rc; blk++)
		for (int64_t r0 = 0; r0 < t->rows && !rc; r0 += n) {
			expect_tile(o, vk, t, l, kv, blk, r0, n, r->want);
			for (int64_t h = 0; h < H && !rc; h++) {
				int64_t f0 = (blk * H + h) * t->rows + r0; /* the leaf's first flat row */
				const uint16_t *want = r->want + h * per;

				if ((rc = ops->read(b, o->lane, 2 * l + kv, (uint64_t)(f0 * rowb), r->got,
						    LR_TREE_LEAF)))
					return rc;
				if (memcmp(want, r->got, LR_TREE_LEAF)) {
					for (i = 0; want[i] == r->got[i]; i++)
						;
					if (bad < 0 || f0 * Dp + i < bad)
						bad = f0 * Dp + i, bad_got = r->got[i], bad_want = want[i];
					continue;
				}
				if (out->tree)
					rc = lr_tree_put(out->tree,
							 out->first_leaf + (uint64_t)(f0 * rowb) / LR_TREE_LEAF, r->got,
							 LR_TREE_LEAF);
			}
		}
	return rc || bad < 0 ? rc : mismatch(o, t, l, kv, bad, bad_got, bad_want);
}

/*
 * Tensor (l, kv) read back chunk by chunk, each compared with its
 * expectation and hashed into 'out'; LR_EIO naming the first differing
 * element.
 */
static int check_tensor(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o,
			const struct lr_dlf16_kernel *vk, struct reader *r, int l, int kv, const struct sink *out)
{
	const uint64_t rowb = (uint64_t)lr_kvgeom_padded_dim(o->g) * 2;
	struct lr_kvtensor t;
	int64_t nrows, chunk, f0, f1, i;
	uint64_t len;
	int rc = 0;

	lr_kvgeom_tensor(o->g, l, &t);
	if (tiled(o, &t, rowb, out))
		return check_tiles(ops, b, o, vk, r, l, kv, out, &t);
	nrows = (int64_t)(t.span_bytes / rowb);
	chunk = LR_TREE_LEAF % rowb == 0 ? (int64_t)(LR_TREE_LEAF / rowb) : nrows; /* whole leaves, else all */
	if (chunk > nrows)
		chunk = nrows;
	if ((rc = reader_fit(r, (uint64_t)chunk * rowb, (uint64_t)chunk * rowb)))
		return rc;
	for (f0 = 0; f0 < nrows && !rc; f0 = f1) {
		f1 = f0 + chunk < nrows ? f0 + chunk : nrows;
		len = (uint64_t)(f1 - f0) * rowb;
		expect_rows(o, vk, &t, l, kv, f0, f1, r->want);
		if ((rc = ops->read(b, o->lane, 2 * l + kv, (uint64_t)f0 * rowb, r->got, len)))
			return rc;
		if (memcmp(r->want, r->got, (size_t)len)) {
			for (i = 0; r->want[i] == r->got[i]; i++)
				;
			return mismatch(o, &t, l, kv, f0 * (int64_t)(rowb / 2) + i, r->got[i], r->want[i]);
		}
		if (out->tree && out->put)
			rc = lr_tree_put(out->tree, out->first_leaf + (uint64_t)f0 * rowb / LR_TREE_LEAF, r->got,
					 (size_t)len);
		else if (out->tree)
			rc = lr_tree_update(out->tree, r->got, (size_t)len);
	}
	return rc;
}

/*
 * The lane's tensors checked on every CPU, when each tensor's span is a
 * whole number of tree leaves: a worker takes the next tensor, checks it
 * and hashes its leaves into their places in the tree. The first failure
 * in tensor order is the one reported, as the sequential check would.
 */
struct shared {
	const struct lr_backend_ops *ops;
	struct lr_backend *b;
	const struct lr_import_opts *o;
	const struct lr_dlf16_kernel *vk;
	struct lr_treehash *tree;   /* NULL: no digest */
	const uint64_t *first_leaf; /* of each tensor */
	int ntensors;
	int next; /* the next tensor to take (atomic) */
};

struct worker {
	struct shared *sh;
	int failed_at, rc; /* the first tensor this worker found wrong (ntensors: none) */
	char msg[512];
};

static void *check_worker(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct reader r = { 0 };
	int t;

	w->failed_at = sh->ntensors;
	while ((t = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->ntensors) {
		struct sink out = { sh->tree, 1, sh->first_leaf[t] };
		int rc = check_tensor(sh->ops, sh->b, sh->o, sh->vk, &r, t / 2, t % 2, &out);

		if (rc) {
			w->failed_at = t;
			w->rc = rc;
			snprintf(w->msg, sizeof w->msg, "%s", lr_error_msg());
			break; /* a later tensor's failure cannot come first */
		}
	}
	reader_release(&r);
	return NULL;
}

static int verify_parallel(struct shared *sh, int threads)
{
	struct worker w[LR_PARALLEL_MAX];
	int best = 0;

	for (int i = 0; i < threads; i++)
		w[i] = (struct worker){ sh, 0, 0, "" };
	lr_parallel(w, sizeof w[0], threads, check_worker);
	for (int i = 1; i < threads; i++)
		if (w[i].failed_at < w[best].failed_at)
			best = i;
	if (w[best].rc)
		return lr_error_set(w[best].rc, "%s", w[best].msg);
	return 0;
}

int lr_import_verify(const struct lr_backend_ops *ops, struct lr_backend *b, const struct lr_import_opts *o,
		     char hex[65])
{
	const struct lr_kvgeom *g = o->g;
	const struct lr_dlf16_kernel *vk;
	struct lr_treehash tree;
	struct reader r = { 0 };
	uint64_t *first_leaf = NULL, leaves = 0;
	int threads = lr_parallel_cpus(), whole = 1, l, kv, rc;

	if ((rc = expectation_kernel(o, &vk)))
		return rc;
	lr_tree_init(&tree, threads);
	if (!(first_leaf = malloc(sizeof *first_leaf * (size_t)(2 * g->layers + 1))))
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (l = 0; l < g->layers; l++) { /* where each tensor's leaves go, when they are whole */
		struct lr_kvtensor t;

		lr_kvgeom_tensor(g, l, &t);
		whole &= t.span_bytes % LR_TREE_LEAF == 0;
		first_leaf[2 * l] = leaves;
		first_leaf[2 * l + 1] = leaves + t.span_bytes / LR_TREE_LEAF;
		leaves += 2 * (t.span_bytes / LR_TREE_LEAF);
	}
	if (threads > 1 && whole && g->layers > 0) {
		struct shared sh = { ops, b, o, vk, hex ? &tree : NULL, first_leaf, 2 * g->layers, 0 };

		if (!(rc = hex ? lr_tree_reserve(&tree, (size_t)leaves) : 0))
			rc = verify_parallel(&sh, threads < sh.ntensors ? threads : sh.ntensors);
	} else { /* one reader, feeding the tree in order */
		struct sink out = { hex ? &tree : NULL, 0, 0 };

		for (l = 0; l < g->layers && !rc; l++)
			for (kv = 0; kv < 2 && !rc; kv++)
				rc = check_tensor(ops, b, o, vk, &r, l, kv, &out);
		reader_release(&r);
	}
	free(first_leaf);
	if (rc || !hex) {
		lr_tree_release(&tree);
		return rc;
	}
	return lr_tree_final(&tree, hex);
}

int lr_import_state_hash(const struct lr_backend_ops *ops, struct lr_backend *b, int lane, const struct lr_kvgeom *g,
			 int tree, char hex[65])
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
