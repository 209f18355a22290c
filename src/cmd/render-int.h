#ifndef LR_CMD_RENDER_INT_H
#define LR_CMD_RENDER_INT_H

/*
 * What the report's writers share among themselves: render.c (Markdown and
 * the dispatch by format), render-data.c (CSV and JSON) and render-serving.c
 * (the serving matrix and its sentence, declared in cmd.h for the commands
 * that print them).
 */

#include <stdio.h>

#include "experiment/report.h"
#include "serving/report.h"

/* The report as data: CSV sections, or one JSON document. */
LR_MUST_CHECK int cmd_render_csv(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv);
void cmd_render_json(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title);

#endif
