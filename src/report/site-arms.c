/*
 * labrun site: each arm of an experiment run over its timed blocks, a
 * figure per condition, beside the tables whose drift column it draws: a
 * block's value is the mean of the arm's two repetitions in it (the sums the
 * drift is computed from, halved), and the key gives each arm's drift as
 * the report computes it, as information (a crate of a format before the
 * ratio trend rule keeps its DRIFT flag past the practical margin, as its
 * report did). The paired estimate cancels drift between blocks; the
 * picture shows whether there was any, and in which arm.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "experiment/report.h"
#include "report/site-int.h"
#include "store/experiments.h"

/* Arm a's values in condition c, a value per timed repetition: the run's metric, or its wall time in ms. */
static int arm_values(struct lr_store *st, const struct lr_report_run *rr, int c, int a, double **v, int *n)
{
	int higher, flagged, rc;

	if (rr->design.metric[0])
		return lr_store_arm_metric(st, rr->run.id, c, a, rr->design.metric, v, n, &higher, &flagged);
	if ((rc = lr_store_arm_times(st, rr->run.id, c, a, v, n, &flagged)))
		return rc;
	for (int i = 0; i < *n; i++)
		(*v)[i] *= 1e3;
	return 0;
}

/* Arm a's drift in the row of condition k, as the report's tables have it (arm 0's from the first table). */
static double arm_drift(const struct lr_report_run *rr, int k, int a)
{
	return a == 0 ? rr->tables[0].rows[k].drift_a : rr->tables[a - 1].rows[k].drift_b;
}

static void figure(FILE *f, const struct lr_report_run *rr, int k, double **v, int blocks)
{
	const char *unit = rr->design.metric[0] ? rr->design.metric : "wall time, ms";
	struct lr_plot p = { .w = 560, .l = 70, .r = 16, .t = 28, .ncat = blocks };
	double lo = INFINITY, hi = -INFINITY, x[512], y[512];
	char title[400], key[200];

	for (int a = 0; a < rr->narm; a++)
		for (int i = 0; i < blocks; i++) {
			lo = fmin(lo, (v[a][2 * i] + v[a][2 * i + 1]) / 2);
			hi = fmax(hi, (v[a][2 * i] + v[a][2 * i + 1]) / 2);
		}
	lr_plot_range(&lo, &hi, 5, 0, &p.ystep);
	p.y0 = lo;
	p.y1 = hi;
	lr_plot_size(&p, 160, rr->narm);
	snprintf(title, sizeof title, "%s: each arm's %s per block", rr->tables[0].rows[k].label, unit);
	p.title = title;
	p.xlabel = "timed block (the mean of its two repetitions)";
	p.ylabel = unit;
	lr_plot_open(f, &p);
	for (int a = 0; a < rr->narm; a++) {
		double d = arm_drift(rr, k, a);

		for (int i = 0; i < blocks; i++) {
			x[i] = i + 1;
			y[i] = (v[a][2 * i] + v[a][2 * i + 1]) / 2;
		}
		lr_plot_line(f, &p, a, x, y, (size_t)blocks, 0, 1);
		snprintf(key, sizeof key, "%s: drift %+.1f%%%s", rr->arm[a], d * 100,
			 lr_report_drift_marks(rr) && fabs(d) > rr->design.margin ? " DRIFT (past the margin)" : "");
		lr_plot_key(f, &p, a, a, 1, key);
	}
	lr_plot_close(f);
}

int lr_site_arm_blocks(FILE *f, struct lr_store *st, const struct lr_report_run *rr)
{
	double *v[LR_EXP_MAXARMS] = { 0 };
	int rc = 0, shown = 0;

	for (int k = 0; rr->ntables && k < rr->tables[0].nrows && !rc; k++) {
		int n, blocks = 512 / 2;

		if (!rr->tables[0].rows[k].has)
			continue;
		for (int a = 0; a < rr->narm && !rc; a++) {
			free(v[a]);
			v[a] = NULL;
			if (!(rc = arm_values(st, rr, rr->tables[0].rows[k].cond, a, &v[a], &n)) && n / 2 < blocks)
				blocks = n / 2;
		}
		if (rc || blocks < 1)
			continue;
		if (!shown++)
			fprintf(f,
				"<h3 id=\"arm-blocks\">Each arm over the blocks</h3>\n<p>A figure per condition: each arm's "
				"value in each timed block, the mean of its two repetitions there, with the drift the tables "
				"give (the relative change over the blocks%s). The paired estimate cancels drift between "
				"blocks; this shows whether there was any, and where.</p>\n",
				lr_report_drift_marks(rr)
					? ", flagged DRIFT past the practical margin"
					: "; what threatens a verdict is a trend in the block ratios, "
					  "which the tables weigh");
		figure(f, rr, k, v, blocks);
	}
	for (int a = 0; a < LR_EXP_MAXARMS; a++)
		free(v[a]);
	return rc;
}
