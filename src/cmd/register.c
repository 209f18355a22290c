#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sha256.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/manifest.h"
#include "store/archives.h"

static const char usage[] = "usage: labrun register --hub NAME DIR\n"
			    "\n"
			    "Record that the crate in DIR (written by 'labrun manifest') is registered with the\n"
			    "research hub NAME: the crate is validated first, then its ro-crate-metadata.json\n"
			    "sha256, the hub, the time and the runs it describes are stored. labrun records the\n"
			    "registration; it uploads nothing. 'labrun list --registered' shows registrations.\n";

int cmd_register(const struct lr_global *g, int argc, char **argv)
{
	const char *hub = NULL; /* the option */
	struct lr_strlist uuids = { 0 };
	struct lr_store *st = NULL;
	char abs[PATH_MAX], meta[PATH_MAX + 32], sha[LR_SHA256_HEX];
	int64_t id = 0;
	int rc, entities = 0, first;
	const struct cmd_opt opts[] = {
		CMD_NONEMPTY(0, "hub", &hub, "NAME", "the research hub the crate is registered with"),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "register", .usage = usage, .min = 1, .max = 1, .operands = "--hub NAME and a crate directory"
	};

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (!hub)
		return cmd_usage_error("register", "'labrun register' takes --hub NAME and a crate directory");

	if ((rc = lr_crate_validate(argv[first], &entities))) {
		lr_error_wrap("cannot register");
		cmd_fail(rc);
		return LR_EXIT_FAIL;
	}
	if (!realpath(argv[first], abs))
		snprintf(abs, sizeof abs, "%s", argv[first]);
	snprintf(meta, sizeof meta, "%s/ro-crate-metadata.json", abs);
	if ((rc = lr_sha256_file(meta, sha, NULL)) || (rc = lr_crate_run_uuids(abs, &uuids)))
		return cmd_fail(rc);
	if ((rc = cmd_store(&st, g))) {
		lr_strlist_release(&uuids);
		return rc;
	}
	rc = lr_store_register(st, hub, abs, sha, &uuids, &id);
	if (!rc)
		printf("registered crate '%s' with hub '%s' as registration %lld (manifest sha256 %s, %zu run(s))\n",
		       abs, hub, (long long)id, sha, uuids.n);
	lr_strlist_release(&uuids);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
