#ifndef LR_SETTINGS_H
#define LR_SETTINGS_H

/*
 * The store's settings ('labrun config'): what a store declares once for
 * every crate and archive it writes. Nothing here prints.
 */

#include "base/error.h"
#include "evidence/manifest.h"
#include "store/store.h"

/* The licence a crate declares when none is given: a placeholder. */
#define LR_CRATE_NO_LICENSE "not declared"

/* The settings 'labrun config' knows: the crate fields a store declares once. */
struct lr_setting_key {
	const char *key;
	const char *help;
};
extern const struct lr_setting_key lr_setting_keys[]; /* ends with { NULL } */
const struct lr_setting_key *lr_setting_key_find(const char *key);

/*
 * Fill the licence, author and publisher not given by options (NULL in *o)
 * from the store's settings (manifest.license, .author, .publisher); the
 * licence falls back to LR_CRATE_NO_LICENSE. The strings read are kept in
 * held[3], freed with lr_crate_opts_release(). *placeholder is set when the
 * licence is a placeholder ("not declared", "TODO", "unknown", ...): worth a
 * warning, since a hub cannot reuse evidence with no licence.
 */
LR_MUST_CHECK int lr_crate_opts_settle(struct lr_store *st, struct lr_crate_opts *o, char *held[3], int *placeholder);
void lr_crate_opts_release(char *held[3]);

#endif
