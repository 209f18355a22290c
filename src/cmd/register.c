#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/sha256.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/manifest.h"
#include "evidence/publish.h"
#include "evidence/verify-path.h"
#include "store/archives.h"

static const char usage[] = "usage: labrun register --hub NAME DIR\n"
			    "       labrun register --hub NAME s3://BUCKET/PREFIX/archives/SHA256.tar.zst?...\n"
			    "\n"
			    "Record that the crate in DIR (written by 'labrun manifest') is registered with the\n"
			    "research hub NAME: the crate is validated first, then its ro-crate-metadata.json\n"
			    "sha256, the hub, the time and the runs it describes are stored. Given the URI of an\n"
			    "archive's copy in a bucket ('labrun archive --to' prints it), the copy is read back\n"
			    "first: its bytes are hashed, checked against SHA256SUMS and unpacked, and its crate\n"
			    "validated; only then is the URI recorded, with the sha256 of the bytes read back.\n"
			    "labrun records the registration; it uploads nothing. 'labrun list --registered' shows\n"
			    "registrations.\n";

/* The crate in 'dir': validated (else *invalid); its manifest's sha256 and its runs' uuids. */
static int describe(const char *dir, char sha[LR_SHA256_HEX], struct lr_strlist *uuids, int *invalid)
{
	char meta[PATH_MAX + 32];
	int rc, entities = 0;

	if ((rc = lr_crate_validate(dir, &entities))) {
		lr_error_wrap("cannot register");
		*invalid = 1;
		return rc;
	}
	snprintf(meta, sizeof meta, "%s/ro-crate-metadata.json", dir);
	if ((rc = lr_sha256_file(meta, sha, NULL)))
		return rc;
	return lr_crate_run_uuids(dir, uuids);
}

/*
 * The archive at 'uri' read back into 'f', checked as 'labrun verify URI' checks it (its copy's
 * statement, then the archive whole, against the keys you trust; an unsigned one only with 'allow'),
 * and its crate described.
 */
static int read_back(const char *uri, int allow, struct lr_fetched *f, char sha[LR_SHA256_HEX],
		     struct lr_strlist *uuids, int *invalid)
{
	struct lr_verified v = { 0 };
	struct lr_trust t = { 0 };
	char dir[PATH_MAX];
	int rc, problems = 0, members = 0;

	if ((rc = lr_archive_fetch("labrun register", uri, f)) || (rc = cmd_trust_load(&t, NULL, NULL)))
		goto out;
	printf("read back %lld bytes of '%s' (sha256 %s)\n", (long long)f->size, f->key, f->sha256);
	if ((rc = cmd_judge_copy(f, &t, allow, &problems)) || problems)
		goto refuse;
	/* unpacked once (its members checked against SHA256SUMS), then the crate verified and described */
	if ((rc = lr_fetched_unpack(f, dir, sizeof dir))) {
		lr_error_wrap("cannot register '%s'", f->key);
		*invalid = 1;
		goto out;
	}
	rc = lr_verify_path(dir, &t, allow, cmd_print_problem, NULL, &problems, &members, &v);
refuse:
	if (!rc && (problems || (!v.signer[0] && !allow))) {
		*invalid = 1;
		rc = lr_error_set(LR_EREFUSED, "cannot register '%s': %s", f->key,
				  problems ? "it does not verify (each problem above)" : "no key you trust signed it");
		lr_error_hint("'labrun verify URI' checks it as register does; --allow-unsigned registers a copy "
			      "no trusted key signed");
		goto out;
	}
	if (!rc)
		rc = describe(dir, sha, uuids, invalid);
out:
	lr_verified_release(&v);
	lr_trust_release(&t);
	return rc;
}

int cmd_register(const struct lr_global *g, int argc, char **argv)
{
	struct lr_registration reg = { 0 };
	struct lr_fetched f = { 0 };
	struct lr_strlist uuids = { 0 };
	struct lr_store *st = NULL;
	char abs[PATH_MAX], sha[LR_SHA256_HEX];
	int64_t id = 0;
	int rc, first, remote, invalid = 0, allow = 0;
	const struct cmd_opt opts[] = {
		CMD_NONEMPTY(0, "hub", &reg.hub, "NAME", "the research hub the crate is registered with"),
		CMD_BOOL(0, "allow-unsigned", &allow,
			 "an archive's copy no key you trust signed is registered all the same"),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "register", .usage = usage, .min = 1, .max = 1, .operands = "--hub NAME and a crate directory"
	};

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;
	if (!reg.hub)
		return cmd_usage_error("register", "'labrun register' takes --hub NAME and a crate directory");
	if (allow && strncmp(argv[first], "s3://", 5))
		return cmd_usage_error("register", "--allow-unsigned goes with an archive's copy (an s3:// URI)");
	if ((remote = !strncmp(argv[first], "s3://", 5))) {
		rc = read_back(argv[first], allow, &f, sha, &uuids, &invalid);
		snprintf(abs, sizeof abs, "%s", argv[first]);
	} else {
		if (!realpath(argv[first], abs))
			snprintf(abs, sizeof abs, "%s", argv[first]);
		rc = describe(abs, sha, &uuids, &invalid);
	}
	reg.path = abs;
	reg.sha = sha;
	reg.archive_sha = remote ? f.sha256 : NULL;
	if (rc) {
		rc = cmd_fail(rc);
		if (invalid)
			rc = LR_EXIT_FAIL;
	} else if (!(rc = cmd_store(&st, g))) {
		if (!(rc = lr_store_register(st, &reg, &uuids, &id)))
			printf("registered %s '%s' with hub '%s' as registration %lld (manifest sha256 %s, %zu "
			       "run(s))\n",
			       remote ? "archive copy" : "crate", abs, reg.hub, (long long)id, sha, uuids.n);
		else
			rc = cmd_fail(rc);
	}
	lr_fetched_release(&f);
	lr_strlist_release(&uuids);
	return rc;
}
