/* labrun's containers (base/list.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"

char *lr_strdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

void *lr_array_regrow(void *v, size_t *cap, size_t n, size_t most, size_t size)
{
	size_t ncap = *cap < 4 ? 8 : *cap <= SIZE_MAX / 2 ? *cap * 2 : SIZE_MAX;
	void *p;

	if (ncap < n)
		ncap = n;
	if (ncap > most)
		ncap = most;
	if (n > most || ncap > SIZE_MAX / size) {
		lr_error_set(LR_ENOMEM, "out of memory: an array of %zu elements of %zu bytes", n, size);
		return v;
	}
	if (!(p = realloc(v, ncap * size))) {
		lr_error_set(LR_ENOMEM, "out of memory");
		return v;
	}
	*cap = ncap;
	return p;
}

int lr_kvlist_add(struct lr_kvlist *l, const char *key, const char *value, const char *tag)
{
	struct lr_kv *kv;

	if (LR_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return LR_ENOMEM;
	kv = &l->v[l->n];
	kv->key = strdup(key);
	kv->value = strdup(value);
	kv->tag = lr_strdup0(tag);
	if (!kv->key || !kv->value || (tag && !kv->tag)) {
		free(kv->key);
		free(kv->value);
		free(kv->tag);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	l->n++;
	return 0;
}

struct lr_kv *lr_kvlist_find(const struct lr_kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

int lr_kvlist_set(struct lr_kvlist *l, const char *key, const char *value, const char *tag)
{
	struct lr_kv *kv = lr_kvlist_find(l, key);
	char *v, *t;

	if (!kv)
		return lr_kvlist_add(l, key, value, tag);
	v = strdup(value);
	t = lr_strdup0(tag);
	if (!v || (tag && !t)) {
		free(v);
		free(t);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	free(kv->value);
	free(kv->tag);
	kv->value = v;
	kv->tag = t;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void lr_ids_sort_unique(int64_t *v, int *n)
{
	int i, m = 0;

	qsort(v, (size_t)*n, sizeof *v, cmp_id);
	for (i = 0; i < *n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	*n = m;
}

void lr_kvlist_release(struct lr_kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].tag);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

int lr_strlist_add(struct lr_strlist *l, const char *s)
{
	if (LR_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return LR_ENOMEM;
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return lr_error_set(LR_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

int lr_strlist_contains(const struct lr_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

void lr_strlist_release(struct lr_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}
