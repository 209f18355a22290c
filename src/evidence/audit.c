#include "config.h"
#include "base/system.h"

#include <sched.h>
#include <stdatomic.h>

#include "base/dsse.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/parallel.h"
#include "base/trust.h"
#include "evidence/archive.h"
#include "evidence/audit.h"
#include "evidence/object.h"
#include "experiment/report.h"
#include "store/experiments.h"
#include "store/ledger.h"
#include "store/objects.h"
#include "store/remote.h"
#include "store/runs.h"

struct ctx {
	lr_audit_fn fn;
	void *arg;
	int64_t run;
	int *problems;
	struct lr_store *st;
	int *checked;
};

static void problem(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct ctx *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	(*c->problems)++;
	va_start(ap, fmt);
	c->fn(c->arg, c->run, lr_vfmt_cut(msg, sizeof msg, fmt, ap));
	va_end(ap);
}

static int origin_problem(void *arg, const char *what)
{
	problem(arg, "it was pulled from a remote, and %s", what);
	return 0;
}

static int table_changed(void *arg, const char *table)
{
	problem(arg, "rows of table '%s' changed since the run was sealed", table);
	return 0;
}

/* Binding keys a replay must share with its original. */
static const char *const replay_binding[] = { "backend", "pinned_cpu", "device",   "lane", "mode",
					      "layout",  "kernel",     "contract", NULL };

static void check_replay(struct lr_store *st, struct ctx *c, const struct lr_run *r)
{
	struct lr_run o;
	size_t i;
	int k;

	lr_run_init(&o);
	if (lr_store_run_load(st, r->replay_of, &o)) {
		problem(c, "it replays run %lld, which cannot be loaded: %s", (long long)r->replay_of, lr_error_msg());
		return;
	}
	for (i = 0; i < o.geometry.n; i++) {
		const struct lr_kv *x = lr_kvlist_find(&r->geometry, o.geometry.v[i].key);

		if (!x || strcmp(x->value, o.geometry.v[i].value))
			problem(c, "its geometry '%s' is %s, run %lld (the original) has %s", o.geometry.v[i].key,
				x ? x->value : "absent", (long long)o.id, o.geometry.v[i].value);
	}
	for (k = 0; replay_binding[k]; k++) {
		const struct lr_kv *x = lr_kvlist_find(&r->binding, replay_binding[k]);
		const struct lr_kv *y = lr_kvlist_find(&o.binding, replay_binding[k]);

		if ((x == NULL) != (y == NULL) || (x && strcmp(x->value, y->value)))
			problem(c, "its binding '%s' is %s, run %lld (the original) has %s", replay_binding[k],
				x ? x->value : "absent", (long long)o.id, y ? y->value : "absent");
	}
	lr_run_release(&o);
}

static void check_experiment(struct lr_store *st, struct ctx *c, int64_t id)
{
	struct lr_store_condition_row *conds = NULL;
	struct lr_run_filter f = { .status = -1 };
	char names[LR_EXP_MAXARMS][32], kernels[LR_EXP_MAXARMS][32];
	struct lr_digest *hex = NULL;
	struct lr_report rep;
	int narm = 0, n = 0, i, a, command;

	if (lr_store_arm_names(st, id, names, kernels, LR_EXP_MAXARMS, &narm) ||
	    lr_store_conditions(st, id, &conds, &n)) {
		problem(c, "its arms or conditions cannot be read: %s", lr_error_msg());
		return;
	}
	command = narm > 0 && !strcmp(kernels[0], "command");
	hex = calloc((size_t)(n ? n : 1) * (size_t)(narm ? narm : 1), sizeof *hex);
	if (hex && !lr_store_parity_hashes(st, id, n, narm, hex)) {
		for (i = 0; i < n; i++) {
			const struct lr_digest *arm = hex + (size_t)i * (size_t)narm;
			int agree = arm[0].hex[0] != '\0';

			for (a = 1; a < narm; a++)
				if (strcmp(arm[a].hex, arm[0].hex))
					agree = 0;
			/* a command experiment that declares no outputs has nothing to compare */
			if (command && !arm[0].hex[0])
				agree = 1;
			if (!strcmp(conds[i].status, "passed") && !agree)
				problem(c,
					"condition %d (%s %lld/%lld) is marked passed but its parity hashes disagree",
					conds[i].idx, conds[i].model, (long long)conds[i].layers,
					(long long)conds[i].tokens);
			if (!strcmp(conds[i].status, "passed") && conds[i].inner < 1)
				problem(c, "condition %d has no executions per repetition", conds[i].idx);
		}
	}
	/* every summary a report shows must be recomputable from the rows */
	if (lr_report_build(st, &f, id, &rep))
		problem(c, "its summaries cannot be recomputed from its rows: %s", lr_error_msg());
	else
		lr_report_release(&rep);
	free(hex);
	lr_store_conditions_free(conds, n);
}

/*
 * Re-hash object 'sha' (named 'what' in problems): in objects/, fetched
 * first when it is still on a remote, or in the archive it was pruned to.
 */
static void check_object(struct ctx *c, const char *what, const char *sha)
{
	struct lr_object o;
	int rc = lr_object_find(c->st, sha, LR_OBJECT_FETCH | LR_OBJECT_VERIFY, &o);

	if (rc && o.where == LR_OBJECT_REMOTE)
		problem(c, "%s is to be fetched from a remote, but: %s", what, lr_error_msg());
	else if (!rc && o.where == LR_OBJECT_ARCHIVED &&
		 lr_object_copy(&o, -1)) /* a pruned log, checked in its archive */
		problem(c, "%s was pruned to archive '%s', but: %s", what, o.archive, lr_error_msg());
	else if (rc)
		problem(c, "%s: %s", what, lr_error_msg());
	lr_object_release(&o);
}

static int evidence_object(void *arg, const char *name, const char *sha, int input)
{
	struct ctx *c = arg;
	char what[1024];

	snprintf(what, sizeof what, "%s '%s'", input ? "answer key" : "object", name);
	(*c->checked)++;
	check_object(c, what, sha);
	return 0;
}

int lr_audit_run(struct lr_store *st, int64_t id, lr_audit_fn fn, void *arg, int *problems, int *checked)
{
	struct ctx c = { fn, arg, id, problems, st, NULL };
	struct lr_run r;
	size_t i;
	int rc, sealed = 0, pulled;

	lr_run_init(&r);
	if ((rc = lr_store_run_load(st, id, &r)))
		return rc;
	if ((rc = lr_store_seal_check(st, id, table_changed, &c, &sealed)))
		goto out;
	if (!sealed && r.status != LR_RUNNING)
		problem(&c, "it is %s but has no seal", lr_status_name(r.status));
	if ((rc = lr_store_pulled_check(st, id, origin_problem, &c, &pulled)))
		goto out;
	for (i = 0; i < r.nartifacts; i++) {
		const struct lr_artifact *x = &r.artifacts[i];
		char what[512];

		if (!x->present)
			continue; /* recorded as missing when the run ended: evidence, not damage */
		snprintf(what, sizeof what, "%s '%s'", x->role, x->name);
		(*checked)++;
		check_object(&c, what, x->sha256);
	}
	/* execution logs and outputs, response files and answer keys: every object a row names */
	c.checked = checked;
	if ((rc = lr_store_run_evidence_objects(st, id, evidence_object, &c)))
		goto out;
	if (r.kind == LR_KIND_EXPERIMENT && r.status != LR_RUNNING)
		check_experiment(st, &c, id);
	if (r.replay_of)
		check_replay(st, &c, &r);
out:
	lr_run_release(&r);
	return rc;
}

/* ---- many runs, on every CPU ---- */

/* One run's audit on a worker: what it found, kept until the runs before it are reported. */
struct run_result {
	struct lr_strlist found;
	int problems, checked, rc;
	char *error, *hint;
};

struct audit_workers {
	const char *dir;
	const int64_t *ids;
	int n;
	atomic_int next, done;
	struct run_result *res;
	struct lr_progress *progress; /* shown by the first part only: it runs on the calling thread */
};

struct audit_worker {
	struct audit_workers *w;
	struct lr_store *st; /* its own connection: kept open until its seal digests are adopted */
	int first;
};

static void keep_problem(void *arg, int64_t run, const char *problem)
{
	struct run_result *r = arg;

	(void)run;
	if (lr_strlist_add(&r->found, problem) && !r->rc)
		r->rc = lr_error_set(LR_ENOMEM, "out of memory");
}

static void *audit_part(void *arg)
{
	struct audit_worker *me = arg;
	struct audit_workers *w = me->w;
	int i, open_rc = lr_store_open(&me->st, w->dir, 0);

	while ((i = atomic_fetch_add(&w->next, 1)) < w->n) {
		struct run_result *r = &w->res[i];

		if (!open_rc && !r->rc)
			r->rc = lr_audit_run(me->st, w->ids[i], keep_problem, r, &r->problems, &r->checked);
		else if (!r->rc)
			r->rc = open_rc;
		if (r->rc) {
			r->error = strdup(lr_error_msg());
			r->hint = lr_error_hint_msg()[0] ? strdup(lr_error_hint_msg()) : NULL;
		}
		i = atomic_fetch_add(&w->done, 1) + 1;
		if (me->first)
			lr_progress_update(w->progress, i);
	}
	return NULL;
}

/* The CPUs this process may run on. */
static int cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

static int audit_all(struct lr_store *st, const int64_t *ids, int n, lr_audit_fn fn, void *arg, int *problems,
		     int *checked)
{
	struct audit_worker part[LR_PARALLEL_MAX];
	struct audit_workers w = { lr_store_dir(st), ids, n, 0, 0, NULL, NULL };
	int64_t stamp = lr_store_write_stamp(st);
	int nparts = cpus(), i, rc = 0;

	nparts = nparts < n ? nparts : n;
	nparts = nparts < LR_PARALLEL_MAX ? nparts : LR_PARALLEL_MAX;
	w.progress = lr_progress_start("audited", "runs", n);
	if (nparts < 2) { /* one CPU, or one run: no second connection */
		for (i = 0; i < n && !rc; i++) {
			rc = lr_audit_run(st, ids[i], fn, arg, problems, checked);
			lr_progress_update(w.progress, i + 1);
		}
		lr_progress_stop(&w.progress);
		return rc;
	}
	if (!(w.res = calloc((size_t)n, sizeof *w.res))) {
		lr_progress_stop(&w.progress);
		return lr_error_set(LR_ENOMEM, "out of memory");
	}
	for (i = 0; i < nparts; i++)
		part[i] = (struct audit_worker){ &w, NULL, !i };
	lr_parallel(part, sizeof part[0], nparts, audit_part);
	lr_progress_update(w.progress, atomic_load(&w.done)); /* the other parts' last runs too */
	lr_progress_stop(&w.progress);
	for (i = 0; i < nparts; i++) { /* the ledger walk needs the digests the seal checks computed */
		if (part[i].st)
			lr_store_seal_memo_adopt(st, part[i].st, stamp);
		lr_store_free(part[i].st);
	}
	for (i = 0; i < n; i++) { /* in run order, as one connection would have found them, up to the first error */
		struct run_result *r = &w.res[i];

		for (size_t k = 0; !rc && k < r->found.n; k++)
			fn(arg, ids[i], r->found.v[k]);
		if (!rc) {
			*problems += r->problems;
			*checked += r->checked;
		}
		if (!rc && r->rc) {
			rc = lr_error_set(r->rc, "%s", r->error ? r->error : "out of memory");
			if (r->hint)
				lr_error_hint("%s", r->hint);
		}
		lr_strlist_release(&r->found);
		free(r->error);
		free(r->hint);
	}
	free(w.res);
	return rc;
}

/* The runs audited, for came_unsigned. */
struct scope {
	const int64_t *ids;
	int n;
	struct ctx c;
};

/* A pulled run of the scope that came unsigned from a host that signs its runs: a problem. */
static int came_unsigned(void *arg, int64_t id, const char *uuid, const char *hostname, const char *signed_uuid)
{
	struct scope *s = arg;
	int i;

	(void)uuid;
	for (i = 0; i < s->n && s->ids[i] != id; i++)
		;
	if (i == s->n)
		return 0;
	s->c.run = id;
	problem(&s->c,
		"it was pulled without signatures, but host '%s' signs its runs (run %s, started before it, came "
		"signed): its signatures were removed on the way, or it was recorded without the host's key",
		hostname, signed_uuid);
	return 0;
}

int lr_audit_runs(struct lr_store *st, const int64_t *ids, int n, lr_audit_fn fn, void *arg, int *problems,
		  int *checked)
{
	struct scope s = { ids, n, { fn, arg, 0, problems, st, checked } };
	int rc = audit_all(st, ids, n, fn, arg, problems, checked);

	return rc ? rc : lr_store_pulled_unsigned(st, came_unsigned, &s);
}

int lr_head_parse(const char *text, struct lr_published_head *h)
{
	const char *colon = strchr(text, ':');
	char *end;
	size_t i;

	memset(h, 0, sizeof *h);
	if (colon && text[0] >= '0' && text[0] <= '9') { /* no sign, no blank; past 64 bits is refused, not clamped */
		errno = 0;
		h->seq = strtoll(text, &end, 10);
		if (errno)
			h->seq = 0;
		for (i = 1; colon[i] && i <= 64 && strchr("0123456789abcdef", colon[i]); i++)
			;
		if (end == colon && h->seq > 0 && i == 65 && !colon[i]) {
			memcpy(h->digest, colon + 1, 64);
			return 0;
		}
	}
	lr_error_set(LR_EINVAL, "invalid ledger head '%s': expected SEQ:DIGEST", text);
	lr_error_hint("copy the head 'labrun audit' printed, e.g. 12:3f5c...; the digest is 64 lowercase hex digits");
	return LR_EINVAL;
}

int lr_audit_policy(struct lr_store *st, const struct lr_trust *t, struct lr_ledger_policy *policy,
		    const struct lr_known_store **known, lr_audit_fn fn, void *arg, int *problems)
{
	struct lr_audit_ctx c = { fn, arg, problems };
	char id[LR_STORE_ID_LEN], path[PATH_MAX], msg[PATH_MAX + 256];
	int rc, by_path;

	*policy = (struct lr_ledger_policy){ .trust = t };
	*known = NULL;
	if ((rc = lr_store_id(st, id)))
		return rc;
	if (!realpath(lr_store_dir(st), path))
		snprintf(path, sizeof path, "%s", lr_store_dir(st));
	if (!(*known = lr_trust_store(t, id, path, &by_path)))
		return 0;
	policy->signed_from = (*known)->from_seq;
	if (by_path) {
		snprintf(msg, sizeof msg,
			 "the store at '%s' says its id is %s, but your configuration knows it as store %s, "
			 "signed from ledger entry %lld on: its identity was rewritten",
			 path, id, (*known)->id, (long long)(*known)->from_seq);
		lr_audit_problem(&c, 0, "", msg);
	}
	return 0;
}

int lr_audit_ledger(struct lr_store *st, const int64_t *only, int nonly, const struct lr_ledger_policy *policy,
		    const struct lr_published_head *published, lr_audit_fn fn, lr_ledger_fn later, void *arg,
		    int *problems, struct lr_ledger_head *head)
{
	struct lr_audit_ctx c = { fn, arg, problems };
	char digest[LR_SHA256_HEX], msg[256];
	int rc;

	if ((rc = lr_store_ledger_check(st, only, nonly, policy, lr_audit_problem, &c, head)) || !published)
		return rc;
	if ((rc = lr_store_ledger_after(st, published->seq, digest, later, arg)))
		return rc;
	if (!digest[0])
		snprintf(msg, sizeof msg, "the published head %lld:%.12s... is not in the ledger: it was truncated",
			 (long long)published->seq, published->digest);
	else if (strcmp(digest, published->digest))
		snprintf(msg, sizeof msg,
			 "ledger entry %lld is %.12s..., the published head says %.12s...: the ledger "
			 "up to it was rewritten",
			 (long long)published->seq, digest, published->digest);
	else
		return 0;
	lr_audit_problem(&c, published->seq, "", msg);
	return 0;
}
