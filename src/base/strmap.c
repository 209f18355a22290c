#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/strmap.h"

struct lr_strmap_slot {
	char *key; /* NULL: empty */
	intptr_t value;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct lr_strmap_slot *find(const struct lr_strmap *m, const char *key)
{
	size_t i = (size_t)hash(key) & (m->cap - 1);

	while (m->slots[i].key && strcmp(m->slots[i].key, key))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

int lr_strmap_get(const struct lr_strmap *m, const char *key, intptr_t *value)
{
	const struct lr_strmap_slot *s;

	if (!m->cap)
		return 0;
	s = find(m, key);
	if (!s->key)
		return 0;
	if (value)
		*value = s->value;
	return 1;
}

static int grow(struct lr_strmap *m)
{
	struct lr_strmap old = *m;
	size_t i;

	/*
	 * Doubled on purpose, not through LR_ALLOC_GROW: the slots are a new
	 * table every key is put into again (a realloc would keep them where the
	 * old size's mask put them), and its size stays a power of two, so that
	 * 'hash & (cap - 1)' is the slot and the load stays at most one half.
	 */
	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = calloc(m->cap, sizeof *m->slots);
	if (!m->slots) {
		*m = old;
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key) = old.slots[i];
	free(old.slots);
	return 0;
}

int lr_strmap_put(struct lr_strmap *m, const char *key, intptr_t value)
{
	struct lr_strmap_slot *s;
	int rc;

	if ((m->n + 1) * 2 > m->cap && (rc = grow(m)))
		return rc;
	s = find(m, key);
	if (!s->key) {
		if (!(s->key = strdup(key)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		m->n++;
	}
	s->value = value;
	return 0;
}

const char *lr_strmap_key(const struct lr_strmap *m, size_t i)
{
	return i < m->cap ? m->slots[i].key : NULL;
}

void lr_strmap_release(struct lr_strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof *m);
}
