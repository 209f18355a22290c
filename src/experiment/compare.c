#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/list.h"
#include "experiment/compare.h"
#include "experiment/plan.h"
#include "experiment/expdef.h"
#include "store/experiments.h"

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

/* A card as a diff names it: "atom:0 on vm", with its serial when known. */
static void card_text(const struct lr_card *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s on %s%s%s", c->device, c->host, c->serial[0] ? ", serial " : "", c->serial);
}

/* The run's card and each arm's, where both runs were bound: a different card is a 'card' difference. */
static int diff_cards(lr_drift_fn fn, void *arg, const struct lr_run *a, const struct lr_run *b)
{
	struct lr_card ca[LR_MAXCARDS], cb[LR_MAXCARDS];
	int na = lr_run_cards(a, ca, LR_MAXCARDS), nb = lr_run_cards(b, cb, LR_MAXCARDS), n = 0;
	char who[64], ta[200], tb[200];

	for (int i = 0; i < na; i++)
		for (int k = 0; k < nb; k++) {
			if (strcmp(ca[i].who, cb[k].who) || !lr_cards_differ(&ca[i], &cb[k]))
				continue;
			snprintf(who, sizeof who, "%s%.39s (differs)", ca[i].who[0] ? "arm " : "run", ca[i].who);
			card_text(&ca[i], ta, sizeof ta);
			card_text(&cb[k], tb, sizeof tb);
			fn(arg, "card", who, ta, tb);
			n++;
		}
	return n;
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
	n += diff_kvs(fn, arg, "tool probe", &a->probes, &b->probes);
	n += diff_cards(fn, arg, a, b);
	n += diff_str(fn, arg, "host", "hostname", a->host.hostname, b->host.hostname);
	n += diff_str(fn, arg, "host", "os", a->host.os, b->host.os);
	n += diff_str(fn, arg, "host", "kernel", a->host.kernel, b->host.kernel);
	n += diff_str(fn, arg, "host", "arch", a->host.arch, b->host.arch);
	n += diff_str(fn, arg, "host", "cpu model", a->host.cpu_model, b->host.cpu_model);
	n += diff_str(fn, arg, "host", "cpu flags", a->host.cpu_flags, b->host.cpu_flags);
	n += diff_int(fn, arg, "host", "cores", a->host.cores, b->host.cores);
	n += diff_int(fn, arg, "host", "memory bytes", a->host.memory_bytes, b->host.memory_bytes);
	n += diff_str(fn, arg, "labrun", "version", a->labrun_version, b->labrun_version);
	n += diff_kvs(fn, arg, "labrun build", &a->recorder, &b->recorder);
	return n;
}

int lr_experiment_compare(struct lr_store *st, int64_t a, int64_t b, int ncond, int narm, struct lr_cond_compare *out)
{
	size_t cells = (size_t)ncond * (size_t)narm;
	struct lr_digest *ha = calloc(cells, sizeof *ha), *hb = calloc(cells, sizeof *hb);
	double *ta = NULL, *tb = NULL;
	int c, k, na, nb, rc = 0;

	if (!ha || !hb) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = lr_store_parity_hashes(st, a, ncond, narm, ha)) ||
	    (rc = lr_store_parity_hashes(st, b, ncond, narm, hb)))
		goto out;
	for (c = 0; c < ncond; c++) {
		struct lr_cond_compare *o = &out[c];

		memset(o, 0, sizeof *o);
		o->condition = c;
		o->first_arm = -1;
		for (k = 0; k < narm; k++) {
			const char *x = ha[(size_t)c * (size_t)narm + (size_t)k].hex;
			const char *y = hb[(size_t)c * (size_t)narm + (size_t)k].hex;

			if (!x[0] && !y[0])
				continue; /* neither run has an output to compare (a command arm without outputs) */
			if (!x[0] || !y[0] || strcmp(x, y)) {
				o->first_arm = k;
				snprintf(o->a_sha, sizeof o->a_sha, "%s", x[0] ? x : "none");
				snprintf(o->b_sha, sizeof o->b_sha, "%s", y[0] ? y : "none");
				break;
			}
		}
		o->outputs_match = o->first_arm < 0;
		if ((rc = lr_store_arm_times(st, a, c, 0, &ta, &na, NULL)) ||
		    (rc = lr_store_arm_times(st, b, c, 0, &tb, &nb, NULL)))
			goto out;
		/* two repetitions of the baseline per block, in block order */
		na = (na < nb ? na : nb) / 2;
		if (na > 0)
			o->has_timing = lr_paired_from_reps(ta, tb, na, &o->timing) == 0;
		free(ta);
		free(tb);
		ta = tb = NULL;
	}
out:
	free(ta);
	free(tb);
	free(ha);
	free(hb);
	return rc;
}

static void add_drift(void *arg, const char *what, const char *key, const char *a, const char *b)
{
	struct lr_comparison *cmp = arg;
	struct lr_drift *d;

	if (cmp->rc)
		return;
	if ((cmp->rc = LR_ALLOC_GROW(cmp->drift, cmp->ndrift + 1, cmp->capdrift)))
		return;
	d = &cmp->drift[cmp->ndrift];
	d->what = what;
	d->key = strdup(key);
	d->a = strdup(a);
	d->b = strdup(b);
	cmp->ndrift++;
	if (!d->key || !d->a || !d->b)
		cmp->rc = lr_error_set(LR_ENOMEM, "out of memory");
}

/* Both experiment runs' stored plans, and whether their conditions and arms line up. */
static int compare_experiments(struct lr_store *st, const struct lr_run *a, const struct lr_run *b,
			       struct lr_comparison *cmp)
{
	struct lr_stored_design da, db;
	struct lr_store_condition_row *ca = NULL, *cb = NULL;
	char names[2][LR_EXP_MAXARMS][32], kernels[LR_EXP_MAXARMS][32];
	int nca = 0, ncb = 0, narm[2] = { 0, 0 }, c, rc;

	if ((rc = lr_plan_stored(st, a->id, &da)) || (rc = lr_plan_stored(st, b->id, &db)) ||
	    (rc = lr_store_conditions(st, a->id, &ca, &nca)) || (rc = lr_store_conditions(st, b->id, &cb, &ncb)) ||
	    (rc = lr_store_arm_names(st, a->id, names[0], kernels, LR_EXP_MAXARMS, &narm[0])) ||
	    (rc = lr_store_arm_names(st, b->id, names[1], kernels, LR_EXP_MAXARMS, &narm[1])))
		goto out;
	snprintf(cmp->a_definition, sizeof cmp->a_definition, "%s", da.sha256);
	snprintf(cmp->b_definition, sizeof cmp->b_definition, "%s", db.sha256);
	cmp->comparable = nca == ncb && narm[0] == narm[1] && narm[0] > 0;
	if (!cmp->comparable) {
		cmp->outputs_match = 0;
		goto out;
	}
	snprintf(cmp->baseline, sizeof cmp->baseline, "%s", names[0][0]);
	cmp->ncond = nca;
	cmp->cond = calloc((size_t)(nca ? nca : 1), sizeof *cmp->cond);
	cmp->where = calloc((size_t)(nca ? nca : 1), sizeof *cmp->where);
	cmp->arm_names = calloc((size_t)narm[0], sizeof *cmp->arm_names);
	if (!cmp->cond || !cmp->where || !cmp->arm_names) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (c = 0; c < narm[0]; c++)
		snprintf(cmp->arm_names[c], sizeof cmp->arm_names[c], "%s", names[0][c]);
	if ((rc = lr_experiment_compare(st, a->id, b->id, cmp->ncond, narm[0], cmp->cond)))
		goto out;
	for (c = 0; c < cmp->ncond && !rc; c++) {
		snprintf(cmp->where[c].model, sizeof cmp->where[c].model, "%s", ca[c].model);
		cmp->where[c].layers = ca[c].layers;
		cmp->where[c].tokens = ca[c].tokens;
		rc = lr_plan_stored_label(st, a->id, &da, &ca[c], cmp->where[c].label, sizeof cmp->where[c].label);
		if (!cmp->cond[c].outputs_match)
			cmp->outputs_match = 0;
	}
out:
	lr_store_conditions_free(ca, nca);
	lr_store_conditions_free(cb, ncb);
	return rc;
}

/* A run's exit code as text, NULL (shown "-") when it has none: killed, or an experiment of labrun's own. */
static const char *exit_text(const struct lr_run *r, char *buf, size_t len)
{
	if (!r->has_exit)
		return NULL;
	snprintf(buf, len, "%d", r->exit_code);
	return buf;
}

/* How the drift names a log ("stdout") or an artifact ("output out/a.txt"). */
/* "ROLE NAME" (or the name alone when it is the role: stdout), in buf until the next call; never cut. */
static const char *artifact_key(const struct lr_artifact *x, struct lr_buf *buf)
{
	if (!strcmp(x->role, x->name))
		return x->name;
	lr_buf_reset(buf);
	lr_buf_addf(buf, "%s %s", x->role, x->name);
	return buf->buf;
}

static const char *artifact_sha(const struct lr_run *r, const char *role, const char *name)
{
	const struct lr_artifact *a = lr_run_artifact(r, role, name);

	return !a ? NULL : a->present ? a->sha256 : "(missing)";
}

/*
 * What record and import runs produced: the command and its outcome
 * ("outcome") and every log, artifact and digest by hash ("output"). Returns
 * how many outputs differ.
 */
static int diff_outputs(const struct lr_run *a, const struct lr_run *b, struct lr_comparison *cmp)
{
	struct lr_buf key = LR_BUF_INIT;
	char xa[16], xb[16];
	size_t i;
	int n = 0;

	diff_str(add_drift, cmp, "outcome", "command", a->argv_json, b->argv_json);
	diff_str(add_drift, cmp, "outcome", "status", lr_status_name(a->status), lr_status_name(b->status));
	diff_str(add_drift, cmp, "outcome", "exit code", exit_text(a, xa, sizeof xa), exit_text(b, xb, sizeof xb));
	diff_int(add_drift, cmp, "outcome", "signal", a->signal, b->signal);
	for (i = 0; i < a->nartifacts; i++) {
		const struct lr_artifact *x = &a->artifacts[i];

		n += diff_str(add_drift, cmp, "output", artifact_key(x, &key), artifact_sha(a, x->role, x->name),
			      artifact_sha(b, x->role, x->name));
	}
	for (i = 0; i < b->nartifacts; i++) {
		const struct lr_artifact *x = &b->artifacts[i];

		if (!artifact_sha(a, x->role, x->name))
			n += diff_str(add_drift, cmp, "output", artifact_key(x, &key), NULL,
				      artifact_sha(b, x->role, x->name));
	}
	if (!cmp->rc)
		cmp->rc = lr_buf_error(&key); /* a key cut short by a failure: the comparison fails */
	lr_buf_release(&key);
	return n + diff_kvs(add_drift, cmp, "output", &a->digests, &b->digests);
}

int lr_compare_runs(struct lr_store *st, const struct lr_run *a, const struct lr_run *b, struct lr_comparison *cmp)
{
	memset(cmp, 0, sizeof *cmp);
	cmp->outputs_match = 1;
	lr_run_drift(a, b, add_drift, cmp);
	if (!cmp->rc && (a->kind != LR_KIND_EXPERIMENT || b->kind != LR_KIND_EXPERIMENT) && diff_outputs(a, b, cmp))
		cmp->outputs_match = 0;
	if (cmp->rc)
		return cmp->rc;
	cmp->experiments = a->kind == LR_KIND_EXPERIMENT && b->kind == LR_KIND_EXPERIMENT;
	return cmp->experiments ? compare_experiments(st, a, b, cmp) : 0;
}

void lr_comparison_release(struct lr_comparison *cmp)
{
	size_t i;

	for (i = 0; i < cmp->ndrift; i++) {
		free(cmp->drift[i].key);
		free(cmp->drift[i].a);
		free(cmp->drift[i].b);
	}
	free(cmp->drift);
	free(cmp->cond);
	free(cmp->where);
	free(cmp->arm_names);
	memset(cmp, 0, sizeof *cmp);
}
