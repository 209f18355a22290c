#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "experiment/report.h"
#include "store/experiments.h"
#include "store/ledger.h"
#include "store/metrics.h"
#include "store/runs.h"

/* One row: arm b against arm 0 in condition c, from the stored repetitions. */
/* Drift of an arm over its blocks: the relative change of its per-block sums (the method's step 3). */
static double block_drift(const double *t, int blocks)
{
	double *sum = malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof *sum), d;
	int i;

	if (!sum)
		return 0;
	for (i = 0; i < blocks; i++)
		sum[i] = t[2 * i] + t[2 * i + 1];
	d = lr_drift(sum, blocks);
	free(sum);
	return d;
}

/* The mean of v[0..n), 0 when n is 0. */
static double mean(const double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : 0;
}

/*
 * A metric's row has an estimate only when every timed execution of both
 * arms wrote it (else the values would pair across blocks) and every value
 * is positive (the method works in logarithms); else its status says why.
 */
static int usable(struct lr_store *st, int64_t run, const struct lr_store_condition_row *c, int b, const char *metric,
		  const double *ta, const double *tb, struct lr_report_row *row)
{
	int64_t ma = 0, mb = 0;
	int i, rc;

	if (metric && metric[0] &&
	    ((rc = lr_store_metric_missing(st, run, c->idx, 0, metric, &ma)) ||
	     (rc = lr_store_metric_missing(st, run, c->idx, b, metric, &mb))))
		return rc;
	if (ma || mb) {
		snprintf(row->status, sizeof row->status, "incomplete");
		return 0;
	}
	for (i = 0; i < 2 * row->blocks; i++)
		if (!(ta[i] > 0 && tb[i] > 0)) {
			snprintf(row->status, sizeof row->status, "not positive");
			return 0;
		}
	return 1;
}

static int build_row(struct lr_store *st, int64_t run, const struct lr_store_condition_row *c, int b,
		     const char *metric, int *higher, struct lr_report_row *row)
{
	double *ta = NULL, *tb = NULL, scale = metric && metric[0] ? 1 : 1e3; /* times in ms, a metric as it is */
	int na = 0, nb = 0, fa = 0, fb = 0, i, rc;

	memset(row, 0, sizeof *row);
	row->cond = c->idx;
	snprintf(row->label, sizeof row->label, "%s %lld/%lld", c->model, (long long)c->layers, (long long)c->tokens);
	memcpy(row->model, c->model, sizeof row->model);
	row->layers = c->layers;
	row->tokens = c->tokens;
	memcpy(row->status, c->status, sizeof row->status);
	row->failure = c->failure;
	if (metric && metric[0]) {
		if ((rc = lr_store_arm_metric(st, run, c->idx, 0, metric, &ta, &na, higher, &fa)) ||
		    (rc = lr_store_arm_metric(st, run, c->idx, b, metric, &tb, &nb, higher, &fb)))
			goto out;
	} else if ((rc = lr_store_arm_times(st, run, c->idx, 0, &ta, &na, &fa)) ||
		   (rc = lr_store_arm_times(st, run, c->idx, b, &tb, &nb, &fb))) {
		goto out;
	}
	row->flagged = fa + fb; /* the two arms compared, not every arm of the condition */
	row->blocks = (na < nb ? na : nb) / 2;
	if (strcmp(c->status, "passed") || row->blocks < 1 || (rc = usable(st, run, c, b, metric, ta, tb, row)) <= 0)
		goto out;
	rc = 0;
	row->block_ratio = malloc((size_t)row->blocks * sizeof *row->block_ratio);
	row->block_a = malloc((size_t)row->blocks * sizeof *row->block_a);
	row->block_b = malloc((size_t)row->blocks * sizeof *row->block_b);
	if (!row->block_ratio || !row->block_a || !row->block_b) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < row->blocks; i++) {
		row->block_ratio[i] = (tb[2 * i] + tb[2 * i + 1]) / (ta[2 * i] + ta[2 * i + 1]);
		row->block_a[i] = (ta[2 * i] + ta[2 * i + 1]) / 2 * scale;
		row->block_b[i] = (tb[2 * i] + tb[2 * i + 1]) / 2 * scale;
	}
	row->drift_a = block_drift(ta, row->blocks);
	row->drift_b = block_drift(tb, row->blocks);
	if ((rc = lr_ratio_trend(row->block_ratio, row->blocks, &row->trend)))
		goto out;
	if ((rc = lr_paired_from_reps(ta, tb, row->blocks, &row->p)))
		goto out;
	row->mean_a = mean(ta, 2 * row->blocks) * scale;
	row->mean_b = mean(tb, 2 * row->blocks) * scale;
	row->median_a_ms = lr_median(ta, (size_t)(2 * row->blocks)) * scale; /* sorts: after the pairing */
	row->median_b_ms = lr_median(tb, (size_t)(2 * row->blocks)) * scale;
	row->has = 1;
out:
	free(ta);
	free(tb);
	return rc;
}

/* What rr's tables own; a further metric's run owns nothing else. */
static void release_tables(struct lr_report_run *rr)
{
	int t, k;

	for (t = 0; t < rr->ntables; t++) {
		for (k = 0; k < rr->tables[t].nrows; k++) {
			free(rr->tables[t].rows[k].block_ratio);
			free(rr->tables[t].rows[k].block_a);
			free(rr->tables[t].rows[k].block_b);
		}
		free(rr->tables[t].rows);
	}
}

static void release_run(struct lr_report_run *rr)
{
	release_tables(rr);
	for (int m = 0; m < rr->nmetrics; m++)
		release_tables(&rr->metrics[m]);
	free(rr->metrics);
	lr_strlist_release(&rr->unstored);
	lr_store_conditions_free(rr->conds, rr->nconds);
	lr_run_release(&rr->run);
}

static int build_run(struct lr_store *st, int64_t id, struct lr_report_run *rr);

/* The A/A run that qualifies this one, and its widest interval: no effect inside it is claimed. */
static int noise_floor(struct lr_store *st, struct lr_report_run *rr)
{
	struct lr_report_run aa;
	int t, k, rc;

	if ((rc = lr_store_newest_aa(st, rr->run.id, &rr->aa_run)) || !rr->aa_run)
		return rc;
	memset(&aa, 0, sizeof aa);
	if (!(rc = build_run(st, rr->aa_run, &aa))) {
		snprintf(rr->aa_name, sizeof rr->aa_name, "%s", aa.design.name);
		for (t = 0; t < aa.ntables; t++)
			for (k = 0; k < aa.tables[t].nrows; k++) {
				const struct lr_paired *p = &aa.tables[t].rows[k].p;

				if (!aa.tables[t].rows[k].has || !p->k)
					continue;
				if (p->lo > 1 || p->hi < 1)
					rr->aa_excludes_1 = 1;
				if (p->hi - p->lo > rr->aa_width) {
					rr->aa_width = p->hi - p->lo;
					rr->aa_lo = p->lo;
					rr->aa_hi = p->hi;
				}
			}
	}
	release_run(&aa);
	return rc;
}

/*
 * 1 when experiment run 'r' has tables to report, 0 when it is skipped: one
 * still running, or abandoned before its plan was stored (killed at its
 * start), is not evidence yet, and must not stop the report of the others.
 * Asked for by id, such a run is an error that says so.
 */
static int reportable(struct lr_store *st, const struct lr_run *r, int asked)
{
	char *path = NULL, *text = NULL;
	int rc = lr_store_definition(st, r->id, &path, &text);

	free(path);
	free(text);
	if (!rc && r->status != LR_RUNNING)
		return 1;
	if (rc && (rc != LR_ENOTFOUND || (r->status != LR_ABANDONED && r->status != LR_RUNNING)))
		return rc; /* a final run always has its plan: its absence is damage */
	if (!asked) {
		lr_error_clear();
		return 0;
	}
	rc = lr_error_set(LR_EINVAL, "cannot report on run %lld: it is %s%s", (long long)r->id,
			  lr_status_name(r->status),
			  rc ? " and its plan was never stored" : ": its tables are not complete yet");
	lr_error_hint("report on it once it has ended; 'labrun show %lld' has what was stored", (long long)r->id);
	return rc;
}

int lr_report_tables_build(struct lr_store *st, struct lr_report_run *rr)
{
	int64_t id = rr->run.id;
	int rc = 0, a, c;

	for (a = 1; a < rr->narm; a++) {
		struct lr_report_table *t = &rr->tables[rr->ntables++];

		t->arm = a;
		t->rows = calloc((size_t)(rr->nconds ? rr->nconds : 1), sizeof *t->rows);
		if (!t->rows)
			return lr_error_set(LR_ENOMEM, "out of memory");
		for (c = 0; c < rr->nconds && !rc; c++) {
			struct lr_report_row *row = &t->rows[t->nrows++];

			rc = build_row(st, id, &rr->conds[c], a, rr->design.metric, &rr->higher, row);
			if (!rc && rr->design.target == LR_TARGET_COMMAND)
				rc = lr_plan_stored_label(st, id, &rr->design, &rr->conds[c], row->label,
							  sizeof row->label);
			/* each arm's drift past the practical margin: information (the verdict weighs the ratios' trend) */
			row->drifted = fabs(row->drift_a) > rr->design.margin || fabs(row->drift_b) > rr->design.margin;
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int build_run(struct lr_store *st, int64_t id, struct lr_report_run *rr)
{
	int rc, c;

	lr_run_init(&rr->run);
	if ((rc = lr_store_run_load(st, id, &rr->run)) || (rc = lr_plan_stored(st, id, &rr->design)))
		return rc;
	if ((rc = lr_store_arm_names(st, id, rr->arm, rr->kernel, LR_EXP_MAXARMS, &rr->narm)) ||
	    (rc = lr_store_conditions(st, id, &rr->conds, &rr->nconds)))
		return rc;
	for (c = 0; c < rr->nconds; c++) {
		if (!strcmp(rr->conds[c].status, "passed"))
			rr->passed++;
		else if (!strcmp(rr->conds[c].status, "missing"))
			rr->missing++;
		else
			rr->failed++;
	}
	return lr_report_tables_build(st, rr);
}

int lr_report_runs_build(struct lr_store *st, int64_t *ids, int n, int single, struct lr_report *out)
{
	struct lr_run probe;
	int64_t *exp = NULL;
	int rc = 0, i, k = 0;

	out->ids = ids;
	out->nids = n;
	if ((rc = lr_store_ledger_head(st, &out->head)) || (rc = lr_store_head_statement(st, &out->head_statement)))
		goto out;
	if (!n)
		rc = lr_error_set(LR_ENOTFOUND, "no runs match");
	/* the experiment runs get tables; recorded commands and imports are kept as they are */
	exp = calloc((size_t)(n ? n : 1), sizeof *exp);
	out->records = calloc((size_t)(n ? n : 1), sizeof *out->records);
	if (!rc && (!exp || !out->records))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < n && !rc; i++) {
		lr_run_init(&probe);
		rc = lr_store_run_load(st, ids[i], &probe);
		if (!rc && probe.kind == LR_KIND_EXPERIMENT && (rc = reportable(st, &probe, single)) > 0) {
			exp[k++] = ids[i];
			rc = 0;
		} else if (!rc && (probe.kind == LR_KIND_RECORD || probe.kind == LR_KIND_IMPORT)) {
			out->records[out->nrecords++] = probe; /* out owns it now */
			continue;
		}
		lr_run_release(&probe);
	}
	if (!rc && k && !(out->runs = calloc((size_t)k, sizeof *out->runs)))
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	for (i = 0; i < k && !rc; i++) {
		out->nruns++;
		if (!(rc = build_run(st, exp[i], &out->runs[i])) && !(rc = noise_floor(st, &out->runs[i])))
			rc = lr_prereg_read(st, exp[i], &out->runs[i].prereg);
	}
out:
	free(exp);
	if (rc)
		lr_report_release(out);
	return rc;
}

void lr_report_release(struct lr_report *r)
{
	int i;

	for (i = 0; i < r->nruns; i++)
		release_run(&r->runs[i]);
	free(r->runs);
	for (i = 0; i < r->nrecords; i++)
		lr_run_release(&r->records[i]);
	free(r->records);
	free(r->ids);
	free(r->head_statement);
	memset(r, 0, sizeof *r);
}

int lr_report_has_floor(const struct lr_report_run *rr)
{
	return rr->aa_run && !rr->aa_excludes_1 && rr->aa_width > 0;
}

int lr_report_sign_disagrees(const struct lr_report_row *row)
{
	double medians = row->median_b_ms - row->median_a_ms, estimate = row->p.ratio - 1;

	return row->has && ((medians > 0 && estimate < 0) || (medians < 0 && estimate > 0));
}

int lr_report_exploratory(const struct lr_report_run *rr)
{
	return rr->design.blocks < LR_MIN_BLOCKS;
}

const char *lr_report_unit(const struct lr_report_run *rr)
{
	if (rr->exploratory_metric)
		return rr->unit;
	return rr->design.metric[0] ? rr->design.metric : "ms";
}

int lr_report_range(const struct lr_report_table *tb, double *lo, double *hi)
{
	int n = 0;

	for (int k = 0; k < tb->nrows; k++) {
		const struct lr_report_row *w = &tb->rows[k];

		if (!w->has)
			continue;
		if (!n++ || w->p.ratio < *lo)
			*lo = w->p.ratio;
		if (n == 1 || w->p.ratio > *hi)
			*hi = w->p.ratio;
	}
	return n;
}

/*
 * An exploratory metric's row: which way B moved and whether that is the
 * better way, only when its interval excludes 1; never a verdict's words
 * (no margin, no floor). 0: moved up, 1: down, 2: no change shown, 3: no
 * interval.
 */
static int direction(const struct lr_report_row *row)
{
	if (!row->p.k)
		return 3;
	return row->p.lo > 1 ? 0 : row->p.hi < 1 ? 1 : 2;
}

/* 1 when row's interval lies inside rr's noise floor. */
static int within_floor(const struct lr_report_run *rr, const struct lr_report_row *row)
{
	return lr_report_has_floor(rr) && row->p.k && row->p.lo >= rr->aa_lo && row->p.hi <= rr->aa_hi;
}

const char *lr_report_verdict_kind(const struct lr_report_run *rr, const struct lr_report_row *row)
{
	static const char *const kind[] = {
		[LR_VERDICT_FASTER] = "lower",
		[LR_VERDICT_SLOWER] = "higher",
		[LR_VERDICT_FASTER_DIRECTION] = "lower-direction",
		[LR_VERDICT_SLOWER_DIRECTION] = "higher-direction",
		[LR_VERDICT_DETECTABLE] = "detectable",
		[LR_VERDICT_EQUIVALENT] = "equivalent",
		[LR_VERDICT_INCONCLUSIVE] = "inconclusive",
	};

	static const char *const way[] = { "exploratory-higher", "exploratory-lower", "exploratory-no-change",
					   "exploratory" };

	if (!row->has)
		return row->status;
	if (lr_report_exploratory(rr))
		return "exploratory";
	if (rr->exploratory_metric)
		return way[direction(row)];
	if (within_floor(rr, row))
		return "noise-floor";
	return kind[lr_verdict_of(&row->p, rr->design.margin)];
}

void lr_report_pct(const struct lr_report_run *rr, const struct lr_report_row *row, double *effect, double *lo,
		   double *hi)
{
	if (rr->design.target == LR_TARGET_COMMAND) { /* the change, signed */
		*effect = (row->p.ratio - 1) * 100;
		*lo = (row->p.lo - 1) * 100;
		*hi = (row->p.hi - 1) * 100;
	} else { /* the reduction: the interval's ends swap */
		*effect = (1 - row->p.ratio) * 100;
		*lo = (1 - row->p.hi) * 100;
		*hi = (1 - row->p.lo) * 100;
	}
}

void lr_report_as_format(struct lr_report *rep, int format)
{
	rep->format = format;
	for (int i = 0; i < rep->nruns; i++)
		rep->runs[i].format = format;
}

int lr_report_drift_marks(const struct lr_report_run *rr)
{
	return rr->format && rr->format < LR_REPORT_FORMAT_TREND;
}

int lr_report_qualified(const struct lr_report_run *rr, const struct lr_report_row *row)
{
	return row->has && !lr_report_exploratory(rr) && !lr_report_drift_marks(rr) && row->trend.flagged;
}

/* The verdict in buf, then why it is qualified when it is. */
static const char *qualify(char *buf, size_t len, const struct lr_report_run *rr, const struct lr_report_row *row)
{
	size_t n = strlen(buf);

	if (lr_report_qualified(rr, row) && n < len)
		snprintf(buf + n, len - n, "; qualified: the block ratio trends %+.1f%% over the blocks (p %s%.3f)",
			 row->trend.change * 100, row->trend.p < 0.001 ? "under " : "",
			 row->trend.p < 0.001 ? 0.001 : row->trend.p);
	return buf;
}

const char *lr_report_verdict(char *buf, size_t len, const struct lr_report_run *rr, const struct lr_report_row *row,
			      const char *b_name)
{
	const struct lr_paired *p = &row->p;

	if (lr_report_exploratory(rr)) {
		snprintf(buf, len, "exploratory: %d timed batches, no interval, no verdict", row->blocks);
		return buf;
	}
	if (rr->exploratory_metric) {
		int w = direction(row);

		if (w < 2)
			snprintf(buf, len, "%s (%s)", w ? "lower" : "higher",
				 (w == 0) == rr->higher ? "better" : "worse");
		else
			snprintf(buf, len, "%s", w == 2 ? "no change shown" : "no interval");
		return qualify(buf, len, rr, row);
	}
	if (within_floor(rr, row)) {
		snprintf(buf, len, "within the A/A noise floor of run %lld [%+.1f%%, %+.1f%%]: no effect is claimed",
			 (long long)rr->aa_run, (rr->aa_lo - 1) * 100, (rr->aa_hi - 1) * 100);
		return qualify(buf, len, rr, row);
	}
	lr_verdict_metric_text(buf, len, p, rr->design.margin, b_name, rr->design.metric);
	return qualify(buf, len, rr, row);
}

const char *lr_report_floor_text(char *buf, size_t len, const struct lr_report_run *rr)
{
	if (lr_report_has_floor(rr))
		lr_fmt_cut(
			buf, len,
			"A/A run %lld (%s), on this host, of this target, started before this run; its widest "
			"95%% interval is [%+.1f%%, %+.1f%%] (%.1f%% wide), and a result whose interval lies inside it "
			"claims no effect",
			(long long)rr->aa_run, rr->aa_name, (rr->aa_lo - 1) * 100, (rr->aa_hi - 1) * 100,
			rr->aa_width * 100);
	else if (rr->aa_run)
		lr_fmt_cut(buf, len, "none: A/A run %lld (%s) %s, so it is no floor", (long long)rr->aa_run,
			   rr->aa_name,
			   rr->aa_excludes_1 ? "has an interval that excludes 1 (a bias between identical arms)"
					     : "has no interval");
	else
		lr_fmt_cut(buf, len,
			   "none: no A/A run of this target on this host started before this run "
			   "(experiments/aa-noise.ini measures one)");
	return buf;
}
