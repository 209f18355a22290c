/* labrun site: the evidence as a static site in a directory of its own (src/report/site.c writes it). */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/lines.h"
#include "base/trust.h"
#include "base/walk.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/object.h"
#include "evidence/select.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun site [--issue REF | --run ID]... [-o DIR] [--trust FILE]... [--force]\n"
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
			    "is replaced only when labrun wrote it and it holds nothing labrun did not\n"
			    "write (--force: whatever else it holds).\n";

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

/* The marker's first line; the files the site wrote follow, one "SIZE PATH" (or "dir PATH") a line. */
#define MARKER_HEAD "a static site written by 'labrun site'; the files it wrote (bytes, path):\n"
#define MARKER_MAX  ((size_t)64 << 20)

/* One entry of a site's directory as the marker lists it, appended to the buffer at arg. */
static int list_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct stat sb;

	if (!strcmp(rel, MARKER))
		return 0;
	if (type == LR_WALK_FILE && lstat(full, &sb) == 0)
		lr_buf_addf(arg, "%lld %s\n", (long long)sb.st_size, rel);
	else
		lr_buf_addf(arg, "%s %s\n", type == LR_WALK_EMPTY_DIR ? "dir" : "other", rel);
	return lr_buf_error(arg);
}

/* What an old site's directory holds now, against the marker's list (both in lr_walk's name order). */
struct foreign {
	const char *listed; /* the marker's lines not yet matched */
	char first[PATH_MAX];
};

static int match_entry(void *arg, const char *full, const char *rel, enum lr_walk_type type)
{
	struct foreign *f = arg;
	struct lr_buf line = LR_BUF_INIT;
	const char *at, *next = NULL;
	int rc;

	if ((rc = list_entry(&line, full, rel, type)) || !line.len) {
		lr_buf_release(&line);
		return rc;
	}
	/* the marker was written from a walk of the same names: what was deleted is skipped, nothing else */
	for (at = f->listed; *at; at = next) {
		next = at + strcspn(at, "\n");
		next += *next == '\n';
		if (!strncmp(at, line.buf, line.len))
			break;
	}
	lr_buf_release(&line);
	if (*at) {
		f->listed = next;
		return 0;
	}
	snprintf(f->first, sizeof f->first, "%s", rel);
	return 1;
}

/* 0 when 'dir' holds only files its marker lists as written, unchanged in size; else the error. */
static int check_written(const char *dir, const char *marker)
{
	struct foreign f = { NULL, "" };
	char *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = lr_read_regular_text("site marker", marker, MARKER_MAX, &text, &len)))
		return rc;
	f.listed = strncmp(text, MARKER_HEAD, strlen(MARKER_HEAD)) ? "" : text + strlen(MARKER_HEAD);
	rc = lr_walk(dir, match_entry, &f);
	free(text);
	if (rc == 1) {
		lr_error_set(LR_EINVAL,
			     "cannot write the site into '%s': it holds '%s', which 'labrun site' did not write "
			     "(or which changed since), and replacing the directory would delete it",
			     dir, f.first);
		lr_error_hint("move your files out of '%s' or give -o another directory; --force replaces it "
			      "with everything in it",
			      dir);
		return LR_EINVAL;
	}
	return rc;
}

/*
 * DIR.tmp-PID becomes DIR; an old DIR goes only when labrun wrote it (it
 * holds the marker) and holds nothing else than the files the marker lists,
 * unless 'force'.
 */
static int publish(const char *tmp, const char *dir, int force)
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
		if (!force && (rc = check_written(dir, marker)))
			return rc;
		if (lr_remove_tree(dir) != 0)
			return lr_error_set(LR_EIO, "cannot replace '%s': %s", dir, strerror(errno));
	}
	if (rename(tmp, dir) != 0)
		return lr_error_set(LR_EIO, "cannot write the site into '%s': %s", dir, strerror(errno));
	return 0;
}

/*
 * The marker that lets a later build replace DIR: only a directory labrun
 * wrote is ever removed, and only while it holds nothing but what it wrote.
 */
static int mark(const char *dir)
{
	struct lr_buf list = LR_BUF_INIT;
	char path[PATH_MAX * 2];
	FILE *f = NULL;
	int rc;

	lr_buf_adds(&list, MARKER_HEAD);
	if ((rc = lr_path(path, sizeof path, "%s/" MARKER, dir)) || (rc = lr_walk(dir, list_entry, &list)) ||
	    (rc = lr_buf_error(&list)))
		goto out;
	if (!(f = fopen(path, "w")) || fwrite(list.buf, 1, list.len, f) != list.len)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
	if (f && fclose(f) != 0 && !rc)
		rc = lr_error_set(LR_EIO, "cannot write '%s': %s", path, strerror(errno));
out:
	lr_buf_release(&list);
	return rc;
}

int cmd_site(const struct lr_global *g, int argc, char **argv)
{
	struct lr_strlist runs = { 0 }, issues = { 0 }, trust_files = { 0 };
	char outbuf[PATH_MAX], tmp[PATH_MAX];
	const char *out = "site";
	struct lr_store *st = NULL;
	struct lr_trust trust = { 0 };
	int64_t *ids = NULL;
	int rc, first, n = 0, progress = 0, force = 0;
	const struct cmd_opt opts[] = {
		CMD_LIST(0, "run", &runs, "ID", "this run (a short id, uuid prefix, 'last' or 'last~N'); repeatable"),
		CMD_CALLBACK(0, "issue", &issues, cmd_opt_issues, "REF",
			     "every run that is evidence for REF; repeatable"),
		CMD_NONEMPTY('o', "output", &out, "DIR", "the site's directory (default 'site')"),
		CMD_LIST(0, "trust", &trust_files, "FILE",
			 "also trust the keys of FILE when naming signers (repeatable)"),
		CMD_BOOL(0, "force", &force,
			 "replace DIR even when it holds files 'labrun site' did not write (they are deleted)"),
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
			 (rc = mark(tmp)) || (rc = publish(tmp, out, force)))
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
