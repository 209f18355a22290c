#ifndef LR_REPORT_H
#define LR_REPORT_H

/*
 * Reports, regenerated from the store alone: every figure is recomputed
 * from stored repetitions (the runner's own summaries are not trusted), in
 * a fixed order, so the same store always gives the same bytes. Nothing
 * here prints; cmd-report.c formats.
 */

#include "base/error.h"
#include "base/list.h"
#include "base/model.h"
#include "base/stats.h"
#include "experiment/expdef.h"
#include "experiment/plan.h"
#include "experiment/prereg.h"
#include "store/experiments.h"
#include "store/ledger.h"
#include "store/runs.h"
#include "store/store.h"

struct lr_report_row {
	int cond;
	char label[256]; /* "qwen3-4b 28/2048", or a command experiment's grid values */
	char model[32];
	int64_t layers, tokens;
	char status[16];
	const char *failure; /* borrowed from the run's condition rows */
	int blocks, flagged;
	double median_a_ms, median_b_ms;
	double mean_a, mean_b; /* each arm's mean of the values its median is of (the mean form) */
	struct lr_paired p;
	int has;             /* an estimate exists (passed, at least one block) */
	double *block_ratio; /* (B1+B2)/(A1+A2) per timed block, in block order (malloc'd) */
	double *block_a,
		*block_b; /* each arm's mean of its two executions per timed block, in the medians' unit (malloc'd) */
	double drift_a, drift_b; /* each arm's relative change over the timed blocks (lr_drift): information */
	int drifted;             /* either beyond the practical margin: information, never a flag on the verdict */
	struct lr_trend trend;   /* the block ratios' own trend: when flagged, the verdict is qualified */
};

struct lr_report_table {
	int arm; /* compared with arm 0 */
	struct lr_report_row *rows;
	int nrows;
};

struct lr_report_run {
	struct lr_run run;
	struct lr_stored_design design; /* from its rows (experiment/plan.h) */
	int higher;                     /* command experiments: the metric is better higher */
	char arm[LR_EXP_MAXARMS][32], kernel[LR_EXP_MAXARMS][32];
	int narm;
	struct lr_store_condition_row *conds;
	int nconds;
	struct lr_report_table tables[LR_EXP_MAXARMS];
	int ntables;
	int passed, failed, missing;
	/* the noise floor (docs/method.md): the A/A run that qualifies this one, and its widest interval */
	int64_t aa_run; /* 0: no A/A run qualifies */
	char aa_name[64];
	double aa_width;     /* hi - lo of the ratio, widest over its rows */
	double aa_lo, aa_hi; /* that widest interval */
	int aa_excludes_1;   /* one of its intervals excludes 1: a bias, so it is no floor */
	/* its design as registered before its first block, and what changed since its experiment's earlier run */
	struct lr_prereg prereg;
	/* [report] of its definition, and --metric (report-metrics.c) */
	unsigned forms; /* LR_FORM_*: how its tables show their figures */
	/*
	 * Each further metric as a run of its own: the same run, arms and
	 * conditions (borrowed from this one: never released through it), its
	 * tables built by the same code from that metric's values, design.metric
	 * its name, exploratory_metric set.
	 */
	struct lr_report_run *metrics;
	int nmetrics;
	struct lr_strlist unstored; /* metrics [report] names that no execution of the run wrote */
	int exploratory_metric;     /* one of those: directions, never a verdict (docs/design.md) */
	char unit[64];              /* its unit, as its rows give it ("" when none was given) */
	int format;                 /* rendered as report data format N (verify of an older crate); 0: this one's */
};

/*
 * The verdict of 'row' of 'rr' in the method's words (lr_verdict_metric_text),
 * or, when its interval lies inside the A/A run's interval, that it is within
 * the noise floor, claiming no effect; qualified, with the reason, when the
 * block ratios trend (lr_report_qualified).
 */
const char *lr_report_verdict(char *buf, size_t len, const struct lr_report_run *rr, const struct lr_report_row *row,
			      const char *b_name);
/*
 * The verdict's kind, for data: "lower" or "higher" (the ratio B/A beyond the
 * margin), "lower-direction", "higher-direction", "detectable", "equivalent",
 * "inconclusive", "noise-floor", "exploratory", or the row's status when it
 * has no estimate.
 */
const char *lr_report_verdict_kind(const struct lr_report_run *rr, const struct lr_report_row *row);
/*
 * Row's effect and interval in percent, as the tables show them: a command
 * experiment's change r - 1, a built-in target's reduction 1 - r; lo <= hi.
 */
void lr_report_pct(const struct lr_report_run *rr, const struct lr_report_row *row, double *effect, double *lo,
		   double *hi);
/*
 * 1 when row's two medians and its paired estimate point different ways: the
 * medians pool every repetition, the estimate is the median of the block
 * ratios, and for an effect near zero the two may disagree in sign.
 */
int lr_report_sign_disagrees(const struct lr_report_row *row);
/*
 * What rr's medians are in: an exploratory metric's unit, the design's
 * metric's name, or "ms" (the unit of a table, as JSON and CSV say it).
 */
const char *lr_report_unit(const struct lr_report_run *rr);
/*
 * The range of table tb's paired estimates over its conditions (the range
 * form): the least and greatest ratio B/A of its rows with an estimate, and
 * how many there are (0: none, *lo and *hi untouched).
 */
int lr_report_range(const struct lr_report_table *tb, double *lo, double *hi);
/* 1 when row's verdict is qualified: it has one, and its block ratios trend (docs/method.md, "Drift"). */
int lr_report_qualified(const struct lr_report_run *rr, const struct lr_report_row *row);
/* 1 when rr's design is exploratory (fewer blocks than an interval needs): no interval, no verdict. */
int lr_report_exploratory(const struct lr_report_run *rr);
/* 1 when rr has a noise floor that qualifies its results: an A/A run whose intervals all contain 1. */
int lr_report_has_floor(const struct lr_report_run *rr);
/* The report's sentence on rr's noise floor: which A/A run and its interval, or why there is none. */
const char *lr_report_floor_text(char *buf, size_t len, const struct lr_report_run *rr);

struct lr_report {
	struct lr_report_run *runs; /* the experiment runs, with their tables */
	int nruns;
	int64_t *ids; /* every matching run, oldest first (serving evidence may be on any) */
	int nids;
	struct lr_run *records; /* the runs of 'record' and 'import' among them, oldest first, with their checks */
	int nrecords;
	struct lr_ledger_head head; /* the store's ledger head when the report was built */
	char *head_statement;       /* that head signed (lr_store_head_statement); NULL: empty ledger */
	int format;                 /* rendered as report data format N (lr_report_as_format); 0: this one's */
};

/*
 * The report data format from which a verdict weighs the block ratios' trend
 * and per-arm drift is no flag; before it, a row was marked DRIFT on either
 * arm's drift past the margin and no verdict was qualified.
 */
#define LR_REPORT_FORMAT_TREND 3
/* Render rep (every run of it) as data format 'format' wrote it: verify of a crate of that format. */
void lr_report_as_format(struct lr_report *rep, int format);
/* 1 when rr is rendered as a format before LR_REPORT_FORMAT_TREND: DRIFT marks, no qualified verdicts. */
int lr_report_drift_marks(const struct lr_report_run *rr);

/*
 * The runs matching 'f' (or the single run 'run_id' when > 0), oldest
 * first; the experiment runs among them with their tables, the tables of
 * the further metrics their definitions' [report] asks for
 * (report-metrics.c), and the recorded commands and imports as they are
 * stored. LR_ENOTFOUND when no run matches.
 */
LR_MUST_CHECK int lr_report_build(struct lr_store *st, const struct lr_run_filter *f, int64_t run_id,
				  struct lr_report *out);
/* The same for the runs runs[0..n), in that order (a crate's runs). */
LR_MUST_CHECK int lr_report_build_runs(struct lr_store *st, const int64_t *runs, int n, struct lr_report *out);

/* Metrics asked for beyond [report]'s ('report --metric'): names, or "all" among them for every one. */
struct lr_report_ask {
	const char *const *metrics;
	int n;
};
/*
 * lr_report_build, with the tables of the metrics 'ask' names too. A name
 * no run of the report wrote is LR_EINVAL naming the metrics there are; a
 * metric whose rows disagree in unit or direction is LR_EREFUSED naming it.
 */
LR_MUST_CHECK int lr_report_build_asked(struct lr_store *st, const struct lr_run_filter *f, int64_t run_id,
					const struct lr_report_ask *ask, struct lr_report *out);
void lr_report_release(struct lr_report *r);

/* ---- for report-metrics.c: the steps lr_report_build takes (report.c) ---- */

/*
 * The report of runs ids[0..n) (owned by out from here on): each experiment
 * run with its design's tables and noise floor; 'single': one run asked for
 * by id, which must be reportable. Released on an error.
 */
LR_MUST_CHECK int lr_report_runs_build(struct lr_store *st, int64_t *ids, int n, int single, struct lr_report *out);
/* rr's tables, one per arm against the baseline, of the metric rr->design.metric (wall time when ""). */
LR_MUST_CHECK int lr_report_tables_build(struct lr_store *st, struct lr_report_run *rr);

#endif
