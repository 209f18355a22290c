#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "experiment/replay.h"

static int diff_str(lr_drift_fn fn, void *arg, const char *what, const char *key, const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b))) {
		fn(arg, what, key, a ? a : "-", b ? b : "-");
		return 1;
	}
	return 0;
}

static int diff_int(lr_drift_fn fn, void *arg, const char *what, const char *key, long long a, long long b)
{
	char x[32], y[32];

	if (a == b)
		return 0;
	snprintf(x, sizeof x, "%lld", a);
	snprintf(y, sizeof y, "%lld", b);
	fn(arg, what, key, x, y);
	return 1;
}

/* Every key of either list whose value differs. */
static int diff_kvs(lr_drift_fn fn, void *arg, const char *what, const struct lr_kvlist *a, const struct lr_kvlist *b)
{
	size_t i;
	int n = 0;

	for (i = 0; i < a->n; i++) {
		const struct lr_kv *o = lr_kvlist_find(b, a->v[i].key);

		n += diff_str(fn, arg, what, a->v[i].key, a->v[i].value, o ? o->value : NULL);
	}
	for (i = 0; i < b->n; i++)
		if (!lr_kvlist_find(a, b->v[i].key))
			n += diff_str(fn, arg, what, b->v[i].key, NULL, b->v[i].value);
	return n;
}

static const char *file_sha(const struct lr_run *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].path, path))
			return r->files[i].has_content ? r->files[i].sha256 : "(deleted)";
	return NULL;
}

int lr_run_drift(const struct lr_run *a, const struct lr_run *b, lr_drift_fn fn, void *arg)
{
	int n = 0;
	size_t i;

	/* sources */
	n += diff_int(fn, arg, "source", "in a git work tree", a->source.present, b->source.present);
	if (a->source.present && b->source.present) {
		n += diff_str(fn, arg, "source", "HEAD", a->source.head, b->source.head);
		n += diff_str(fn, arg, "source", "branch", a->source.branch, b->source.branch);
		n += diff_int(fn, arg, "source", "dirty", a->source.dirty, b->source.dirty);
		n += diff_str(fn, arg, "source", "diff sha256", a->source.diff_sha256, b->source.diff_sha256);
	}
	for (i = 0; i < a->nfiles; i++)
		n += diff_str(fn, arg, "source file", a->files[i].path, file_sha(a, a->files[i].path),
			      file_sha(b, a->files[i].path));
	for (i = 0; i < b->nfiles; i++)
		if (!file_sha(a, b->files[i].path))
			n += diff_str(fn, arg, "source file", b->files[i].path, NULL, file_sha(b, b->files[i].path));
	/* where and with what */
	n += diff_kvs(fn, arg, "binding", &a->binding, &b->binding);
	n += diff_kvs(fn, arg, "geometry", &a->geometry, &b->geometry);
	n += diff_kvs(fn, arg, "tool", &a->tools, &b->tools);
	n += diff_str(fn, arg, "host", "hostname", a->host.hostname, b->host.hostname);
	n += diff_str(fn, arg, "host", "os", a->host.os, b->host.os);
	n += diff_str(fn, arg, "host", "kernel", a->host.kernel, b->host.kernel);
	n += diff_str(fn, arg, "host", "arch", a->host.arch, b->host.arch);
	n += diff_str(fn, arg, "host", "cpu model", a->host.cpu_model, b->host.cpu_model);
	n += diff_str(fn, arg, "host", "cpu flags", a->host.cpu_flags, b->host.cpu_flags);
	n += diff_int(fn, arg, "host", "cores", a->host.cores, b->host.cores);
	n += diff_int(fn, arg, "host", "memory bytes", a->host.memory_bytes, b->host.memory_bytes);
	n += diff_str(fn, arg, "labrun", "version", a->labrun_version, b->labrun_version);
	return n;
}

int lr_experiment_compare(struct lr_store *st, int64_t a, int64_t b, int ncond, int narm,
			  struct lr_cond_compare *out)
{
	char *ha = calloc((size_t)ncond * (size_t)narm, 65), *hb = calloc((size_t)ncond * (size_t)narm, 65);
	double ta[2048], tb[2048];
	int c, k, na, nb, rc = 0;

	if (!ha || !hb) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = lr_store_parity_hashes(st, a, ncond, narm, ha)) || (rc = lr_store_parity_hashes(st, b, ncond, narm, hb)))
		goto out;
	for (c = 0; c < ncond; c++) {
		struct lr_cond_compare *o = &out[c];

		memset(o, 0, sizeof *o);
		o->condition = c;
		o->first_arm = -1;
		for (k = 0; k < narm; k++) {
			const char *x = ha + ((size_t)c * (size_t)narm + (size_t)k) * 65;
			const char *y = hb + ((size_t)c * (size_t)narm + (size_t)k) * 65;

			if (!x[0] || !y[0] || strcmp(x, y)) {
				o->first_arm = k;
				snprintf(o->a_sha, sizeof o->a_sha, "%s", x[0] ? x : "none");
				snprintf(o->b_sha, sizeof o->b_sha, "%s", y[0] ? y : "none");
				break;
			}
		}
		o->outputs_match = o->first_arm < 0;
		if ((rc = lr_store_arm_times(st, a, c, 0, ta, 2048, &na)) ||
		    (rc = lr_store_arm_times(st, b, c, 0, tb, 2048, &nb)))
			goto out;
		/* two repetitions of the baseline per block, in block order */
		na = (na < nb ? na : nb) / 2;
		if (na > 0) {
			double a1[1024], a2[1024], b1[1024], b2[1024];
			int i;

			for (i = 0; i < na; i++) {
				a1[i] = ta[2 * i];
				a2[i] = ta[2 * i + 1];
				b1[i] = tb[2 * i];
				b2[i] = tb[2 * i + 1];
			}
			o->has_timing = lr_paired_estimate(a1, a2, b1, b2, na, &o->timing) == 0;
		}
	}
out:
	free(ha);
	free(hb);
	return rc;
}

char **lr_argv_from_json(const char *json)
{
	json_t *a = json_loads(json, 0, NULL);
	char **argv = NULL;
	size_t i, n;

	if (!a || !json_is_array(a) || !(n = json_array_size(a)))
		goto out;
	argv = calloc(n + 1, sizeof *argv);
	for (i = 0; argv && i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));

		argv[i] = strdup(s ? s : "");
		if (!argv[i]) {
			lr_argv_free(argv);
			argv = NULL;
		}
	}
out:
	json_decref(a);
	return argv;
}

void lr_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
