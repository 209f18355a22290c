#ifndef LR_CMD_REPORT_INT_H
#define LR_CMD_REPORT_INT_H

/*
 * What the files of 'labrun report' share: report.c (options, Markdown,
 * CSV, JSON), report-html.c (the HTML page and its charts) and
 * report-bench.c (a stored benchmark run).
 */

#include <stdio.h>

#include "base/model.h"
#include "experiment/report.h"
#include "serving/report.h"

/* The report as one self-contained HTML page. */
void cmd_report_html(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title);

/* The tables of a stored 'bench' run in FORMAT (md, csv, json or html). */
int cmd_report_bench(FILE *f, const struct lr_run *run, const char *format);

#endif
