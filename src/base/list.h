#ifndef LR_BASE_LIST_H
#define LR_BASE_LIST_H

/*
 * labrun's containers: a growable list of key/value facts, of strings, and
 * sorted run ids. A list starts zeroed; what it holds is copied in, owned by
 * it and freed by its _release().
 */

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* A key/value fact. 'tag' is the binding origin ("auto"/"user"), or
 * "redacted" for a withheld environment variable; otherwise NULL. */
struct lr_kv {
	char *key;
	char *value;
	char *tag;
};

struct lr_kvlist {
	struct lr_kv *v;
	size_t n, cap;
};

/* Append copies of key/value/tag (tag may be NULL). LR_ENOMEM on failure. */
LR_MUST_CHECK int lr_kvlist_add(struct lr_kvlist *l, const char *key, const char *value, const char *tag);
/* Replace the value and tag of 'key' if present, else append. */
LR_MUST_CHECK int lr_kvlist_set(struct lr_kvlist *l, const char *key, const char *value, const char *tag);
/* The entry for 'key', or NULL; borrowed from the list. */
struct lr_kv *lr_kvlist_find(const struct lr_kvlist *l, const char *key);
void lr_kvlist_release(struct lr_kvlist *l);

/* Sort run ids v[0..*n) ascending and drop repeats (*n shrinks): "oldest first, each once". */
void lr_ids_sort_unique(int64_t *v, int *n);

struct lr_strlist {
	char **v;
	size_t n, cap;
};

LR_MUST_CHECK int lr_strlist_add(struct lr_strlist *l, const char *s);
LR_MUST_CHECK int lr_strlist_contains(const struct lr_strlist *l, const char *s);
void lr_strlist_release(struct lr_strlist *l);

/*
 * Room for at least n elements in the array v, which has room for cap of
 * them, after git's ALLOC_GROW: every growing array in labrun grows through
 * this, never a capacity doubled by hand.
 *
 *	if ((rc = LR_ALLOC_GROW(l->v, l->n + 1, l->cap)))
 *		return rc;
 *	l->v[l->n++] = x;
 *
 * cap must be a size_t lvalue (it is passed by address), v a pointer lvalue;
 * v, n and cap are evaluated more than once. The capacity doubles (from 8),
 * or goes straight to n when doubling is not enough, so appending one at a
 * time costs amortised O(1). Yields 0, or LR_ENOMEM (message set) with v and
 * cap as they were, also when n elements would not fit in a size_t.
 *
 * LR_ALLOC_GROW_MAX never takes cap past 'most' elements (n <= most): for a
 * buffer with a bound of its own, such as the longest line lr_lines reads.
 */
#define LR_ALLOC_GROW(v, n, cap) LR_ALLOC_GROW_MAX(v, n, cap, SIZE_MAX)
#define LR_ALLOC_GROW_MAX(v, n, cap, most) \
	lr_alloc_result_((n) <= (cap) || ((v) = lr_array_regrow((v), &(cap), (n), (most), sizeof *(v)), (n) <= (cap)))

/* What LR_ALLOC_GROW calls: v grown to the new *cap, or v itself (and *cap as it was) when it cannot be. */
void *lr_array_regrow(void *v, size_t *cap, size_t n, size_t most, size_t size);

static inline LR_MUST_CHECK int lr_alloc_result_(int grown)
{
	return grown ? 0 : LR_ENOMEM;
}

/* strdup that tolerates NULL. */
char *lr_strdup0(const char *s);

#endif
