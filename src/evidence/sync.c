/* Push and pull: the order of the steps, so that each side is consistent at every moment. */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/progress.h"
#include "base/trust.h"
#include "evidence/sync.h"
#include "store/objects.h"

/* Objects first (each its own transaction), then the run that names them. */
/* The current error and its hint, as one refusal's detail for the caller's note. */
static const char *refusal(char *buf, size_t size)
{
	const char *hint = lr_error_hint_msg();

	lr_fmt_cut(buf, size, "%s%s%s", lr_error_msg(), hint && *hint ? "\nhint: " : "", hint ? hint : "");
	return buf;
}

static int push_one(struct lr_store *st, struct lr_remote *r, int64_t id, const char *host, lr_sync_fn note, void *arg,
		    struct lr_sync_stats *s)
{
	struct lr_bundle b;
	int rc, sent, outcome, has;
	size_t i;

	if ((rc = lr_store_run_bundle(st, id, &b))) {
		if (rc != LR_EINVAL &&
		    rc != LR_EREFUSED) /* still running, not UTF-8, or its rows changed: named, not sent */
			return rc;
		note(arg, "", LR_SYNC_SKIPPED, lr_error_msg());
		s->runs_skipped++;
		lr_error_clear();
		return 0;
	}
	/* a run the remote holds already needs none of its objects sent: put_run says present or refused */
	if ((rc = lr_remote_has_run(r, b.uuid, &has)))
		goto out;
	for (i = 0; i < b.objects.n && !has && !rc; i++) {
		int64_t size = strtoll(b.objects.v[i].value, NULL, 10);

		rc = lr_store_object_fetch(st, b.objects.v[i].key);
		if (!rc)
			rc = lr_remote_put_object(r, lr_store_dir(st), b.objects.v[i].key, size, &sent);
		lr_progress_step("", 0, 0); /* its bytes' progress, if it showed any, is over */
		if (rc)
			break;
		s->objects_moved += sent;
		s->objects_present += !sent;
		s->bytes_moved += sent ? size : 0;
	}
	if (!rc)
		rc = lr_remote_put_run(r, &b, host, &outcome);
	if (!rc) {
		note(arg, b.uuid, outcome == LR_PUSH_NEW ? LR_SYNC_PUSHED : LR_SYNC_PRESENT, NULL);
		s->runs_new += outcome == LR_PUSH_NEW;
		s->runs_present += outcome == LR_PUSH_PRESENT;
	} else if (rc == LR_EREFUSED) {
		char why[2048];

		note(arg, b.uuid, LR_SYNC_REFUSED, refusal(why, sizeof why));
		s->runs_refused++;
	}
out:
	lr_bundle_release(&b);
	return rc;
}

int lr_push(struct lr_store *st, struct lr_remote *r, const int64_t *ids, int n, lr_sync_fn note, void *arg,
	    struct lr_sync_stats *stats)
{
	struct lr_progress *progress;
	char host[256] = "unknown";
	int i, rc = 0;

	memset(stats, 0, sizeof *stats);
	if (gethostname(host, sizeof host - 1))
		snprintf(host, sizeof host, "unknown");
	progress = lr_progress_start("pushed", "runs", n);
	for (i = 0; i < n && (!rc || rc == LR_EREFUSED); i++) {
		int one = push_one(st, r, ids[i], host, note, arg, stats);

		if (one)
			rc = one;
		lr_progress_update(progress, i + 1);
	}
	lr_progress_stop(&progress);
	if (rc == LR_EREFUSED) {
		lr_error_set(LR_EREFUSED, "%d run%s refused by the remote: it holds their uuids with other content",
			     stats->runs_refused, stats->runs_refused == 1 ? " was" : "s were");
		lr_error_hint("a remote keeps a run as it was first pushed; a run amended since (a later ingest, "
			      "compare or gate) stays here: put the amendment in a run of its own and push that "
			      "(docs/remote.md)");
	}
	return rc;
}

struct pull {
	const struct lr_trust *trust;
	struct lr_store *st;
	struct lr_remote *r;
	struct lr_pull_origin origin;
	lr_sync_fn note;
	void *arg;
	struct lr_sync_stats *s;
	struct lr_strlist uuids;
	struct lr_strlist pulled; /* the runs this pull brought */
	int refused;
};

static int want_run(void *arg, const char *uuid, const char *sha256)
{
	(void)sha256;
	return lr_strlist_add(&((struct pull *)arg)->uuids, uuid);
}

static int fetch_objects(struct pull *p, const struct lr_bundle *b)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < b->objects.n && !rc; i++) {
		char *path = lr_obj_path(lr_store_dir(p->st), b->objects.v[i].key);
		struct stat sb;

		if (!path)
			return lr_error_set(LR_ENOMEM, "out of memory");
		if (!stat(path, &sb)) {
			p->s->objects_present++;
		} else if (!p->origin.lazy &&
			   !(rc = lr_remote_get_object(p->r, lr_store_dir(p->st), b->objects.v[i].key,
						       strtoll(b->objects.v[i].value, NULL, 10)))) {
			p->s->objects_moved++;
			p->s->bytes_moved += strtoll(b->objects.v[i].value, NULL, 10);
		}
		lr_progress_step("", 0, 0);
		free(path);
	}
	return rc;
}

/* A signed ledger entry of the bundle whose key is not trusted: the run is refused, named with the entry. */
static int untrusted(struct pull *p, const struct lr_bundle *b)
{
	const struct lr_trusted_key *k;
	char fpr[LR_SHA256_HEX], why[512];
	size_t i;

	for (i = 0; i < b->signers.n; i++) {
		if (lr_key_fingerprint(b->signers.v[i].value, fpr))
			continue;
		k = lr_trust_find(p->trust, fpr);
		if (k && (!k->public_key[0] || !strcmp(k->public_key, b->signers.v[i].value)))
			continue;
		snprintf(why, sizeof why,
			 "its ledger entry %s (run %s) is signed by key %.16s..., which is not among your "
			 "trusted keys (labrun key trust, or pull --trust FILE)",
			 b->signers.v[i].key, b->uuid, fpr);
		p->note(p->arg, b->uuid, LR_SYNC_REFUSED, why);
		return 1;
	}
	return 0;
}

/* One run, after the runs it points at (depth bounds a cycle no sound store has). */
static int pull_one(struct pull *p, const char *uuid, int depth)
{
	char *text = NULL, *sha = NULL, *by = NULL, *from = NULL, *here = NULL;
	struct lr_bundle b = { 0 };
	int64_t id;
	size_t i;
	int rc;

	if ((rc = lr_remote_get_run(p->r, uuid, &text, &sha, &by, &from)) == LR_EINVAL && !depth) {
		char why[2048]; /* over the bundle cap: this run is refused, nothing of it taken; the others come */

		p->note(p->arg, uuid, LR_SYNC_REFUSED, refusal(why, sizeof why));
		p->refused++;
		lr_error_clear();
		rc = 0;
		goto out;
	}
	if (rc || (rc = lr_store_uuid_find(p->st, uuid, &id, &here)))
		goto out;
	if (id) {
		if (strcmp(here, sha)) {
			p->note(p->arg, uuid, LR_SYNC_REFUSED, "this store holds that uuid with other content");
			p->refused++;
		} else if (!depth) {
			p->note(p->arg, uuid, LR_SYNC_PRESENT, NULL);
			p->s->runs_present++;
		}
		goto out;
	}
	if ((rc = lr_bundle_parse(&b, text, sha))) {
		lr_error_wrap("remote run %s", uuid);
		goto out;
	}
	if (untrusted(p, &b)) {
		p->refused++;
		goto out;
	}
	for (i = 0; i < b.needs.n && !rc; i++)
		rc = depth > 16 ? lr_error_set(LR_EINVAL, "run %s: its references go deeper than 16 runs", uuid)
				: pull_one(p, b.needs.v[i], depth + 1);
	p->origin.pushed_by = by;
	p->origin.pushed_from = from;
	if (!rc && !(rc = fetch_objects(p, &b)) && (rc = lr_store_run_adopt(p->st, &b, &p->origin, &id)) == LR_EINVAL) {
		/* another pull into this store may have brought it meanwhile: then it is simply here */
		free(here);
		here = NULL;
		if (!lr_store_uuid_find(p->st, uuid, &id, &here) && id && !strcmp(here, sha)) {
			lr_error_clear();
			rc = 0;
			p->note(p->arg, uuid, LR_SYNC_PRESENT, NULL);
			p->s->runs_present += !depth;
			goto out;
		}
	}
	if (!rc) {
		p->note(p->arg, uuid, LR_SYNC_PULLED, NULL);
		p->s->runs_new++;
		rc = lr_strlist_add(&p->pulled, uuid);
	}
out:
	lr_bundle_release(&b);
	free(text);
	free(sha);
	free(by);
	free(from);
	free(here);
	return rc;
}

/* A run that came unsigned from a host that signs its runs: named if this pull brought it. */
static int came_unsigned(void *arg, int64_t id, const char *uuid, const char *hostname, const char *signed_uuid)
{
	struct pull *p = arg;
	char why[512];

	(void)id;
	if (!lr_strlist_contains(&p->pulled, uuid))
		return 0;
	snprintf(why, sizeof why,
		 "it came without signatures, but host '%s' signs its runs (run %s, started before it, came signed): "
		 "its signatures were removed on the way, or it was recorded without the host's key",
		 hostname, signed_uuid);
	p->note(p->arg, uuid, LR_SYNC_UNSIGNED, why);
	return 0;
}

int lr_pull(struct lr_store *st, struct lr_remote *r, const char *name, const struct lr_remote_filter *f,
	    const struct lr_trust *trust, int lazy, lr_sync_fn note, void *arg, struct lr_sync_stats *stats)
{
	struct pull p = { .trust = trust,
			  .st = st,
			  .r = r,
			  .origin = { .remote = name, .lazy = lazy },
			  .note = note,
			  .arg = arg,
			  .s = stats };
	struct lr_progress *progress;
	size_t i;
	int rc;

	memset(stats, 0, sizeof *stats);
	rc = lr_remote_runs(r, f, want_run, &p);
	progress = rc ? NULL : lr_progress_start("pulled", "runs", (int64_t)p.uuids.n);
	for (i = 0; i < p.uuids.n && !rc; i++, lr_progress_update(progress, (int64_t)i)) {
		rc = pull_one(&p, p.uuids.v[i], 0);
		if (rc == LR_EIO) { /* this side could not take it (a full disk): the store is unusable for now */
			lr_error_wrap("cannot pull run %s from remote '%s' into this store", p.uuids.v[i], name);
			lr_error_hint("nothing of that run was stored; free space and pull again");
			rc = LR_ESTORE;
		} else if (rc == LR_EINVAL) { /* a bundle that does not hold: refused and named, the others go on */
			char why[2048];

			p.note(p.arg, p.uuids.v[i], LR_SYNC_REFUSED, refusal(why, sizeof why));
			p.refused++;
			rc = 0;
		}
	}
	lr_progress_stop(&progress);
	if (!rc && p.pulled.n)
		rc = lr_store_pulled_unsigned(st, came_unsigned, &p);
	stats->runs_refused = p.refused;
	lr_strlist_release(&p.uuids);
	lr_strlist_release(&p.pulled);
	if (!rc && p.refused)
		rc = lr_error_set(LR_EREFUSED, "%d run%s refused, each named above", p.refused,
				  p.refused == 1 ? " was" : "s were");
	return rc;
}
