#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "evidence/archive.h"
#include "evidence/crate-run.h"
#include "evidence/manifest.h"
#include "evidence/pack.h"
#include "evidence/settings.h"
#include "store/archives.h"
#include "store/objects.h"

struct pack {
	struct lr_archive_writer *w;
	size_t prefix; /* length of the crate directory's path, with its '/' */
};

static int pack_file(void *arg, const char *full, const char *rel)
{
	struct pack *p = arg;

	(void)rel;
	return lr_archive_add_file(p->w, full + p->prefix, full);
}

int lr_evidence_archive(struct lr_store *st, const int64_t *runs, int n, const char *path, struct lr_crate_opts *co,
			int *placeholder)
{
	char *kept[3] = { NULL, NULL, NULL };
	char tmp[PATH_MAX], dir[PATH_MAX + 8];
	struct lr_archive_writer *w = NULL;
	char abs[PATH_MAX];
	int64_t held = 0;
	struct pack p;
	int rc;

	/* an archive that pruned logs now live in is never overwritten: they would be lost */
	if (realpath(path, abs) && (rc = lr_store_archive_holds(st, abs, &held)))
		return rc;
	if (held) {
		lr_error_set(LR_EREFUSED,
			     "refusing to overwrite archive '%s': %lld pruned log(s) of this store live only in it",
			     path, (long long)held);
		lr_error_hint("write the new archive under another name (-o FILE)");
		return LR_EREFUSED;
	}
	if ((rc = lr_temp_dir(tmp, sizeof tmp, "labrun-crate")))
		return rc;
	snprintf(dir, sizeof dir, "%s/crate", tmp);
	if ((rc = lr_crate_opts_settle(st, co, kept, placeholder)) || (rc = lr_crate_write(st, runs, n, dir, co)) ||
	    (rc = lr_archive_create(&w, path)))
		goto out;
	p.w = w;
	p.prefix = strlen(dir) + 1;
	if ((rc = lr_walk_files(dir, pack_file, &p)))
		lr_archive_abort(w);
	else
		rc = lr_archive_close(w);
out:
	lr_crate_opts_release(kept);
	lr_remove_tree(tmp);
	return rc;
}

/* sha256 -> archive member of each prunable log (one member per object). */
static int add_log(void *arg, const char *sha256, int64_t run, const char *role, const char *name)
{
	struct lr_kvlist *logs = arg;
	char member[4200];

	if (lr_kvlist_find(logs, sha256))
		return 0;
	return lr_kvlist_add(logs, sha256, lr_crate_artifact_path(member, sizeof member, run, role, name), NULL);
}

int lr_evidence_prune(struct lr_store *st, const int64_t *runs, int n, const char *path, size_t *objects,
		      long long *bytes)
{
	struct lr_kvlist logs = { 0 };
	char abs[PATH_MAX];
	int64_t freed;
	size_t i;
	int rc, members = 0;

	*objects = 0;
	*bytes = 0;
	if ((rc = lr_archive_verify(path, &members)))
		goto out;
	if (!realpath(path, abs)) {
		rc = lr_error_set(LR_EIO, "cannot resolve archive '%s': %s", path, strerror(errno));
		goto out;
	}
	if ((rc = lr_store_prunable_logs(st, runs, n, add_log, &logs)))
		goto out;
	for (i = 0; i < logs.n && !rc; i++)
		rc = lr_archive_read_member(abs, logs.v[i].value, logs.v[i].key, -1);
	if (rc || (rc = lr_store_mark_archived(st, abs, &logs)))
		goto out;
	/* the archive holds them now: a log that stays behind costs space, not evidence, so only what went counts */
	for (i = 0; i < logs.n; i++)
		if (!lr_obj_remove(lr_store_dir(st), logs.v[i].key, &freed))
			*bytes += freed;
	lr_error_clear();
	*objects = logs.n;
out:
	lr_kvlist_release(&logs);
	return rc;
}
