/* labrun share: URLs a reviewer fetches a pushed run's bundle and objects with, without credentials. */
#include "config.h"
#include "base/system.h"

#include <time.h>

#include "base/model.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/publish.h"
#include "store/remote.h"
#include "store/s3.h"

static const char usage[] = "usage: labrun share [NAME] [--issue REF | --run ID...] [--expires DURATION]\n"
			    "       labrun share s3://BUCKET/PREFIX/archives/SHA256.tar.zst?... [--expires DURATION]\n"
			    "\n"
			    "Print, for each run (every run when neither option is given), URLs anyone can\n"
			    "fetch its bundle and each object it names with from S3 remote NAME (the only\n"
			    "remote when there is one), without credentials, until they expire: --expires\n"
			    "seconds, or with m, h or d (default 7d, the longest S3 allows). Each run must be\n"
			    "pushed first: every key is looked up before a URL for it is printed. A URL is\n"
			    "signed with your access key (its id is in the URL, never the secret); whoever holds\n"
			    "it can read that one object until it expires. A bundle's and an object's names are\n"
			    "their SHA-256: what is fetched can be checked against the name. Given the URI of an\n"
			    "archive's copy ('labrun archive --to' prints it), the URLs are the archive's and its\n"
			    "signed statement's: 'labrun verify --statement STATEMENT ARCHIVE' checks what a\n"
			    "reviewer fetched with them.\n";

/* --expires: seconds, or N with m, h or d. */
static int parse_expires(const char *arg, long *out)
{
	char *end;
	long v = strtol(arg, &end, 10), unit = 1;

	if (*end == 'm')
		unit = 60, end++;
	else if (*end == 'h')
		unit = 3600, end++;
	else if (*end == 'd')
		unit = 86400, end++;
	else if (*end == 's')
		end++;
	if (end == arg || *end || v < 1 || v > 604800 / unit)
		return cmd_usage_error("share", "invalid --expires '%s': 1 s to 7d (604800 s), e.g. 3600, 90m, 12h, 7d",
				       arg);
	*out = v * unit;
	return 0;
}

/* One key's line: 'key' looked up, then signed; 'name' says which it is (a run's object: its sha256). */
static int share_key(struct lr_s3 *s, const char *what, const char *key, const char *name, time_t now, long expires)
{
	char *url = NULL;
	int64_t size;
	int rc, found;

	if ((rc = lr_s3_head(s, key, &found, &size)))
		return rc;
	if (!found) {
		lr_error_set(LR_ENOTFOUND, "%s has no %s %s", lr_s3_where(s), what, name);
		lr_error_hint(!strcmp(what, "statement") ? "copy the archive again: labrun archive --to"
							 : "push the run first: labrun push");
		return LR_ENOTFOUND;
	}
	if (!(rc = lr_s3_presign(s, key, expires, now, &url)))
		printf("  %-6s  %s  %12lld  %s\n", what, name, (long long)size, url);
	free(url);
	return rc;
}

/* A run's bundle or object. */
static int share_run_key(struct lr_s3 *s, const char *what, const char *sha256, time_t now, long expires)
{
	char key[80];

	snprintf(key, sizeof key, "%s/%s", !strcmp(what, "bundle") ? "bundles" : "objects", sha256);
	return share_key(s, what, key, sha256, now, expires);
}

/* When URLs signed now for 'expires' seconds stop working, as text. */
static const char *expiry(long expires, char at[32])
{
	time_t until = time(NULL) + expires;
	struct tm tm;

	gmtime_r(&until, &tm);
	strftime(at, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return at;
}

/* An archive's copy at 'uri': URLs for it and the statement beside it. */
static int share_copy(const char *uri, long expires)
{
	struct lr_s3 *s = NULL;
	char key[256], skey[300], at[32];
	time_t now = time(NULL);
	int rc;

	if (!(rc = lr_s3_open_object(&s, "labrun share", uri, key, sizeof key)) &&
	    !(rc = lr_copy_statement_key("labrun share", key, skey, sizeof skey)) &&
	    !(rc = share_key(s, "archive", key, key, now, expires)) &&
	    !(rc = share_key(s, "statement", skey, skey, now, expires)))
		printf("the URLs expire at %s; 'labrun verify --statement %s %s' checks what they fetch\n",
		       expiry(expires, at), skey, key);
	lr_s3_free(s);
	return rc;
}

static int share_runs(struct lr_store *st, struct lr_s3 *s, const int64_t *ids, int n, long expires)
{
	time_t now = time(NULL);
	char at[32];
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		struct lr_bundle b;

		if ((rc = lr_store_run_bundle(st, ids[i], &b)))
			break;
		printf("run %s\n", b.uuid);
		rc = share_run_key(s, "bundle", b.sha256, now, expires);
		for (size_t k = 0; k < b.objects.n && !rc; k++)
			rc = share_run_key(s, "object", b.objects.v[k].key, now, expires);
		lr_bundle_release(&b);
	}
	if (!rc)
		printf("%d run%s; the URLs expire at %s\n", n, n == 1 ? "" : "s", expiry(expires, at));
	return rc;
}

int cmd_share(const struct lr_global *g, int argc, char **argv)
{
	char issue[CMD_ISSUE_BUF] = "", *uri = NULL, *name = NULL;
	const char *expires_arg = "7d";
	struct lr_strlist runs = { 0 };
	struct lr_store *st = NULL;
	struct lr_s3 *s = NULL;
	int64_t *ids = NULL;
	long expires = 0;
	int rc, first, n = 0;
	const struct cmd_opt opts[] = {
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF", "the runs of this issue (default: every run)"),
		CMD_LIST(0, "run", &runs, "ID", "this run (repeatable): short id, uuid, 'last' or 'last~N'"),
		CMD_STRING(0, "expires", &expires_arg, "DURATION",
			   "how long the URLs work: 3600, 90m, 12h, 7d (default 7d)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "share", .usage = usage, .max = 1, .operands = "at most the remote's NAME" };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)) || (rc = parse_expires(expires_arg, &expires))) {
		lr_strlist_release(&runs);
		return rc;
	}
	if (*issue && runs.n) {
		lr_strlist_release(&runs);
		return cmd_usage_error("share", "--issue and --run choose runs two ways: give one");
	}
	if (first < argc && !strncmp(argv[first], "s3://", 5)) { /* an archive's copy: no store needed */
		n = (int)runs.n;
		lr_strlist_release(&runs);
		if (*issue || n)
			return cmd_usage_error("share",
					       "--issue and --run choose runs of a remote, not an archive's copy");
		rc = share_copy(argv[first], expires);
		return rc ? cmd_fail(rc) : LR_EXIT_OK;
	}
	if ((rc = cmd_store(&st, g))) {
		lr_strlist_release(&runs);
		return rc;
	}
	if (!(rc = cmd_select_runs(st, "share", issue, &runs, &ids, &n)) &&
	    !(rc = lr_store_remote_get(st, first < argc ? argv[first] : NULL, &name, &uri, NULL))) {
		if (strncmp(uri, "s3://", 5)) {
			rc = lr_error_set(LR_EINVAL, "cannot share from remote '%s': it is not an S3 remote", name);
			lr_error_hint("a PostgreSQL remote is read with its own credentials: 'labrun pull' there");
		} else if (!(rc = lr_s3_open(&s, name, uri)) && !(rc = lr_s3_check(s))) {
			rc = share_runs(st, s, ids, n, expires);
		}
	}
	lr_s3_free(s);
	lr_strlist_release(&runs);
	free(ids);
	free(uri);
	free(name);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
