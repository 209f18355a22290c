#ifndef LR_STORE_METRICS_H
#define LR_STORE_METRICS_H

/*
 * The metrics a command experiment's executions wrote ($LABRUN_METRICS,
 * table 'metric'), as the report reads them beyond the design's own: which
 * names a run holds, each with its unit and direction, and which timed
 * executions lack one (store/metrics.c).
 */

#include "store/store.h"

/*
 * A metric name of a run: the unit and direction of its rows. Two rows
 * that disagree show as unit != unit_other (or higher != higher_other):
 * the least and the greatest of each, in SQLite's text order.
 */
struct lr_store_metric_name {
	const char *name;
	const char *unit, *unit_other;
	int higher, higher_other; /* 1: 'better' is 'higher' */
};

/* Each metric name of run 'run', in name order, through fn (its strings valid during the call). */
typedef int (*lr_metric_name_fn)(void *arg, const struct lr_store_metric_name *m);
LR_MUST_CHECK int lr_store_metric_names(struct lr_store *st, int64_t run, lr_metric_name_fn fn, void *arg);

/*
 * How many timed (non-warm-up) executions of arm 'arm' in condition 'cond'
 * of run 'run' wrote no metric 'name', into *missing.
 */
LR_MUST_CHECK int lr_store_metric_missing(struct lr_store *st, int64_t run, int cond, int arm, const char *name,
					  int64_t *missing);

#endif
