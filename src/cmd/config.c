#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/settings.h"

static const char usage[] = "usage: labrun config [KEY [VALUE]]\n"
			    "       labrun config --unset KEY\n"
			    "\n"
			    "Show or change the store's settings. With no KEY, list every known key and its\n"
			    "value; with KEY, print its value (exit 1 when unset); with VALUE, set it.\n"
			    "Settings live in the store (table 'setting'), so every host using it agrees.\n";

static int print_setting(void *arg, const char *key, const char *value, const char *set_at)
{
	(void)arg;
	printf("%s=%s\t(set %s)\n", key, value, set_at);
	return 0;
}

static int unknown_key(const char *key)
{
	const struct lr_setting_key *k;

	fprintf(stderr, "labrun: error: config: unknown key '%s'\nhint: the keys are", key);
	for (k = lr_setting_keys; k->key; k++)
		fprintf(stderr, "%s %s", k == lr_setting_keys ? "" : ",", k->key);
	fputc('\n', stderr);
	return LR_EXIT_USAGE;
}

int cmd_config(const struct lr_global *g, int argc, char **argv)
{
	const struct lr_setting_key *k;
	const char *unset = NULL, *key;
	struct lr_store *st = NULL;
	struct lr_global local;
	char *value = NULL;
	int rc, first, n;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "unset", &unset, "KEY", "remove the setting KEY"),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "config", .usage = usage, .max = 2, .operands = "at most KEY and VALUE, or --unset KEY alone"
	};

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first))) {
		if (rc != CMD_HELP_SHOWN)
			return rc;
		fputs("\nKeys:\n", stdout); /* -h: the keys after the usage */
		for (k = lr_setting_keys; k->key; k++)
			printf("  %-20s %s\n", k->key, k->help);
		return rc;
	}
	n = argc - first;
	if (unset && n)
		return cmd_usage_error("config", "takes at most KEY and VALUE, or --unset KEY alone");

	key = unset ? unset : n ? argv[first] : NULL;
	if (key && !lr_setting_key_find(key))
		return unknown_key(key);
	/* setting a value creates the store, like every command that writes (its row says so); the rest need one */
	local = *g;
	if (n != 2)
		local.mode = CMD_WRITES;
	if ((rc = cmd_store(&st, &local)))
		return rc;
	if (!key) {
		rc = lr_store_settings(st, print_setting, NULL);
	} else if (unset || n == 2) {
		rc = lr_store_setting_set(st, key, unset ? NULL : argv[first + 1]);
	} else if (!(rc = lr_store_setting_get(st, key, &value))) {
		if (value)
			printf("%s\n", value);
		else
			rc = lr_error_set(LR_ENOTFOUND, "config: '%s' is not set", key);
	}
	free(value);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
