#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/model.h"

char *lr_strdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Grow an array of 'size'-byte elements to hold n+1; 0 or LR_ENOMEM. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*v, ncap * size);
	if (!p)
		return lr_error_set(LR_ENOMEM, "out of memory");
	*v = p;
	*cap = ncap;
	return 0;
}

int lr_kvlist_add(struct lr_kvlist *l, const char *key, const char *value, const char *tag)
{
	struct lr_kv *kv;

	if (grow((void **)&l->v, &l->cap, l->n, sizeof *l->v))
		return LR_ENOMEM;
	kv = &l->v[l->n];
	kv->key = strdup(key);
	kv->value = strdup(value);
	kv->tag = lr_strdup0(tag);
	if (!kv->key || !kv->value || (tag && !kv->tag)) {
		free(kv->key);
		free(kv->value);
		free(kv->tag);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	l->n++;
	return 0;
}

struct lr_kv *lr_kvlist_find(const struct lr_kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

int lr_kvlist_set(struct lr_kvlist *l, const char *key, const char *value, const char *tag)
{
	struct lr_kv *kv = lr_kvlist_find(l, key);
	char *v, *t;

	if (!kv)
		return lr_kvlist_add(l, key, value, tag);
	v = strdup(value);
	t = lr_strdup0(tag);
	if (!v || (tag && !t)) {
		free(v);
		free(t);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	free(kv->value);
	free(kv->tag);
	kv->value = v;
	kv->tag = t;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void lr_ids_sort_unique(int64_t *v, int *n)
{
	int i, m = 0;

	qsort(v, (size_t)*n, sizeof *v, cmp_id);
	for (i = 0; i < *n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	*n = m;
}

void lr_kvlist_release(struct lr_kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].tag);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

int lr_strlist_add(struct lr_strlist *l, const char *s)
{
	if (grow((void **)&l->v, &l->cap, l->n, sizeof *l->v))
		return LR_ENOMEM;
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return lr_error_set(LR_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

int lr_strlist_contains(const struct lr_strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

void lr_strlist_release(struct lr_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

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

static const char *const kind_names[] = {
	[LR_KIND_RECORD] = "record",
	[LR_KIND_IMPORT] = "import",
	[LR_KIND_EXPERIMENT] = "experiment",
	[LR_KIND_BENCH] = "bench",
};

const char *lr_run_kind_name(enum lr_run_kind k)
{
	return kind_names[k];
}

int lr_run_kind_parse(const char *s)
{
	size_t i;

	for (i = 0; s && i < sizeof kind_names / sizeof kind_names[0]; i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -1;
}

static const char *const status_names[] = {
	[LR_RUNNING] = "running",
	[LR_PASSED] = "passed",
	[LR_FAILED] = "failed",
	[LR_CANCELLED] = "cancelled",
	[LR_ABANDONED] = "abandoned",
};

const char *lr_status_name(enum lr_status s)
{
	return status_names[s];
}

int lr_status_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
		if (!strcmp(s, status_names[i]))
			return (int)i;
	return -1;
}

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
	lr_strlist_release(&r->secrets);
	lr_run_init(r);
}

int lr_run_add_measure(struct lr_run *r, const char *name, double value, const char *unit, int modelled)
{
	struct lr_measure *m;

	if (grow((void **)&r->measures, &r->capmeasures, r->nmeasures, sizeof *r->measures))
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

int lr_run_add_file(struct lr_run *r, const char *path, const char *status,
		    const char *sha256, int64_t size)
{
	struct lr_srcfile *f;

	if (grow((void **)&r->files, &r->capfiles, r->nfiles, sizeof *r->files))
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

int lr_run_add_artifact(struct lr_run *r, const char *role, const char *name,
			const char *sha256, int64_t size)
{
	struct lr_artifact *a;

	if (grow((void **)&r->artifacts, &r->capartifacts, r->nartifacts, sizeof *r->artifacts))
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

char *lr_now_iso(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[40];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	return strdup(buf);
}

double lr_monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
