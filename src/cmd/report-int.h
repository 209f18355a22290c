#ifndef LR_CMD_REPORT_INT_H
#define LR_CMD_REPORT_INT_H

/*
 * What the files of 'labrun report' share: report.c (options, Markdown,
 * CSV, JSON; HTML in render-html.c) and report-bench.c (a stored
 * benchmark run).
 */

#include <stdio.h>

#include "base/model.h"
#include "experiment/report.h"
#include "serving/report.h"

/* The tables of a stored 'bench' run in FORMAT (md, csv, json or html). */
int cmd_report_bench(FILE *f, const struct lr_run *run, const char *format);

#endif
