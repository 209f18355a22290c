#include "config.h"
#include "base/system.h"

#include "record/libgit2.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/walk.h"
#include "record/gitsrc.h"
#include "record/redact.h"
#include "store/hashcache.h"

/*
 * libgit2's life. git_libgit2_init() costs about 3 ms here, most of it the TLS
 * backend (mbedTLS in Debian's libgit2 1.5) parsing the system's CA bundle,
 * although labrun never touches the network, and that libgit2 offers no way
 * to skip it (its git_libgit2_opts can set the CA locations only after init
 * has loaded the default ones). So it is initialised on first use, and only
 * commands that read sources (or create a store inside a work tree) pay for
 * it. It is paid, not avoided: replacing mbedTLS's loader in the executable
 * would replace it for every library of the process (a libcurl built on
 * mbedTLS would lose its trust store), docs/design.md "Start-up". (Initialising it
 * early on a second thread was tried: on two CPUs record got slower, not faster.)
 */
static int ready; /* git_libgit2_init has returned; a shutdown is owed */

/*
 * Whether cwd can be inside a work tree at all: a '.git' (a directory, or
 * the file of a linked work tree or submodule) in it or above it. Without
 * one, libgit2's discovery (flags 0: no GIT_DIR from the environment) finds
 * no work tree either, and loading and initialising it (about 3 ms, most of
 * a 'record -- true' outside a repository) is skipped.
 */
static int may_be_worktree(const char *cwd)
{
	char dir[PATH_MAX], probe[PATH_MAX + 8];
	struct stat st;
	char *slash;

	if (!realpath(cwd, dir))
		return 1; /* let libgit2 say */
	for (;;) {        /* dir, then each parent; "" is the root */
		if (!strcmp(dir, "/"))
			dir[0] = '\0';
		snprintf(probe, sizeof probe, "%s/.git", dir);
		if (lstat(probe, &st) == 0)
			return 1;
		if (!dir[0] || !(slash = strrchr(dir, '/')))
			return 0;
		*slash = '\0';
	}
}

/* libgit2 loaded and initialised; 0, or an error when it cannot be loaded. */
static int git_ready(void)
{
	int rc;

	if (!ready && (rc = lr_libgit2_load()))
		return rc;
	if (!ready)
		git_libgit2_init();
	ready = 1;
	return 0;
}

void lr_git_stop(void)
{
	if (ready)
		git_libgit2_shutdown();
	ready = 0;
}

static int git_fail(const char *what, const char *where)
{
	const git_error *e = git_error_last();

	return lr_error_set(LR_EIO, "cannot %s of '%s': %s", what, where, e ? e->message : "libgit2 error");
}

static const char *status_word(unsigned s)
{
	if (s & GIT_STATUS_CONFLICTED)
		return "conflicted";
	if (s & GIT_STATUS_WT_NEW)
		return (s & GIT_STATUS_INDEX_NEW) ? "added" : "untracked";
	if (s & (GIT_STATUS_INDEX_DELETED | GIT_STATUS_WT_DELETED))
		return "deleted";
	if (s & (GIT_STATUS_INDEX_RENAMED | GIT_STATUS_WT_RENAMED))
		return "renamed";
	if (s & (GIT_STATUS_INDEX_TYPECHANGE | GIT_STATUS_WT_TYPECHANGE))
		return "typechange";
	if (s & GIT_STATUS_INDEX_NEW)
		return "added";
	return "modified";
}

static int diff_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l, void *arg)
{
	struct lr_sha256 *hash = arg;
	char origin = l->origin;

	if (origin == GIT_DIFF_LINE_CONTEXT || origin == GIT_DIFF_LINE_ADDITION || origin == GIT_DIFF_LINE_DELETION)
		lr_sha256_update(hash, &origin, 1);
	lr_sha256_update(hash, l->content, l->content_len);
	return 0;
}

/* Is 'rel' (work-tree relative) inside the excluded directory? workdir + rel, read in place: never cut. */
static int excluded(const char *workdir, const char *rel, const char *exclude)
{
	size_t n, w = strlen(workdir);
	char next;

	if (!exclude)
		return 0;
	n = strlen(exclude);
	if (strncmp(workdir, exclude, n < w ? n : w) || (n > w && strncmp(rel, exclude + w, n - w)))
		return 0;
	next = n < w ? workdir[n] : rel[n - w]; /* the byte after the match */
	return next == '/' || next == '\0';
}

int lr_git_worktree(char **out, const char *cwd)
{
	git_buf root = { 0 };
	git_repository *repo = NULL;
	int rc;
	size_t n;

	*out = NULL;
	if (!may_be_worktree(cwd))
		return 0;
	if ((rc = git_ready()))
		return rc;
	if (git_repository_discover(&root, cwd, 0, NULL) != 0)
		return 0;
	if (git_repository_open(&repo, root.ptr) == 0 && !git_repository_is_bare(repo)) {
		*out = strdup(git_repository_workdir(repo));
		if (!*out)
			rc = lr_error_set(LR_ENOMEM, "out of memory");
		for (n = *out ? strlen(*out) : 0; n > 1 && (*out)[n - 1] == '/'; n--)
			(*out)[n - 1] = '\0';
	}
	git_repository_free(repo);
	git_buf_dispose(&root);
	return rc;
}

/*
 * The sha256 of 'path' from the store's cache when it is unchanged, else
 * read (and queued to remember, unless the path holds a secret value: the
 * cache is outside the run's scrubbing, so such a path is never stored).
 */
static int file_hash(const struct lr_run *run, struct lr_store *st, const char *path, const struct stat *sb,
		     char sha[LR_SHA256_HEX], struct lr_hash_entry **queue, size_t *nqueue)
{
	struct lr_hash_entry *q;
	int64_t size;
	int rc, secret = 0;

	if (st && (rc = lr_store_hash_cached(st, path, sb, sha)))
		return rc > 0 ? 0 : rc;
	if ((rc = lr_sha256_file(path, sha, &size)) || !st ||
	    (rc = lr_text_holds_secret(&run->secrets, path, &secret)) || secret)
		return rc;
	if (!(q = realloc(*queue, (*nqueue + 1) * sizeof **queue)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	*queue = q;
	q += (*nqueue)++;
	q->sb = *sb;
	memcpy(q->sha256, sha, LR_SHA256_HEX);
	return (q->path = strdup(path)) ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

/*
 * Every modified, staged or untracked file outside 'exclude_dir': its status,
 * sha256 and size; unchanged files' hashes come from the store's cache.
 * *tracked: whether any entry, excluded or not, is more than untracked, that
 * is whether the patch of tracked changes can be other than empty.
 */
static int capture_changed_files(struct lr_run *run, struct lr_store *st, git_repository *repo, const char *workdir,
				 const char *exclude_dir, int *tracked)
{
	git_status_list *status = NULL;
	git_status_options sopts;
	struct lr_buf path = LR_BUF_INIT;
	char sha[LR_SHA256_HEX];
	struct lr_hash_entry *queue = NULL;
	size_t i, n, nqueue = 0;
	int rc = 0;

	git_status_options_init(&sopts, GIT_STATUS_OPTIONS_VERSION);
	sopts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	sopts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		      GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;
	if (git_status_list_new(&status, repo, &sopts) < 0)
		return git_fail("read the status", workdir);
	n = git_status_list_entrycount(status);
	for (i = 0; i < n && !rc; i++) {
		const git_status_entry *e = git_status_byindex(status, i);
		const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
		const char *rel;
		struct stat sb;

		if (!d || e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
			continue;
		if (e->status & ~(unsigned)GIT_STATUS_WT_NEW)
			*tracked = 1;
		rel = d->new_file.path ? d->new_file.path : d->old_file.path;
		if (excluded(workdir, rel, exclude_dir))
			continue;
		run->source.dirty = 1;
		lr_buf_reset(&path);
		lr_buf_addf(&path, "%s%s", workdir, rel); /* whole: a path cut short is another file */
		if ((rc = lr_buf_error(&path)))
			break;
		if (lstat(path.buf, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if ((rc = file_hash(run, st, path.buf, &sb, sha, &queue, &nqueue)))
				break;
			rc = lr_run_add_file(run, rel, status_word(e->status), sha, (int64_t)sb.st_size);
		} else {
			rc = lr_run_add_file(run, rel, status_word(e->status), NULL, 0);
		}
	}
	git_status_list_free(status);
	lr_buf_release(&path);
	if (!rc && nqueue)
		rc = lr_store_hash_remember(st, queue, nqueue);
	for (i = 0; i < nqueue; i++)
		free(queue[i].path);
	free(queue);
	return rc;
}

/* HEAD's commit and branch (an unborn branch has a name and no commit), and its tree (*tree NULL: none). */
static int capture_head(struct lr_run *run, git_repository *repo, const char *workdir, git_reference **head,
			git_object **tree)
{
	git_reference *sym = NULL;
	char oid[GIT_OID_HEXSZ + 1];
	int err = git_repository_head(head, repo);

	if (err == 0) {
		git_oid_tostr(oid, sizeof oid, git_reference_target(*head));
		run->source.head = strdup(oid);
		if (git_reference_is_branch(*head))
			run->source.branch = strdup(git_reference_shorthand(*head));
		return git_reference_peel(tree, *head, GIT_OBJECT_TREE) < 0 ? git_fail("read the HEAD tree", workdir)
									    : 0;
	}
	if (err != GIT_EUNBORNBRANCH && err != GIT_ENOTFOUND)
		return git_fail("read HEAD", workdir);
	if (git_reference_lookup(&sym, repo, "HEAD") == 0 && git_reference_type(sym) == GIT_REFERENCE_SYMBOLIC) {
		const char *t = git_reference_symbolic_target(sym);

		if (!strncmp(t, "refs/heads/", 11))
			run->source.branch = strdup(t + 11);
	}
	git_reference_free(sym);
	return 0;
}

int lr_git_capture(struct lr_run *run, struct lr_store *st, const char *cwd, const char *exclude_dir)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_object *tree = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts;
	struct lr_sha256 hash = { 0 };
	char exclude[PATH_MAX];
	const char *workdir;
	int rc, err, tracked = 0;

	if (!may_be_worktree(cwd))
		return 0;
	if ((rc = git_ready()))
		return rc;

	if (exclude_dir && realpath(exclude_dir, exclude))
		exclude_dir = exclude;
	else
		exclude_dir = NULL;
	err = git_repository_open_ext(&repo, cwd, 0, NULL);
	if (err == GIT_ENOTFOUND)
		return 0;
	if (err < 0)
		return git_fail("open the git repository", cwd);
	workdir = git_repository_workdir(repo);
	if (!workdir) /* bare: no sources to hash */
		goto out;
	run->source.present = 1;
	run->source.repo_path = strdup(workdir);
	if (run->source.repo_path && strlen(run->source.repo_path) > 1 &&
	    run->source.repo_path[strlen(run->source.repo_path) - 1] == '/')
		run->source.repo_path[strlen(run->source.repo_path) - 1] = '\0';

	if ((rc = capture_head(run, repo, workdir, &head, &tree)))
		goto out;
	if ((rc = capture_changed_files(run, st, repo, workdir, exclude_dir, &tracked)))
		goto out;

	/*
	 * The patch of tracked changes; untracked files enter by path and hash
	 * below, not content. Status has just compared HEAD, index and work tree
	 * with the same options: when it saw no tracked change the patch is
	 * empty, and computing it (half a millisecond on an empty tree) is skipped.
	 */
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.flags = GIT_DIFF_SHOW_BINARY | GIT_DIFF_IGNORE_SUBMODULES;
	if (tracked && git_diff_tree_to_workdir_with_index(&diff, repo, (git_tree *)tree, &dopts) < 0) {
		rc = git_fail("compute the diff", workdir);
		goto out;
	}
	if ((rc = lr_sha256_init(&hash)))
		goto out;
	if (tracked && git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, diff_line, &hash) < 0) {
		lr_sha256_release(&hash);
		rc = git_fail("hash the diff", workdir);
		goto out;
	}
	for (size_t i = 0; i < run->nfiles; i++)
		if (!strcmp(run->files[i].status, "untracked")) {
			lr_sha256_update(&hash, "untracked", 10);
			lr_sha256_update(&hash, run->files[i].path, strlen(run->files[i].path) + 1);
			lr_sha256_update(&hash, run->files[i].sha256, strlen(run->files[i].sha256) + 1);
		}
	lr_sha256_final(&hash, run->source.diff_sha256);
	if (!run->source.repo_path)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
out:
	git_diff_free(diff);
	git_object_free(tree);
	git_reference_free(head);
	git_repository_free(repo);
	return rc;
}

static int add_external(void *arg, const char *full, const char *rel)
{
	struct lr_run *run = arg;
	char abs[PATH_MAX], sha[LR_SHA256_HEX];
	int64_t size = 0;
	int rc;

	if (!realpath(full, abs))
		return lr_error_set(LR_EIO, "cannot resolve source '%s': %s", full, strerror(errno));
	if ((rc = lr_sha256_file(full, sha, &size)))
		return rc;
	for (size_t i = 0; i < run->nfiles; i++)
		if (!strcmp(run->files[i].path, abs))
			return 0; /* given twice */
	return lr_run_add_file(run, abs, "external", sha, size);
}

int lr_source_add_external(struct lr_run *run, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		lr_error_set(LR_EINVAL, "cannot hash source '%s': %s", path, strerror(errno));
		lr_error_hint("--source takes an existing file or directory");
		return LR_EINVAL;
	}
	return lr_walk_files(path, add_external, run);
}

/*
 * Work-tree path 'rel' as seen from 'cwd' ("sub/x" from the root, "x" from
 * sub/, "../x" from a sibling), as a scan of PATHs names it: fingerprints
 * hash the name, so a baseline written by 'scan .' holds for --changed.
 */
static int relative_to(char *buf, size_t size, const char *workdir, const char *cwd, const char *rel)
{
	char w[PATH_MAX], c[PATH_MAX], sub[PATH_MAX];
	size_t wl, n;
	int up = 0;

	if (!realpath(workdir, w) || !realpath(cwd, c))
		return lr_path(buf, size, "%s%s", workdir, rel);
	wl = strlen(w);
	if (strncmp(c, w, wl) || (c[wl] && c[wl] != '/'))
		return lr_path(buf, size, "%s/%s", w, rel);
	snprintf(sub, sizeof sub, "%s", c[wl] ? c + wl + 1 : "");
	for (;;) { /* climb from cwd until 'rel' is below it */
		char *slash;

		n = strlen(sub);
		if (!n || (!strncmp(rel, sub, n) && rel[n] == '/'))
			break;
		up++;
		if ((slash = strrchr(sub, '/')))
			*slash = '\0';
		else
			sub[0] = '\0';
	}
	for (n = n ? n + 1 : 0, wl = 0; up-- > 0 && wl + 3 < size; wl += 3)
		memcpy(buf + wl, "../", 3);
	return lr_path(buf + wl, size - wl, "%s", rel + n);
}

int lr_git_changed(struct lr_strlist *out, const char *cwd, const char *rev)
{
	git_diff_options dopts;
	git_buf root = { 0 };
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_diff *diff = NULL;
	char path[PATH_MAX];
	size_t i;
	int rc;

	if ((rc = git_ready()))
		return rc;

	if (git_repository_discover(&root, cwd, 0, NULL) != 0 || git_repository_open(&repo, root.ptr) != 0 ||
	    git_repository_is_bare(repo)) {
		rc = lr_error_set(LR_EINVAL, "cannot scan changes against '%s': '%s' is not in a git work tree", rev,
				  cwd);
		lr_error_hint("run it inside the repository, or scan paths instead");
		goto out;
	}
	if (git_revparse_single(&obj, repo, rev) != 0 ||
	    git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) != 0) {
		rc = lr_error_set(LR_EINVAL, "cannot scan changes against '%s': no such revision", rev);
		lr_error_hint("name a commit, branch or tag, e.g. --changed HEAD~1 or --changed origin/main");
		goto out;
	}
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &dopts) != 0) {
		rc = git_fail("diff the work tree", git_repository_workdir(repo));
		goto out;
	}
	for (i = 0; i < git_diff_num_deltas(diff) && !rc; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED)
			continue;
		if (!(rc = relative_to(path, sizeof path, git_repository_workdir(repo), cwd, d->new_file.path)))
			rc = lr_strlist_add(out, path);
	}
out:
	git_diff_free(diff);
	git_tree_free(tree);
	git_object_free(obj);
	git_repository_free(repo);
	git_buf_dispose(&root);
	return rc;
}
