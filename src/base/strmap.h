#ifndef LR_STRMAP_H
#define LR_STRMAP_H

/*
 * A map from strings to a pointer-sized value (open addressing, FNV-1a),
 * for sets of case ids that may reach the hundreds of thousands. Keys are
 * copied. Zero-initialise; release with lr_strmap_release().
 */

#include "base/error.h"
#include <stddef.h>
#include <stdint.h>

struct lr_strmap {
	struct lr_strmap_slot *slots;
	size_t n, cap;
};

/* The value stored for 'key' in *value; 1 when present, 0 when not. */
LR_MUST_CHECK int lr_strmap_get(const struct lr_strmap *m, const char *key, intptr_t *value);

/* Set 'key' to 'value' (replacing an older value). LR_ENOMEM on failure. */
LR_MUST_CHECK int lr_strmap_put(struct lr_strmap *m, const char *key, intptr_t value);

/* The key in slot i (0 <= i < m->cap) or NULL for an empty slot: to visit every key. */
const char *lr_strmap_key(const struct lr_strmap *m, size_t i);

void lr_strmap_release(struct lr_strmap *m);

#endif
