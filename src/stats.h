#ifndef LR_STATS_H
#define LR_STATS_H

/* Summaries of repeated measurements (the paired estimators of the method file join them later). */

#include <stddef.h>

/* The median of v[0..n) (sorted in place); 0 when n is 0. */
double lr_median(double *v, size_t n);

#endif
