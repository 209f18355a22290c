/* labrun site: the evidence as a static site in a directory of its own (src/report/site.c writes it). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/trust.h"
#include "base/walk.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/object.h"
#include "evidence/select.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun site [--issue REF | --run ID]... [-o DIR] [--trust FILE]...\n"
			    "\n"
			    "Write the evidence as a static site in DIR (default 'site'): index.html, a table\n"
			    "of the runs to filter and search; run-N.html for each run, with its sources,\n"
			    "binding, geometry, environment, logs and artifacts with their hashes (the logs,\n"
			    "an experiment's executions' included, copied into logs/ and linked), its ledger\n"
			    "entries and who signed them (checked against your trusted keys), an experiment's\n"
			    "tables and charts with each arm over the blocks, the serving evidence with each\n"
			    "collected pass's requests in flight, and what changed since the previous run of\n"
			    "its kind; issue-REF.html for each issue the runs name: the route matrix as a\n"
			    "grid whose cells open their failing cases, and the latency distributions per\n"
			    "route; diff.html, any two runs side by side, only what differs. No server, no\n"
			    "network: open index.html from the file system. The bytes depend only on the\n"
			    "store and your trusted keys. Without --issue or --run, every run. An existing DIR\n"
			    "is replaced only when labrun wrote it.\n";

#define MARKER ".labrun-site"

static int collect_id(void *arg, const struct lr_run *r)
{
	struct lr_strlist *ids = arg;
	char id[24];

	snprintf(id, sizeof id, "%lld", (long long)r->id);
	return lr_strlist_add(ids, id);
}

/* The runs: those of --run and --issue, else every run; oldest first. */
static int select_all(struct lr_store *st, const struct lr_strlist *runs, const struct lr_strlist *issues,
		      int64_t **ids, int *n)
{
	struct lr_run_filter f = { .status = -1 };
	struct lr_strlist all = { 0 };
	char name[128];
	int rc;

	if (runs->n || issues->n)
		return lr_evidence_select(st, runs, issues, "publish", ids, n, name, sizeof name);
	if ((rc = lr_store_run_list(st, &f, collect_id, &all)))
		goto out;
	if (!(*ids = malloc((all.n ? all.n : 1) * sizeof **ids))) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < all.n; i++) /* listed newest first */
		(*ids)[i] = strtoll(all.v[all.n - 1 - i], NULL, 10);
	*n = (int)all.n;
out:
	lr_strlist_release(&all);
	return rc;
}

/* DIR.tmp-PID becomes DIR; an old DIR goes only when labrun wrote it (it holds the marker). */
static int publish(const char *tmp, const char *dir)
{
	char marker[PATH_MAX * 2];
	struct stat sb;
	int rc;

	if (lstat(dir, &sb) == 0) {
		if ((rc = lr_path(marker, sizeof marker, "%s/" MARKER, dir)))
			return rc;
		if (!S_ISDIR(sb.st_mode) || access(marker, F_OK) != 0) {
			lr_error_set(LR_EINVAL,
				     "cannot write the site into '%s': it exists and labrun did not write it", dir);
			lr_error_hint("give -o a new directory, or remove '%s' yourself", dir);
			return LR_EINVAL;
		}
		if (lr_remove_tree(dir) != 0)
			return lr_error_set(LR_EIO, "cannot replace '%s': %s", dir, strerror(errno));
	}
	if (rename(tmp, dir) != 0)
		return lr_error_set(LR_EIO, "cannot write the site into '%s': %s", dir, strerror(errno));
	return 0;
}

/* The marker that lets a later build replace DIR: only a directory labrun wrote is ever removed. */
static int mark(const char *dir)
{
	char path[PATH_MAX * 2];
	FILE *f;
	int rc;

	if ((rc = lr_path(path, sizeof path, "%s/" MARKER, dir)))
		return rc;
	if (!(f = fopen(path, "w")) || fputs("a static site written by 'labrun site'\n", f) < 0 || fclose(f) != 0)
		return lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int cmd_site(const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist runs = { 0 }, issues = { 0 }, trust_files = { 0 };
	char outbuf[PATH_MAX], tmp[PATH_MAX];
	const char *out = "site";
	struct lr_store *st = NULL;
	struct lr_trust trust = { 0 };
	int64_t *ids = NULL;
	int rc, first, n = 0, progress = 0;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "run", &runs, "ID", "this run (a short id, uuid prefix, 'last' or 'last~N'); repeatable"),
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF",
			     "every run that is evidence for REF; repeatable"),
		CMD_NONEMPTY('o', "output", &out, "DIR", "the site's directory (default 'site')"),
		CMD_LIST(0, "trust", &trust_files, "FILE",
			 "also trust the keys of FILE when naming signers (repeatable)"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "site", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		goto done;
	if (strlen(out) >= sizeof outbuf) {
		rc = cmd_usage_error("site", "-o: the path is too long");
		goto done;
	}
	memcpy(outbuf, out, strlen(out) + 1);
	for (size_t len = strlen(outbuf);
	     len > 1 && outbuf[len - 1] == '/';) /* site/ is site: its sibling is written */
		outbuf[--len] = '\0';
	out = outbuf;
	if ((rc = cmd_trust_load(&trust, &trust_files, NULL)) ||
	    (rc = lr_path(tmp, sizeof tmp, "%s.tmp-%ld", out, (long)getpid()))) {
		rc = cmd_fail(rc);
		goto done;
	}
	if ((rc = cmd_store(&st, g)))
		goto done;
	cmd_progress_begin("labrun site", progress, 0);
	/* -o reports/site: reports/ is made too */
	if (!(rc = select_all(st, &runs, &issues, &ids, &n)) && !(rc = lr_mkdir_parents(tmp, 0755))) {
		if (mkdir(tmp, 0755) != 0)
			rc = lr_error_set(LR_EIO, "cannot make '%s': %s", tmp, strerror(errno));
		else if ((rc = lr_render_site_with(st, &(struct lr_site_opts){ &trust, NULL, NULL, lr_object_save },
						   ids, n, tmp)) ||
			 (rc = mark(tmp)) || (rc = publish(tmp, out)))
			lr_remove_tree(tmp);
	}
	cmd_progress_end();
	if (!rc)
		printf("wrote the site of %d run%s into '%s': open %s/index.html\n", n, n == 1 ? "" : "s", out, out);
	rc = rc ? cmd_fail(rc) : LR_EXIT_OK;
done:
	free(ids);
	lr_trust_release(&trust);
	lr_strlist_release(&runs);
	lr_strlist_release(&issues);
	lr_strlist_release(&trust_files);
	return rc;
}
