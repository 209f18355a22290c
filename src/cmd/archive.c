#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/archive.h"
#include "evidence/manifest.h"
#include "evidence/pack.h"
#include "evidence/publish.h"
#include "evidence/settings.h"
#include "store/remote.h"
#include "store/s3.h"

static const char usage[] =
	"usage: labrun archive (--run ID | --issue REF)... [-o FILE] [--site] [--to REMOTE] [--prune]\n"
	"                      [--allow-findings] [--progress]\n"
	"       labrun archive --verify FILE [--trust FILE]... [--key FILE] [--allow-unsigned]\n"
	"       labrun archive --extract FILE DIR\n"
	"\n"
	"Pack the evidence of a run, or of every run of an issue, into one .tar.zst: the runs'\n"
	"RO-Crate (per run run.json, logs, artifacts, and for experiment runs the definition\n"
	"and every repetition as CSV; ro-crate-metadata.json; manifest-sha256.txt) plus\n"
	"SHA256SUMS listing each member, so an extracted archive is a valid crate. The crate is\n"
	"the one 'labrun manifest' writes (attestations, report and signed head included; with\n"
	"--site the static site too). --verify checks the archive as 'labrun verify FILE' does:\n"
	"every member against SHA256SUMS, then, since anyone can write that list again, the\n"
	"crate's signatures against the keys you trust (--trust, --key, --allow-unsigned as for\n"
	"verify), its files, ledger, rows, report and site. --extract checks every entry first\n"
	"and refuses absolute paths, '..', links and device files, writing nothing when one is\n"
	"found. --to copies the archive to an S3 remote (a remote's name, or s3://BUCKET/PREFIX?...)\n"
	"as archives/SHA256.tar.zst, with an in-toto statement of its digest signed by this\n"
	"store's key beside it, and prints the copy's URI for 'labrun verify' and 'labrun register'.\n"
	"--verify also takes such a URI.\n";

/* --extract FILE DIR */
static int extract_into(const char *file, const char *dir, int progress)
{
	int rc, members = 0;

	cmd_progress_begin("labrun archive", progress, 0);
	rc = lr_archive_extract(file, dir, &members);
	cmd_progress_end();
	if (rc)
		return cmd_fail(rc);
	printf("extracted %d file(s) from '%s' into '%s'\n", members, file, dir);
	return LR_EXIT_OK;
}

/*
 * --verify FILE (what 'labrun verify FILE' checks, with its --trust, --key and
 * --allow-unsigned) or --extract FILE DIR, the options parsed: the exit status.
 */
static int verify_or_extract(const char *verify, const char *extract, const struct lr_strlist *trust, const char *key,
			     int allow, int argc, char **argv, int first, int progress)
{
	if (!verify && (trust->n || key || allow))
		return cmd_usage_error("archive", "--trust, --key and --allow-unsigned go with --verify");
	if (verify && first < argc)
		return cmd_usage_error("archive", "unexpected argument '%s'", argv[first]);
	if (verify)
		return cmd_verify_path("labrun archive", verify, NULL, trust, key, allow, progress);
	if (first + 1 != argc)
		return cmd_usage_error("archive", "--extract takes the archive and a target directory");
	return extract_into(extract, argv[first], progress);
}

/* The archive of the job's runs, at 'out' or its default name (into path): written, and said. */
static int write_archive(const struct cmd_crate_job *j, const char *out, int with_site, int progress, char *path,
			 size_t len)
{
	char deflt[320];
	struct lr_crate_opts co = { 0 };
	int rc, placeholder = 0;

	snprintf(deflt, sizeof deflt, "labrun-%s.tar.zst", j->name);
	snprintf(path, len, "%s", out ? out : deflt);
	co.title = deflt;
	co.report_title = j->title;
	co.site = with_site;
	cmd_progress_begin("labrun archive", progress, 0);
	rc = lr_evidence_archive(j->st, j->all, j->nall, path, &co, &placeholder);
	cmd_progress_end();
	if (rc)
		return rc;
	if (placeholder)
		cmd_warn_license(LR_CRATE_NO_LICENSE);
	printf("archived %d run(s) into '%s'\n", j->nall, path);
	return 0;
}

/* --prune: the logs only the job's runs use removed from the store, now that the archive at 'path' holds them. */
static int prune_logs(const struct cmd_crate_job *j, const char *path)
{
	size_t pruned = 0;
	long long bytes = 0;
	int rc = lr_evidence_prune(j->st, j->ids, j->n, path, &pruned, &bytes);

	if (!rc)
		printf("pruned %zu log object(s), %lld bytes, from the store; 'labrun cat' reads them from the archive\n",
		       pruned, bytes);
	return rc;
}

/* --to DEST (a remote's name or an s3:// URI): its name and URI, checked before the archive is written. */
struct dest {
	char *name, *uri;
};

static int resolve_dest(struct lr_store *st, const char *to, struct dest *d)
{
	struct lr_s3 *s = NULL;
	int rc;

	if (!strncmp(to, "s3://", 5))
		rc = (d->name = strndup(to, strcspn(to, "?"))) && (d->uri = strdup(to))
			     ? 0
			     : lr_error_set(LR_ENOMEM, "out of memory");
	else
		rc = lr_store_remote_get(st, to, &d->name, &d->uri, NULL);
	if (!rc && strncmp(d->uri, "s3://", 5)) {
		rc = lr_error_set(LR_EINVAL, "cannot copy the archive to remote '%s': it is not an S3 remote", d->name);
		lr_error_hint("an archive goes to a bucket: 'labrun remote add NAME s3://BUCKET/PREFIX?...' "
			      "(docs/remote.md)");
	}
	if (!rc && !(rc = lr_s3_open(&s, d->name, d->uri))) /* the URI and credentials: no request yet */
		lr_s3_free(s);
	return rc;
}

/* The archive at 'path' copied to 'd', with its signed statement: said. */
static int copy_archive(struct lr_store *st, const struct dest *d, const char *path, int progress)
{
	struct lr_published p = { 0 };
	int rc;

	cmd_progress_begin("labrun archive", progress, 0);
	rc = lr_archive_publish(d->name, d->uri, path, lr_store_signer(st), &p);
	cmd_progress_end();
	if (!rc) {
		printf("%s '%s' (%lld bytes, sha256 %s) to '%s'%s:\n  %s\n", p.sent ? "copied" : "found", path,
		       (long long)p.size, p.sha256, d->name, p.sent ? "" : " already", p.uri);
		if (p.statement_differs)
			printf("labrun: warning: the bucket holds another statement for these bytes, which stays (nothing "
			       "is replaced): 'labrun verify URI' says whether it holds; a new prefix takes a new copy\n");
		else
			printf("its statement beside it (%s.intoto.json) is %s%s\n", p.sha256,
			       lr_store_signer(st) ? "signed with this store's key" : "unsigned: this store has no key",
			       p.statement_sent ? "" : " (the bucket held the same one already)");
	}
	lr_published_release(&p);
	return rc;
}

int cmd_archive(const struct lr_global *g, int argc, char **argv)
{
	const char *verify = NULL, *extract = NULL, *out = NULL, *key = NULL, *to = NULL;
	struct lr_strlist runs = { 0 }, issues = { 0 }, trust = { 0 };
	struct cmd_crate_job j = { 0 };
	char path[PATH_MAX];
	struct dest d = { NULL, NULL };
	int rc = 0, prune = 0, allow = 0, progress = 0, with_site = 0, unsigned_ok = 0, first;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "run", &runs, "ID", "the run (a short id, uuid prefix, 'last' or 'last~N'); repeatable"),
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF",
			     "every run that is evidence for REF; repeatable"),
		CMD_STRING(0, "verify", &verify, "FILE", "check the archive FILE as 'labrun verify FILE' does"),
		CMD_LIST(0, "trust", &trust, "FILE", "with --verify: also trust the keys of FILE"),
		CMD_STRING(0, "key", &key, "FILE", "with --verify: trust only this key (a PEM public key)"),
		CMD_BOOL(0, "allow-unsigned", &unsigned_ok, "with --verify: as 'labrun verify --allow-unsigned'"),
		CMD_STRING(0, "extract", &extract, "FILE",
			   "check every entry of the archive FILE, then extract it into DIR"),
		CMD_STRING('o', "output", &out, "FILE",
			   "the archive (default labrun-run-ID.tar.zst or labrun-issue-REF.tar.zst)"),
		CMD_NONEMPTY(0, "to", &to, "REMOTE",
			     "then copy the archive and its signed statement to this S3 remote\n(a remote's name or "
			     "an s3:// URI) and print the copy's URI"),
		CMD_BOOL(0, "site", &with_site,
			 "put the static site of the runs ('labrun site') into the crate's site/"),
		CMD_BOOL(
			0, "prune", &prune,
			"then remove from the store the logs only these runs use; 'labrun cat',\naudit and fsck read them from the archive from then on"),
		CMD_BOOL(
			0, "allow-findings", &allow,
			"archive even when 'labrun scan' has new findings in the runs\n(they are printed either way; without it the archive is refused)"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "archive", .usage = usage, .max = 1 };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		goto done_opts;
	if (!!(runs.n || issues.n) + !!verify + !!extract != 1) {
		rc = cmd_usage_error("archive",
				     "give --run or --issue (each as often as you like), --verify or --extract");
		goto done_opts;
	}
	if ((verify || extract) && to) {
		rc = cmd_usage_error("archive", "--to goes with --run or --issue");
		goto done_opts;
	}
	if (verify || extract || trust.n || key || unsigned_ok) {
		rc = verify_or_extract(verify, extract, &trust, key, unsigned_ok, argc, argv, first, progress);
		goto done_opts;
	}
	if (first < argc) {
		rc = cmd_usage_error("archive", "unexpected argument '%s'", argv[first]);
		goto done_opts;
	}
	if ((rc = cmd_crate_job_open(&j, g, &runs, &issues, allow, "archive", "archive")))
		goto done;
	if ((to && (rc = resolve_dest(j.st, to, &d))) ||
	    (rc = write_archive(&j, out, with_site, progress, path, sizeof path)))
		goto failed;
	cmd_crate_job_end_snapshot(&j); /* pruning writes; a long copy holds no snapshot */
	if ((to && (rc = copy_archive(j.st, &d, path, progress))) || (prune && (rc = prune_logs(&j, path))))
		goto failed;
	goto done;
failed:
	rc = cmd_fail(rc);
done:
	free(d.name);
	free(d.uri);
	cmd_crate_job_release(&j);
done_opts:
	lr_strlist_release(&runs);
	lr_strlist_release(&issues);
	lr_strlist_release(&trust);
	return rc;
}
