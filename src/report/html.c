/*
 * The report in HTML: 'labrun report --format html' as one self-contained
 * page (inline CSS, no scripts, no external assets) around the report's
 * document, the same blocks the Markdown has, with an inline SVG chart per
 * condition and arm pair; and the same sections for the pages of the site.
 */
#include "config.h"
#include "base/system.h"

#include "experiment/report.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "report/text.h"
#include "serving/report.h"

/* d as HTML blocks, then released. */
static int write_html(FILE *f, struct lr_doc *d)
{
	int rc = lr_doc_error(d);

	if (!rc)
		rc = lr_doc_write(f, d, LR_FORMAT_HTML);
	lr_doc_release(d);
	return rc;
}

int lr_render_html_runs(FILE *f, const struct lr_report *rep)
{
	struct lr_doc d;

	lr_doc_init(&d);
	for (int i = 0; i < rep->nruns; i++)
		lr_render_run_doc(&d, &rep->runs[i], 1);
	return write_html(f, &d);
}

int lr_render_html_serving(FILE *f, const struct lr_serving_report *sv)
{
	struct lr_doc d;

	lr_doc_init(&d);
	lr_render_serving_doc(&d, sv);
	return write_html(f, &d);
}

int lr_render_html(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title)
{
	struct lr_doc d;
	int rc;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: ", f);
	lr_html_text(f, title);
	fputs("</title>\n<style>body{font:14px/1.45 sans-serif;margin:24px;max-width:1100px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:3px 8px}"
	      "td.n{text-align:right}code{background:#f3f3f3;padding:0 3px}.chart{margin:6px 12px 6px 0}</style>\n"
	      "</head><body>\n",
	      f);
	lr_doc_init(&d);
	lr_render_report_doc(&d, rep, sv, &(struct lr_report_label){ title, NULL }, 1);
	rc = write_html(f, &d);
	fputs("</body></html>\n", f);
	return rc;
}
