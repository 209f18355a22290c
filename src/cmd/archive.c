#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "base/error.h"
#include "record/gitsrc.h"
#include "evidence/archive.h"
#include "evidence/manifest.h"
#include "store/objects.h"
#include "record/record.h"

static const char usage[] =
	"usage: labrun archive (--run ID | --issue REF) [-o FILE] [--prune]\n"
	"       labrun archive --verify FILE\n"
	"       labrun archive --extract FILE DIR\n"
	"\n"
	"Pack the evidence of a run, or of every run of an issue, into one .tar.zst: the runs'\n"
	"RO-Crate (per run run.json, logs, artifacts, and for experiment runs the definition\n"
	"and every repetition as CSV; ro-crate-metadata.json; manifest-sha256.txt) plus\n"
	"SHA256SUMS listing each member, so an extracted archive is a valid crate. --verify\n"
	"re-hashes every member; --extract checks every entry first and refuses absolute paths,\n"
	"'..', links and device files, writing nothing when one is found.\n"
	"\n"
	"  --run ID       the run (a short id, uuid prefix or 'last')\n"
	"  --issue REF    every run that is evidence for REF\n"
	"  -o FILE        the archive (default labrun-run-ID.tar.zst or labrun-issue-REF.tar.zst)\n"
	"  --prune        then remove from the store the logs only these runs use; 'labrun cat',\n"
	"                 audit and fsck read them from the archive from then on\n";

struct pack {
	struct lr_archive_writer *w;
	size_t prefix;		/* length of the crate directory's path, with its '/' */
};

static int pack_file(void *arg, const char *full, const char *rel)
{
	struct pack *p = arg;

	(void)rel;
	return lr_archive_add_file(p->w, full + p->prefix, full);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/*
 * The archive is the runs' RO-Crate (lr_crate_write: run.json, logs,
 * artifacts, definition, repetitions, ro-crate-metadata.json,
 * manifest-sha256.txt) packed with a SHA256SUMS member: extracted, it is a
 * valid crate again.
 */
static int pack_crate(struct lr_store *st, const int64_t *runs, int n, struct lr_archive_writer *w, const char *title)
{
	struct lr_crate_opts co = { title, "not declared", NULL, NULL };
	char tmp[] = "/tmp/labrun-crate-XXXXXX", dir[sizeof tmp + 8];
	struct pack p;
	int rc;

	if (!mkdtemp(tmp))
		return lr_error_set(LR_EIO, "cannot create a temporary directory: %s", strerror(errno));
	snprintf(dir, sizeof dir, "%s/crate", tmp);
	if (!(rc = lr_crate_write(st, runs, n, dir, &co))) {
		p.w = w;
		p.prefix = strlen(dir) + 1;
		rc = lr_walk_files(dir, pack_file, &p);
	}
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

/*
 * Remove from objects/ the logs that only these runs use, once the archive
 * verifies and holds each of them: recorded first, unlinked after.
 */
static int prune_logs(struct lr_store *st, const int64_t *runs, int n, const char *archive)
{
	struct lr_kvlist logs = { 0 };
	char abs[PATH_MAX], *obj;
	long long bytes = 0;
	struct stat sb;
	size_t i;
	int rc, members = 0;

	if ((rc = lr_archive_verify(archive, &members)) || !realpath(archive, abs) ||
	    (rc = lr_store_prunable_logs(st, runs, n, &logs)))
		goto out;
	for (i = 0; i < logs.n && !rc; i++)
		rc = lr_archive_read_member(abs, logs.v[i].value, logs.v[i].key, -1);
	if (rc || (rc = lr_store_mark_archived(st, abs, &logs)))
		goto out;
	for (i = 0; i < logs.n; i++) {
		obj = lr_obj_path(lr_store_dir(st), logs.v[i].key);
		if (obj && stat(obj, &sb) == 0 && unlink(obj) == 0)
			bytes += sb.st_size;
		free(obj);
	}
	printf("pruned %zu log object(s), %lld bytes, from the store; 'labrun cat' reads them from the archive\n",
	       logs.n, bytes);
out:
	lr_kvlist_release(&logs);
	return rc;
}

int cmd_archive(const struct lr_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "issue", required_argument, NULL, 'i' },
		{ "verify", required_argument, NULL, 'v' },
		{ "extract", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "prune", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run_ref = NULL, *verify = NULL, *extract = NULL, *out = NULL;
	struct lr_run_filter f = { NULL, NULL, -1, 0 };
	struct lr_archive_writer *w = NULL;
	struct lr_store *st = NULL;
	int64_t *ids = NULL;
	int n = 0;
	char issue[256], deflt[320];
	int c, rc = 0, modes = 0, members = 0, prune = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			run_ref = optarg;
			modes++;
			break;
		case 'i':
			if (lr_issue_normalize(optarg, issue, sizeof issue))
				return cmd_fail(LR_EINVAL);
			f.issue = issue;
			modes++;
			break;
		case 'v':
			verify = optarg;
			modes++;
			break;
		case 'x':
			extract = optarg;
			modes++;
			break;
		case 'o':
			out = optarg;
			break;
		case 'P':
			prune = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LR_EXIT_OK;
		default:
			return cmd_bad_option("archive", argv, c);
		}
	}
	if (modes != 1)
		return cmd_usage_error("archive", "give exactly one of --run, --issue, --verify and --extract");
	if (verify) {
		if (optind < argc)
			return cmd_usage_error("archive", "unexpected argument '%s'", argv[optind]);
		if ((rc = lr_archive_verify(verify, &members)))
			return cmd_fail(rc);
		printf("archive '%s': %d member(s) match SHA256SUMS\n", verify, members);
		return LR_EXIT_OK;
	}
	if (extract) {
		if (optind + 1 != argc)
			return cmd_usage_error("archive", "--extract takes the archive and a target directory");
		if ((rc = lr_archive_extract(extract, argv[optind], &members)))
			return cmd_fail(rc);
		printf("extracted %d file(s) from '%s' into '%s'\n", members, extract, argv[optind]);
		return LR_EXIT_OK;
	}
	if (optind < argc)
		return cmd_usage_error("archive", "unexpected argument '%s'", argv[optind]);
	if ((rc = cmd_open_store(&st, g, 0)))
		return rc;
	if (run_ref) {
		ids = malloc(sizeof *ids);
		if (!ids || (rc = lr_store_run_resolve(st, run_ref, ids))) {
			rc = ids ? rc : lr_error_set(LR_ENOMEM, "out of memory");
			goto done;
		}
		n = 1;
		snprintf(deflt, sizeof deflt, "labrun-run-%lld.tar.zst", (long long)ids[0]);
	} else {
		char safe[256];
		size_t k;

		if ((rc = lr_store_run_ids(st, &f, &ids, &n)))
			goto done;
		if (!n) {
			rc = lr_error_set(LR_ENOTFOUND, "cannot archive issue %s: no runs reference it", f.issue);
			lr_error_hint("'labrun list --issue %s' shows the runs that do", f.issue);
			goto done;
		}
		snprintf(safe, sizeof safe, "%s", f.issue);
		for (k = 0; safe[k]; k++)
			if (safe[k] == '/' || safe[k] == '#')
				safe[k] = '-';
		snprintf(deflt, sizeof deflt, "labrun-issue-%s.tar.zst", safe);
	}
	if ((rc = lr_archive_create(&w, out ? out : deflt)))
		goto done;
	rc = pack_crate(st, ids, n, w, deflt);
	if (rc) {
		lr_archive_abort(w);
		goto done;
	}
	rc = lr_archive_close(w);
	if (!rc)
		printf("archived %d run(s) into '%s'\n", n, out ? out : deflt);
	if (!rc && prune)
		rc = prune_logs(st, ids, n, out ? out : deflt);
done:
	free(ids);
	lr_store_free(st);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
