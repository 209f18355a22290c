/*
 * labrun site: a page per issue, what a review of it reads first. The
 * site's runs that are evidence for the issue, then their serving evidence
 * as the report accounts for it (the same sentence), the route matrix as a
 * grid whose cells open their failing cases, and the distributions of
 * what 'labrun collect' timed, per route.
 */
#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "report/render-int.h"
#include "report/site-int.h"
#include "report/text.h"
#include "serving/report.h"

const char *lr_site_issue_page(char *buf, size_t len, const char *ref)
{
	size_t o = (size_t)snprintf(buf, len, "issue-");

	for (const unsigned char *c = (const unsigned char *)ref; *c && o + 9 < len; c++)
		o += (size_t)snprintf(
			buf + o, len - o,
			(*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' ? "%c" : "_%02x", *c);
	snprintf(buf + o, len - o, ".html");
	return buf;
}

static int serving(FILE *f, struct lr_store *st, const struct lr_site_issue *i)
{
	struct lr_serving_report sv = { 0 };
	char text[1024];
	int rc;

	if ((rc = lr_serving_report_build(st, i->ids, i->n, NULL, 0, &sv)) || !sv.nrows) {
		if (!rc)
			fputs("<p>None of these runs holds serving evidence (responses, comparisons, gates).</p>\n", f);
		lr_serving_report_release(&sv);
		return rc;
	}
	fputs("<h2>Serving evidence</h2>\n<p id=\"accounting\">", f);
	lr_html_text(f, lr_render_cells_text(text, sizeof text, &sv));
	fputs(".</p>\n<h3 id=\"matrix\">The route matrix</h3>\n", f);
	lr_site_grid(f, &sv);
	if (!(rc = lr_site_distributions(f, st, i->ids, i->n, &sv))) {
		fputs("<h3 id=\"cells\">Each cell</h3>\n", f);
		rc = lr_site_cells(f, st, &sv);
	}
	lr_serving_report_release(&sv);
	return rc;
}

int lr_site_issue_write(struct lr_store *st, const char *dir, const struct lr_site_issue *i)
{
	char name[1024], title[300];
	FILE *f;
	int rc;

	lr_site_issue_page(name, sizeof name, i->ref);
	if ((rc = lr_render_site_create(&f, dir, name)))
		return rc;
	snprintf(title, sizeof title, "issue %s", i->ref);
	lr_render_site_head(f, title);
	fputs("<p><a href=\"index.html\">all runs</a></p>\n<h1>Issue ", f);
	lr_html_text(f, i->ref);
	fprintf(f, "</h1>\n<p>%d run%s of this site %s evidence for it:</p>\n<ul>\n", i->n, i->n == 1 ? "" : "s",
		i->n == 1 ? "is" : "are");
	for (int k = 0; k < i->n; k++) {
		fprintf(f, "<li><a href=\"run-%lld.html\">run %lld</a>: ", (long long)i->ids[k], (long long)i->ids[k]);
		lr_html_text(f, i->what[k]);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	rc = serving(f, st, i);
	fputs("</body></html>\n", f);
	return lr_render_site_close(f, name) ? LR_EIO : rc;
}
