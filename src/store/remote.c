/* A remote of either kind: the one picked by its URI, called through its table (remote-int.h). */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "store/remote-int.h"
#include "store/s3.h"

int lr_remote_open(struct lr_remote **out, const char *name, const char *uri, const char *objects, int for_init)
{
	int rc;

	if (!strncmp(uri, "s3://", 5))
		return lr_remote_s3_open(out, name, uri, for_init);
	if ((rc = lr_remote_pg_open(out, name, uri, for_init)) || !objects)
		return rc;
	if (!((*out)->objects_uri = strdup(objects)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	else if (!(rc = lr_s3_open(&(*out)->objects, name, objects)))
		rc = lr_s3_check((*out)->objects);
	if (rc) {
		lr_error_wrap("the objects of remote '%s'", name);
		lr_remote_free(*out);
		*out = NULL;
	}
	return rc;
}

void lr_remote_free(struct lr_remote *r)
{
	if (!r)
		return;
	lr_s3_free(r->objects);
	free(r->objects_uri);
	r->ops->free(r);
}

int lr_remote_init(struct lr_remote *r, int *applied, int *version)
{
	return r->ops->init(r, applied, version);
}

int lr_remote_put_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size, int *sent)
{
	return r->ops->put_object(r, store_dir, sha256, size, sent);
}

int lr_remote_has_run(struct lr_remote *r, const char *uuid, int *has)
{
	return r->ops->has_run(r, uuid, has);
}

int lr_remote_put_run(struct lr_remote *r, const struct lr_bundle *b, const char *from_host, int *outcome)
{
	return r->ops->put_run(r, b, from_host, outcome);
}

int lr_remote_runs(struct lr_remote *r, const struct lr_remote_filter *f, lr_remote_run_fn fn, void *arg)
{
	for (size_t i = 0; f->uuids && i < f->uuids->n; i++) {
		const char *u = f->uuids->v[i];

		if (strspn(u, "0123456789abcdef-") != strlen(u) || strlen(u) < 4 || strlen(u) > 36) {
			lr_error_set(LR_EINVAL, "'%s' is not a run uuid or a prefix of one (4 to 36 of 0-9, a-f, '-')",
				     u);
			return LR_EINVAL;
		}
	}
	return r->ops->runs(r, f, fn, arg);
}

int lr_remote_get_run(struct lr_remote *r, const char *uuid, char **text, char **sha256, char **pushed_by,
		      char **pushed_from)
{
	return r->ops->get_run(r, uuid, text, sha256, pushed_by, pushed_from);
}

int lr_remote_get_object(struct lr_remote *r, const char *store_dir, const char *sha256, int64_t size)
{
	return r->ops->get_object(r, store_dir, sha256, size);
}
