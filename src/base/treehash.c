/* The SHA-256 tree hash over 1 MiB leaves (treehash.h). */
#include "config.h"
#include "base/system.h"

#include "base/list.h"
#include "base/parallel.h"
#include "base/treehash.h"

void lr_tree_init(struct lr_treehash *t, int threads)
{
	memset(t, 0, sizeof *t);
	t->threads = threads < 1 ? 1 : threads > LR_PARALLEL_MAX ? LR_PARALLEL_MAX : threads;
}

void lr_tree_release(struct lr_treehash *t)
{
	free(t->leaf);
	free(t->part);
	memset(t, 0, sizeof *t);
}

static int reserve(struct lr_treehash *t, size_t more)
{
	return LR_ALLOC_GROW(t->leaf, t->n + more, t->cap);
}

/* Leaves [first, first + n) of one piece, on one thread. */
struct leaves {
	const unsigned char *data;
	unsigned char (*out)[LR_SHA256_LEN];
	size_t first, n;
	int rc;
};

static void *hash_leaves(void *arg)
{
	struct leaves *l = arg;

	for (size_t i = l->first; i < l->first + l->n && !l->rc; i++)
		l->rc = lr_sha256_raw(l->data + i * LR_TREE_LEAF, LR_TREE_LEAF, l->out[i]);
	return NULL;
}

/* 'n' whole leaves at data, appended in order. */
static int add_leaves(struct lr_treehash *t, const unsigned char *data, size_t n)
{
	struct leaves part[LR_PARALLEL_MAX];
	int k = (size_t)t->threads < n ? t->threads : (int)n, rc;

	if (!n)
		return 0;
	if ((rc = reserve(t, n)))
		return rc;
	for (int i = 0; i < k; i++) /* contiguous runs of leaves, as even as they divide */
		part[i] = (struct leaves){ data, t->leaf + t->n, n * (size_t)i / (size_t)k,
					   n * (size_t)(i + 1) / (size_t)k - n * (size_t)i / (size_t)k, 0 };
	if (k == 1)
		hash_leaves(&part[0]);
	else
		lr_parallel(part, sizeof part[0], k, hash_leaves);
	for (int i = 0; i < k; i++)
		if (part[i].rc)
			return part[i].rc;
	t->n += n;
	return 0;
}

int lr_tree_reserve(struct lr_treehash *t, size_t leaves)
{
	int rc = reserve(t, leaves);

	if (!rc)
		t->n = leaves;
	return rc;
}

int lr_tree_put(struct lr_treehash *t, size_t first, const void *data, size_t len)
{
	const unsigned char *p = data;
	int rc = 0;

	if (len % LR_TREE_LEAF || first + len / LR_TREE_LEAF > t->n)
		return lr_error_set(LR_EINVAL, "tree leaves %zu.. of %zu bytes: not whole leaves within the tree",
				    first, len);
	for (size_t i = 0; i < len / LR_TREE_LEAF && !rc; i++)
		rc = lr_sha256_raw(p + i * LR_TREE_LEAF, LR_TREE_LEAF, t->leaf[first + i]);
	return rc;
}

int lr_tree_update(struct lr_treehash *t, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t whole;
	int rc;

	if (t->have) { /* finish the leaf the last piece began */
		size_t take = len < LR_TREE_LEAF - t->have ? len : LR_TREE_LEAF - t->have;

		memcpy(t->part + t->have, p, take);
		t->have += take;
		p += take;
		len -= take;
		if (t->have < LR_TREE_LEAF)
			return 0;
		if ((rc = add_leaves(t, t->part, 1)))
			return rc;
		t->have = 0;
	}
	whole = len / LR_TREE_LEAF;
	if ((rc = add_leaves(t, p, whole)))
		return rc;
	p += whole * LR_TREE_LEAF;
	len -= whole * LR_TREE_LEAF;
	if (len) {
		if (!t->part && !(t->part = malloc(LR_TREE_LEAF)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		memcpy(t->part, p, len);
		t->have = len;
	}
	return 0;
}

int lr_tree_final(struct lr_treehash *t, char hex[LR_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char root[LR_SHA256_LEN], pair[2 * LR_SHA256_LEN];
	size_t n;
	int rc = 0;

	if (t->have || !t->n) { /* the short last leaf; or no bytes at all, one empty leaf */
		if (!(rc = reserve(t, 1)) && !(rc = lr_sha256_raw(t->part ? t->part : pair, t->have, t->leaf[t->n])))
			t->n++;
	}
	for (n = t->n; !rc && n > 1; n = (n + 1) / 2) /* one level: pairs, an odd last one going up as it is */
		for (size_t i = 0; i < n && !rc; i += 2) {
			if (i + 1 == n) {
				memmove(t->leaf[i / 2], t->leaf[i], LR_SHA256_LEN);
				continue;
			}
			memcpy(pair, t->leaf[i], LR_SHA256_LEN);
			memcpy(pair + LR_SHA256_LEN, t->leaf[i + 1], LR_SHA256_LEN);
			rc = lr_sha256_raw(pair, sizeof pair, t->leaf[i / 2]);
		}
	if (!rc) {
		memcpy(root, t->leaf[0], LR_SHA256_LEN);
		for (int i = 0; i < LR_SHA256_LEN; i++) {
			hex[2 * i] = digits[root[i] >> 4];
			hex[2 * i + 1] = digits[root[i] & 15];
		}
		hex[2 * LR_SHA256_LEN] = '\0';
	}
	lr_tree_release(t);
	return rc;
}
