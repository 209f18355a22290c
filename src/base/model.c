#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/list.h"
#include "base/model.h"

void lr_host_release(struct lr_host *h)
{
	free(h->hostname);
	free(h->os);
	free(h->kernel);
	free(h->arch);
	free(h->cpu_model);
	free(h->cpu_flags);
	memset(h, 0, sizeof *h);
}

int lr_host_fingerprint(const struct lr_host *h, char fp[LR_SHA256_HEX])
{
	char *text = NULL;
	int rc;

	if (asprintf(&text, "%s\n%s\n%s\n%s\n%s\n%s\n%lld\n%lld", h->hostname ? h->hostname : "", h->os ? h->os : "",
		     h->kernel ? h->kernel : "", h->arch ? h->arch : "", h->cpu_model ? h->cpu_model : "",
		     h->cpu_flags ? h->cpu_flags : "", (long long)h->cores, (long long)h->memory_bytes) < 0)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_sha256_buf(text, strlen(text), fp);
	free(text);
	return rc;
}

static const char *const kind_names[] = {
	[LR_KIND_RECORD] = "record", [LR_KIND_IMPORT] = "import",   [LR_KIND_EXPERIMENT] = "experiment",
	[LR_KIND_BENCH] = "bench",   [LR_KIND_COLLECT] = "collect",
};

const struct lr_enum_names lr_run_kinds = LR_ENUM_NAMES("run kind", kind_names);

LR_ENUM_DEFINE(lr_run_kind, enum lr_run_kind, lr_run_kinds)

static const char *const status_names[] = {
	[LR_RUNNING] = "running",     [LR_PASSED] = "passed",       [LR_FAILED] = "failed",
	[LR_CANCELLED] = "cancelled", [LR_ABANDONED] = "abandoned",
};

const struct lr_enum_names lr_statuses = LR_ENUM_NAMES("run status", status_names);

LR_ENUM_DEFINE(lr_status, enum lr_status, lr_statuses)

static const char *const entry_names[] = {
	[LR_ENTRY_FILE] = "file",
	[LR_ENTRY_SYMLINK] = "symlink",
	[LR_ENTRY_FOLLOWED] = "followed-symlink",
	[LR_ENTRY_DIRECTORY] = "directory",
};

const struct lr_enum_names lr_entry_kinds = LR_ENUM_NAMES("artifact entry kind", entry_names);

LR_ENUM_DEFINE(lr_entry_kind, enum lr_entry_kind, lr_entry_kinds)

void lr_run_init(struct lr_run *r)
{
	memset(r, 0, sizeof *r);
}

void lr_run_release(struct lr_run *r)
{
	size_t i;

	free(r->experiment);
	free(r->started_at);
	free(r->ended_at);
	free(r->failure);
	free(r->cwd);
	free(r->argv_json);
	free(r->labrun_version);
	free(r->note);
	lr_host_release(&r->host);
	free(r->source.repo_path);
	free(r->source.head);
	free(r->source.branch);
	for (i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].status);
	}
	free(r->files);
	lr_kvlist_release(&r->env);
	lr_kvlist_release(&r->binding);
	lr_kvlist_release(&r->geometry);
	lr_kvlist_release(&r->tools);
	lr_kvlist_release(&r->digests);
	lr_kvlist_release(&r->probes);
	lr_kvlist_release(&r->recorder);
	lr_strlist_release(&r->issues);
	for (i = 0; i < r->nartifacts; i++) {
		free(r->artifacts[i].role);
		free(r->artifacts[i].name);
		free(r->artifacts[i].target);
	}
	free(r->artifacts);
	for (i = 0; i < r->nmeasures; i++) {
		free(r->measures[i].name);
		free(r->measures[i].unit);
	}
	free(r->measures);
	for (i = 0; i < r->nsamples; i++) {
		free(r->samples[i].subject);
		free(r->samples[i].variant);
		free(r->samples[i].unit);
	}
	free(r->samples);
	for (i = 0; i < r->nchecks; i++) {
		free(r->checks[i].name);
		free(r->checks[i].detail);
	}
	free(r->checks);
	lr_leftovers_release(&r->left);
	lr_strlist_release(&r->secrets);
	lr_run_init(r);
}

int lr_leftovers_add(struct lr_leftovers *l, int cond, int seq, int64_t pid, const char *argv)
{
	struct lr_leftover x = { cond, seq, pid, strdup(argv ? argv : "") };

	if (!x.argv || LR_ALLOC_GROW(l->v, l->n + 1, l->cap)) {
		free(x.argv);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	l->v[l->n++] = x;
	return 0;
}

void lr_leftovers_release(struct lr_leftovers *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].argv);
	free(l->v);
	memset(l, 0, sizeof *l);
}

int lr_run_add_measure(struct lr_run *r, const char *name, double value, const char *unit, int modelled)
{
	struct lr_measure *m;

	if (LR_ALLOC_GROW(r->measures, r->nmeasures + 1, r->capmeasures))
		return LR_ENOMEM;
	m = &r->measures[r->nmeasures];
	m->name = strdup(name);
	m->unit = strdup(unit);
	if (!m->name || !m->unit) {
		free(m->name);
		free(m->unit);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	m->value = value;
	m->modelled = modelled;
	r->nmeasures++;
	return 0;
}

int lr_run_add_check(struct lr_run *r, const char *name, int64_t passed, int64_t total, const char *detail)
{
	struct lr_check c = { strdup(name), passed, total, detail ? strdup(detail) : NULL };

	if (!c.name || (detail && !c.detail) || LR_ALLOC_GROW(r->checks, r->nchecks + 1, r->capchecks)) {
		free(c.name);
		free(c.detail);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	r->checks[r->nchecks++] = c;
	return 0;
}

int lr_run_add_sample(struct lr_run *r, const char *subject, const char *variant, int rep, double value,
		      const char *unit)
{
	struct lr_sample *m;

	if (LR_ALLOC_GROW(r->samples, r->nsamples + 1, r->capsamples))
		return LR_ENOMEM;
	m = &r->samples[r->nsamples];
	m->subject = strdup(subject);
	m->variant = strdup(variant);
	m->unit = strdup(unit);
	if (!m->subject || !m->variant || !m->unit) {
		free(m->subject);
		free(m->variant);
		free(m->unit);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	m->rep = rep;
	m->value = value;
	r->nsamples++;
	return 0;
}

int lr_run_add_file(struct lr_run *r, const char *path, const char *status, const char *sha256, int64_t size)
{
	struct lr_srcfile *f;

	if (LR_ALLOC_GROW(r->files, r->nfiles + 1, r->capfiles))
		return LR_ENOMEM;
	f = &r->files[r->nfiles];
	memset(f, 0, sizeof *f);
	f->path = strdup(path);
	f->status = strdup(status);
	if (!f->path || !f->status) {
		free(f->path);
		free(f->status);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (sha256) {
		f->has_content = 1;
		memcpy(f->sha256, sha256, LR_SHA256_HEX);
		f->size = size;
	}
	r->nfiles++;
	return 0;
}

int lr_run_add_artifact(struct lr_run *r, const char *role, const char *name, const char *sha256, int64_t size)
{
	struct lr_artifact *a;

	if (LR_ALLOC_GROW(r->artifacts, r->nartifacts + 1, r->capartifacts))
		return LR_ENOMEM;
	a = &r->artifacts[r->nartifacts];
	memset(a, 0, sizeof *a);
	a->role = strdup(role);
	a->name = strdup(name);
	if (!a->role || !a->name) {
		free(a->role);
		free(a->name);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	if (sha256) {
		a->present = 1;
		memcpy(a->sha256, sha256, LR_SHA256_HEX);
		a->size = size;
	}
	r->nartifacts++;
	return 0;
}

int lr_run_artifact_kind(struct lr_run *r, enum lr_entry_kind kind, const char *target)
{
	struct lr_artifact *a = &r->artifacts[r->nartifacts - 1];

	a->kind = kind;
	if (target && !(a->target = strdup(target)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	return 0;
}

const struct lr_artifact *lr_run_artifact(const struct lr_run *r, const char *role, const char *name)
{
	size_t i;

	for (i = 0; i < r->nartifacts; i++)
		if (!strcmp(r->artifacts[i].role, role) && !strcmp(r->artifacts[i].name, name))
			return &r->artifacts[i];
	return NULL;
}
