/*
 * A report's further metrics: what [report] of each run's stored definition
 * asks for (its metrics and forms) and what 'report --metric' adds. Each
 * metric is a run of its own beside the run (experiment/report.h), its
 * tables built from that metric's stored values by the code that builds the
 * design's (report.c), and marked exploratory: directions, never verdicts.
 */
#include "config.h"
#include "base/system.h"

#include "base/buf.h"
#include "base/error.h"
#include "experiment/report.h"
#include "store/metrics.h"

/* A metric name of a run, with what its rows say of it (copied from lr_store_metric_name). */
struct name {
	char *name, *unit, *unit_other;
	int higher, higher_other;
};

struct names {
	struct name *v;
	size_t n, cap;
};

static void names_release(struct names *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].unit);
		free(l->v[i].unit_other);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static int name_add(void *arg, const struct lr_store_metric_name *m)
{
	struct names *l = arg;
	struct name *x;
	int rc;

	if ((rc = LR_ALLOC_GROW(l->v, l->n + 1, l->cap)))
		return rc;
	x = &l->v[l->n++];
	x->name = strdup(m->name);
	x->unit = strdup(m->unit);
	x->unit_other = strdup(m->unit_other);
	x->higher = m->higher;
	x->higher_other = m->higher_other;
	return x->name && x->unit && x->unit_other ? 0 : lr_error_set(LR_ENOMEM, "out of memory");
}

static const struct name *name_find(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

/* Metric m of run rr as a run of its own, its tables built from m's values. */
static int add_metric(struct lr_store *st, struct lr_report_run *rr, const struct name *m)
{
	struct lr_report_run *x;

	if (strcmp(m->unit, m->unit_other) || m->higher != m->higher_other) {
		if (strcmp(m->unit, m->unit_other))
			lr_error_set(
				LR_EREFUSED,
				"cannot report metric '%s' of run %lld: its executions give it in two units, '%s' and '%s'",
				m->name, (long long)rr->run.id, m->unit, m->unit_other);
		else
			lr_error_set(
				LR_EREFUSED,
				"cannot report metric '%s' of run %lld: its executions give it two directions, better 'higher' and 'lower'",
				m->name, (long long)rr->run.id);
		lr_error_hint("a harness writes each metric in one unit and one direction; the view metric_by_arm "
			      "shows what each execution wrote ('labrun sql')");
		return LR_EREFUSED;
	}
	if (strlen(m->name) >= sizeof x->design.metric) {
		lr_error_set(LR_EREFUSED,
			     "cannot report metric '%.40s...' of run %lld: its name is longer than %zu characters",
			     m->name, (long long)rr->run.id, sizeof x->design.metric - 1);
		lr_error_hint("the view metric_by_arm has its values ('labrun sql')");
		return LR_EREFUSED;
	}
	if (!(x = realloc(rr->metrics, (size_t)(rr->nmetrics + 1) * sizeof *x)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	rr->metrics = x;
	x = &rr->metrics[rr->nmetrics++];
	*x = *rr; /* the run, its arms and conditions, borrowed */
	x->ntables = 0;
	memset(x->tables, 0, sizeof x->tables);
	x->metrics = NULL;
	x->nmetrics = 0;
	memset(&x->unstored, 0, sizeof x->unstored);
	x->aa_run = 0; /* the floor is the design's: no metric of the harness is held to it */
	x->aa_width = x->aa_lo = x->aa_hi = 0;
	x->aa_excludes_1 = 0;
	x->exploratory_metric = 1;
	x->higher = m->higher;
	snprintf(x->design.metric, sizeof x->design.metric, "%s", m->name);
	snprintf(x->unit, sizeof x->unit, "%s", m->unit);
	return lr_report_tables_build(st, x);
}

/* Metric 'name' of run rr, once, when the run wrote it and it is not the design's own. */
static int consider(struct lr_store *st, struct lr_report_run *rr, const struct names *have, struct lr_strlist *done,
		    const char *name)
{
	const struct name *m = name_find(have, name);
	int rc;

	if (!m || !strcmp(name, rr->design.metric) || lr_strlist_contains(done, name))
		return 0;
	return (rc = lr_strlist_add(done, name)) ? rc : add_metric(st, rr, m);
}

/* Run rr's further metrics: [report]'s names, then ask's, then (all) every one it wrote; never the design's. */
static int run_metrics(struct lr_store *st, struct lr_report_run *rr, const struct names *have,
		       const struct lr_report_ask *ask)
{
	struct lr_exp_report want;
	struct lr_strlist done = { 0 };
	char *path = NULL, *text = NULL;
	int rc, i, all = 0;

	if ((rc = lr_store_definition(st, rr->run.id, &path, &text)) || (rc = lr_expdef_report_read(path, text, &want)))
		goto out;
	rr->forms = want.forms;
	for (i = 0; !rc && i < want.nmetrics; i++)
		if (!name_find(have, want.metrics[i]))
			rc = lr_strlist_add(&rr->unstored, want.metrics[i]);
	for (i = 0; !rc && i < want.nmetrics; i++)
		rc = consider(st, rr, have, &done, want.metrics[i]);
	for (i = 0; !rc && ask && i < ask->n; i++) {
		all |= !strcmp(ask->metrics[i], "all");
		rc = consider(st, rr, have, &done, ask->metrics[i]);
	}
	for (size_t k = 0; !rc && (all || want.all_metrics) && k < have->n; k++)
		rc = consider(st, rr, have, &done, have->v[k].name);
out:
	lr_strlist_release(&done);
	free(path);
	free(text);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each name of 'ask' must be a metric of one of the report's runs; else an error naming the ones there are. */
static int check_ask(const struct lr_report_ask *ask, const struct names *have, int nruns)
{
	struct lr_buf known = LR_BUF_INIT;
	struct lr_strlist all = { 0 };
	int rc = 0, i, r;

	for (r = 0; r < nruns; r++)
		for (size_t k = 0; !rc && k < have[r].n; k++)
			if (!lr_strlist_contains(&all, have[r].v[k].name))
				rc = lr_strlist_add(&all, have[r].v[k].name);
	for (i = 0; !rc && ask && i < ask->n; i++) {
		if (lr_strlist_contains(&all, ask->metrics[i]) || (!strcmp(ask->metrics[i], "all") && all.n))
			continue;
		if (all.n)
			qsort(all.v, all.n, sizeof *all.v, by_name);
		for (size_t k = 0; k < all.n; k++)
			lr_buf_addf(&known, "%s%s", k ? ", " : "", all.v[k]);
		if (!strcmp(ask->metrics[i], "all"))
			rc = lr_error_set(LR_EINVAL, "cannot report every metric: no run of this report wrote one");
		else
			rc = lr_error_set(LR_EINVAL, "cannot report metric '%s': no run of this report wrote it (%s%s)",
					  ask->metrics[i], all.n ? "its runs wrote " : "its runs wrote no metric",
					  known.buf);
		lr_error_hint("command experiments write metrics through $LABRUN_METRICS; --metric takes one of "
			      "their names, or all");
	}
	lr_strlist_release(&all);
	lr_buf_release(&known);
	return rc;
}

static int add_metrics(struct lr_store *st, struct lr_report *rep, const struct lr_report_ask *ask)
{
	struct names *have = calloc((size_t)(rep->nruns ? rep->nruns : 1), sizeof *have);
	int rc = 0, r;

	if (!have)
		return lr_error_set(LR_ENOMEM, "out of memory");
	for (r = 0; r < rep->nruns && !rc; r++)
		rc = lr_store_metric_names(st, rep->runs[r].run.id, name_add, &have[r]);
	if (!rc)
		rc = check_ask(ask, have, rep->nruns);
	for (r = 0; r < rep->nruns && !rc; r++)
		rc = run_metrics(st, &rep->runs[r], &have[r], ask);
	for (r = 0; r < rep->nruns; r++)
		names_release(&have[r]);
	free(have);
	return rc;
}

static int build(struct lr_store *st, int64_t *ids, int n, int single, const struct lr_report_ask *ask,
		 struct lr_report *out)
{
	int rc = lr_report_runs_build(st, ids, n, single, out);

	if (!rc && (rc = add_metrics(st, out, ask)))
		lr_report_release(out);
	return rc;
}

int lr_report_build_asked(struct lr_store *st, const struct lr_run_filter *f, int64_t run_id,
			  const struct lr_report_ask *ask, struct lr_report *out)
{
	int64_t *ids = NULL;
	int rc, n = 0;

	memset(out, 0, sizeof *out);
	if (run_id > 0) {
		if (!(ids = malloc(sizeof *ids)))
			return lr_error_set(LR_ENOMEM, "out of memory");
		ids[n++] = run_id;
	} else if ((rc = lr_store_run_ids(st, f, &ids, &n))) {
		return rc;
	}
	return build(st, ids, n, run_id > 0, ask, out);
}

int lr_report_build(struct lr_store *st, const struct lr_run_filter *f, int64_t run_id, struct lr_report *out)
{
	return lr_report_build_asked(st, f, run_id, NULL, out);
}

int lr_report_build_runs(struct lr_store *st, const int64_t *runs, int n, struct lr_report *out)
{
	int64_t *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);

	memset(out, 0, sizeof *out);
	if (!ids)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (n)
		memcpy(ids, runs, (size_t)n * sizeof *ids);
	return build(st, ids, n, 0, NULL, out);
}
