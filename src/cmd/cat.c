#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "evidence/object.h"
#include "record/spool.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun cat RUN stdout|stderr|[ROLE:]NAME\n"
			    "\n"
			    "Write a run's log or artifact to standard output, byte for byte. NAME is the\n"
			    "artifact's name as 'labrun show' lists it; prefix the role (input:, output:,\n"
			    "log:, reference:) when two roles share a name. A running run's logs are read\n"
			    "as far as they have been written.\n";

/* Copy a file to stdout; 0 or LR_EIO. */
static int copy_out(const char *path)
{
	static char buf[1 << 16];
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			rc = lr_error_set(LR_EIO, "cannot write to standard output: %s", strerror(errno));
			break;
		}
	if (n < 0)
		rc = lr_error_set(LR_EIO, "cannot read '%s': %s", path, strerror(errno));
	close(fd);
	if (!rc && fflush(stdout) != 0 && errno != EPIPE)
		rc = lr_error_set(LR_EIO, "cannot write to standard output: %s", strerror(errno));
	return rc;
}

/* Pick the artifact 'want' ("stdout", "NAME" or "ROLE:NAME"); NULL with a message if none or ambiguous. */
static const struct lr_artifact *pick(const struct lr_run *r, const char *want)
{
	const struct lr_artifact *hit = NULL;
	const char *colon = strchr(want, ':'), *name = want;
	size_t i, rolelen = 0;
	int n = 0;

	if (colon) {
		rolelen = (size_t)(colon - want);
		name = colon + 1;
	}
	for (i = 0; i < r->nartifacts; i++) {
		const struct lr_artifact *a = &r->artifacts[i];

		if (colon && (strlen(a->role) != rolelen || strncmp(a->role, want, rolelen)))
			continue;
		if (strcmp(a->name, name))
			continue;
		hit = a;
		n++;
	}
	if (n > 1) {
		lr_error_set(LR_EINVAL, "artifact name '%s' of run %lld is ambiguous: several roles use it", want,
			     (long long)r->id);
		lr_error_hint("prefix the role, e.g. 'output:%s'", name);
		return NULL;
	}
	if (!n) {
		lr_error_set(LR_ENOTFOUND, "run %lld has no artifact '%s'", (long long)r->id, want);
		lr_error_hint("'labrun show %lld' lists its artifacts", (long long)r->id);
	}
	return hit;
}

int cmd_cat(const struct lr_global *g, int argc, char **argv)
{
	const struct lr_artifact *a = NULL;
	struct lr_object obj = { 0 };
	struct lr_store *st = NULL;
	struct lr_run r;
	char *path = NULL;
	int64_t id = 0;
	int rc, first;

	if ((rc = cmd_parse_plain("cat", usage, argc, argv, 2, 2, "RUN and stdout, stderr or an artifact name",
				  &first)))
		return rc;
	if ((rc = cmd_store(&st, g)))
		return rc;
	lr_run_init(&r);
	if ((rc = lr_store_run_resolve(st, argv[first], &id)) || (rc = lr_store_run_load(st, id, &r)))
		goto out;
	a = pick(&r, argv[first + 1]);
	if (!a && r.status == LR_RUNNING &&
	    (!strcmp(argv[first + 1], "stdout") || !strcmp(argv[first + 1], "stderr"))) {
		lr_error_clear();
		path = lr_spool_path(lr_store_dir(st), r.uuid, argv[first + 1]);
	} else if (!a && r.kind != LR_KIND_RECORD &&
		   (!strcmp(argv[first + 1], "stdout") || !strcmp(argv[first + 1], "stderr"))) {
		/* labrun itself ran these: nothing wrote a log that it could keep */
		rc = lr_error_set(LR_ENOTFOUND,
				  "run %lld has no %s log: labrun ran this %s run itself and stores its "
				  "measurements, not a log",
				  (long long)id, argv[first + 1], lr_run_kind_name(r.kind));
		lr_error_hint("'labrun show %lld' gives what it recorded, 'labrun report --run %lld' its tables",
			      (long long)id, (long long)id);
		goto out;
	} else if (!a) {
		rc = LR_ENOTFOUND; /* pick() set the message */
		goto out;
	} else if (!a->present) {
		rc = lr_error_set(LR_ENOTFOUND,
				  "artifact '%s' of run %lld has no content: it was missing when the run ended",
				  a->name, (long long)id);
		lr_error_hint("'labrun show %lld' gives the run's failure", (long long)id);
		goto out;
	} else {
		/* from its remote first when pulled lazily; from its archive when pruned */
		if ((rc = lr_object_find(st, a->sha256, LR_OBJECT_FETCH | LR_OBJECT_VERIFY, &obj))) {
			if (obj.where == LR_OBJECT_LOCAL) /* it no longer hashes to its name: never served */
				lr_error_wrap("cannot print '%s' of run %lld", a->name, (long long)id);
		} else if (obj.where == LR_OBJECT_ARCHIVED) {
			fflush(stdout);
			rc = lr_object_copy(&obj, STDOUT_FILENO);
		} else {
			rc = copy_out(obj.path);
		}
		goto hint;
	}
	/* the spool of a run still running */
	rc = path ? copy_out(path) : lr_error_set(LR_ENOMEM, "out of memory");
hint:
	if (rc == LR_EIO && a)
		lr_error_hint("'labrun fsck' lists every damaged object; restore the store from a copy");
out:
	free(path);
	lr_object_release(&obj);
	lr_run_release(&r);
	return rc ? cmd_fail(rc) : LR_EXIT_OK;
}
