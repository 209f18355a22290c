/*
 * The report in the format asked: its document through the document's
 * writers (Markdown, HTML, text) or its data (CSV, JSON); and the report
 * files of a crate.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "experiment/report.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "serving/report.h"

/* The report as a document, written in f (Markdown, cut to max_chars; HTML's body; text). */
static int write_doc(FILE *f, enum lr_format format, const struct lr_report *rep, const struct lr_serving_report *sv,
		     const char *title, size_t max_chars)
{
	struct lr_doc d;
	int rc;

	lr_doc_init(&d);
	lr_render_report_doc(&d, rep, sv, &(struct lr_report_label){ title, NULL }, format == LR_FORMAT_HTML);
	if (format == LR_FORMAT_MD)
		lr_render_report_fit(&d, max_chars);
	if (!(rc = lr_doc_error(&d)))
		rc = lr_doc_write(f, &d, format);
	lr_doc_release(&d);
	return rc;
}

int lr_render_report_max(FILE *f, enum lr_format format, const struct lr_report *rep,
			 const struct lr_serving_report *sv, const char *title, size_t max_chars)
{
	switch (format) {
	case LR_FORMAT_CSV: return lr_render_csv(f, rep, sv, 0);
	case LR_FORMAT_TIDY: return lr_render_csv(f, rep, sv, 1);
	case LR_FORMAT_JSON: return lr_render_json(f, rep, sv, title);
	case LR_FORMAT_HTML: return lr_render_html(f, rep, sv, title);
	default: return write_doc(f, format, rep, sv, title, max_chars);
	}
}

int lr_render_report(FILE *f, enum lr_format format, const struct lr_report *rep, const struct lr_serving_report *sv,
		     const char *title)
{
	return lr_render_report_max(f, format, rep, sv, title, LR_REPORT_MAX_CHARS);
}

/* 'format' of the report into a new string. */
static int render_text(enum lr_format format, const struct lr_report *rep, const struct lr_serving_report *sv,
		       const char *title, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int rc;

	if (!f)
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_render_report(f, format, rep, sv, title);
	if (fclose(f) && !rc)
		rc = lr_error_set(LR_ENOMEM, "out of memory");
	return rc;
}

int lr_render_crate_files(struct lr_store *st, const int64_t *ids, int n, const char *title,
			  struct lr_crate_report *out)
{
	struct lr_serving_report sv;
	struct lr_report rep;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&sv, 0, sizeof sv);
	if ((rc = lr_report_build_runs(st, ids, n, &rep)))
		return rc == LR_ENOTFOUND ? 0 : rc;
	if (!(rc = lr_serving_report_build(st, rep.ids, rep.nids, NULL, 0, &sv)) &&
	    (rep.nruns || rep.nrecords || sv.nrows) &&
	    !(rc = render_text(LR_FORMAT_MD, &rep, &sv, title, &out->md))) /* cut as 'report' cuts it */
		rc = render_text(LR_FORMAT_JSON, &rep, &sv, title, &out->json);
	lr_serving_report_release(&sv);
	lr_report_release(&rep);
	if (rc)
		lr_render_crate_files_release(out);
	return rc;
}

void lr_render_crate_files_release(struct lr_crate_report *f)
{
	free(f->md);
	free(f->json);
	memset(f, 0, sizeof *f);
}
