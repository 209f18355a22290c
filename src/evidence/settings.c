/* The store's settings, and the crate fields they declare. */
#include "config.h"
#include "base/system.h"

#include <strings.h>

#include "base/error.h"
#include "evidence/settings.h"

const struct lr_setting_key lr_setting_keys[] = {
	{ "manifest.license", "the licence every crate and archive declares (e.g. CC-BY-4.0)" },
	{ "manifest.author", "the creator a hub credits (DataCite creator)" },
	{ "manifest.publisher", "the organisation that publishes the evidence (DataCite publisher)" },
	{ "scan.internal", "internal host/address patterns the scan reports (extended regexes, space-separated)" },
	{ "scan.baseline", "the baseline file of accepted scan findings (default: .labrun-scan-baseline here)" },
	{ NULL, NULL },
};

const struct lr_setting_key *lr_setting_key_find(const char *key)
{
	const struct lr_setting_key *k;

	for (k = lr_setting_keys; k->key; k++)
		if (!strcmp(k->key, key))
			return k;
	return NULL;
}

static int is_placeholder(const char *license)
{
	static const char *const words[] = {
		LR_CRATE_NO_LICENSE, "", "todo", "tbd", "none", "unknown", "n/a", "-", NULL
	};
	size_t i;

	for (i = 0; words[i]; i++)
		if (!strcasecmp(license, words[i]))
			return 1;
	return 0;
}

int lr_crate_opts_settle(struct lr_store *st, struct lr_crate_opts *o, char *held[3], int *placeholder)
{
	const char **field[3] = { &o->license, &o->author, &o->publisher };
	static const char *const key[3] = { "manifest.license", "manifest.author", "manifest.publisher" };
	int i, rc = 0;

	held[0] = held[1] = held[2] = NULL;
	for (i = 0; i < 3 && !rc; i++)
		if (!*field[i] && !(rc = lr_store_setting_get(st, key[i], &held[i])))
			*field[i] = held[i];
	if (!o->license)
		o->license = LR_CRATE_NO_LICENSE;
	*placeholder = is_placeholder(o->license);
	return rc;
}

void lr_crate_opts_release(char *held[3])
{
	int i;

	for (i = 0; i < 3; i++) {
		free(held[i]);
		held[i] = NULL;
	}
}
