/*
 * A document written as HTML: the blocks of a page's body ('report --format
 * html' and the pages of the site put their frame around them), every string
 * escaped here. Charts are inline SVG, drawn by labrun, with no script.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "report/text.h"

/* The table's figure for a ratio B/A: reduction 1 - r, or change r - 1 for command targets, in %. */
static double table_pct(double r, int change)
{
	return (change ? r - 1 : 1 - r) * 100;
}

/*
 * The ratios to put ticks at, between rmin and rmax, at least 16 px apart
 * (y maps a ratio to its pixel row). Round ratios on a log scale, 1 among
 * them; for a narrow range, evenly spaced ones. Returns how many were put in tick[].
 */
static int ticks(double rmin, double rmax, double (*y)(double, const double *), const double *ya, double *tick, int max)
{
	static const double logs[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1,
				       1.05, 1.1,  1.25, 1.5, 2,   3,   5,   10,  20,  50,  100 };
	static const double steps[] = { 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1 };
	double v;
	size_t i;
	int n = 0, j;
	long long k;

	if (rmax / rmin > 1.5) { /* 1 first: "no difference" always has its tick */
		if (rmin <= 1 && rmax >= 1)
			tick[n++] = 1;
		for (i = 0; i < sizeof logs / sizeof logs[0] && n < max; i++) {
			for (j = 0; j < n && fabs(y(logs[i], ya) - y(tick[j], ya)) >= 16; j++)
				;
			if (j == n && logs[i] >= rmin && logs[i] <= rmax)
				tick[n++] = logs[i];
		}
		return n;
	}
	for (i = 0; i < sizeof steps / sizeof steps[0] - 1; i++)
		if ((rmax - rmin) / steps[i] <= 6)
			break;
	for (k = (long long)ceil(rmin / steps[i]); (v = k * steps[i]) <= rmax && n < max; k++)
		tick[n++] = v;
	return n;
}

/* Pixel row of ratio v: ya = { top, height, ymin, ymax } (log ratios). */
static double chart_y(double v, const double *ya)
{
	return ya[0] + ya[1] * (1 - (log(v) - ya[2]) / (ya[3] - ya[2]));
}

/* The table's figure at the round ratios between rmin and rmax, with light grid lines from x0 to x1. */
static void svg_ticks(FILE *f, double rmin, double rmax, const double *ya, double x0, double x1, int change)
{
	double tick[16];
	int t, nt = ticks(rmin, rmax, chart_y, ya, tick, 16);

	for (t = 0; t < nt; t++) {
		double y = chart_y(tick[t], ya), pct = table_pct(tick[t], change);

		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
			x0, x1, y, y);
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.*f%%</text>\n",
			x0 - 4, y + 4, fabs(pct - round(pct)) > 1e-9, pct + 0.0);
	}
}

/*
 * One chart for one condition and arm pair, captioned with both (its title): the ratio
 * B/A of each timed block (dots), the median (red line), the 95% interval
 * (band), no difference (dashed) and the practical margin 1 ± δ (dotted).
 * Ratios sit on a log scale, so faster and slower look alike; the axis is
 * labelled in the table's own figure (reduction, or change), so a tick reads
 * like a table cell.
 */
static void svg_chart(FILE *f, const struct lr_chart *w)
{
	const double margin = w->margin;
	const int change = w->change;
	const double W = 560, H = 230, L = 64, R = 12, T = 30, B = 34;
	double lo = w->has_interval ? w->lo : w->estimate, hi = w->has_interval ? w->hi : w->estimate, rmin, rmax, ymin,
	       ymax, pad;
	double ya[4];
	const char *fig = change ? "change" : "reduction";
	int i;

	rmin = fmin(fmin(lo, 1 - margin), w->estimate);
	rmax = fmax(fmax(hi, 1 + margin), w->estimate);
	for (i = 0; i < w->n; i++) {
		rmin = fmin(rmin, w->values[i]);
		rmax = fmax(rmax, w->values[i]);
	}
	/* room for a dot's radius and more at both ends: a dot at the extreme ratio once sat half outside the plot */
	pad = fmax(0.03, (log(rmax) - log(rmin)) * 9 / (H - T - B - 18));
	ymin = log(rmin) - pad;
	ymax = log(rmax) + pad;
#define Y(v) (T + (H - T - B) * (1 - (log(v) - ymin) / (ymax - ymin)))
#define X(i) (L + (W - L - R) * ((i) + 0.5) / w->n)
	fprintf(f,
		"<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"xmlns=\"http://www.w3.org/2000/svg\"><title>",
		W, H, W, H);
	lr_html_text(f, w->title);
	fputs("</title>\n<text class=\"caption\" x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", f);
	lr_html_text(f, w->title);
	fprintf(f, ": %s %.1f%%</text>\n", fig, table_pct(w->estimate, change));
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"#999\"/>\n", L, T,
		W - L - R, H - T - B);
	if (w->has_interval) { /* at least 10 px tall, so a narrow interval still shows around the 2 px median line */
		double top = Y(hi), height = Y(lo) - Y(hi);

		if (height < 10) {
			top -= (10 - height) / 2;
			height = 10;
		}
		top = fmax(top, T); /* and never past the plot's frame */
		height = fmin(height, H - B - top);
		fprintf(f,
			"<rect class=\"interval\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffd8a8\"/>\n",
			L, top, W - L - R, height);
	}
	/* ticks: the table's figure at round ratios, with light grid lines */
	ya[0] = T, ya[1] = H - T - B, ya[2] = ymin, ya[3] = ymax;
	svg_ticks(f, rmin, rmax, ya, L, W - R, change);
	/* the margin under the no-difference line: a narrow margin lies a pixel or two from it */
	for (i = -1; i <= 1; i += 2)
		fprintf(f,
			"<line class=\"margin\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#2ca02c\" "
			"stroke-dasharray=\"1 3\" stroke-width=\"2\"/>\n",
			L, W - R, Y(1 + i * margin), Y(1 + i * margin));
	fprintf(f,
		"<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
		"stroke-dasharray=\"4 3\"/>\n",
		L, W - R, Y(1.0), Y(1.0));
	fprintf(f,
		"<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2\"/>\n",
		L, W - R, Y(w->estimate), Y(w->estimate));
	for (i = 0; i < w->n; i++)
		fprintf(f, "<circle class=\"block\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#1f77b4\"/>\n", X(i),
			Y(w->values[i]));
	fprintf(f,
		"<text x=\"12\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">"
		"%s (%%, log scale)</text>\n",
		T + (H - T - B) / 2, T + (H - T - B) / 2, fig);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">block 1..%d; dots: each block, red: "
		"median, band: 95%% interval, dashed: none, green: margin &#177;%g%%</text>\n</svg>\n",
		L + (W - L - R) / 2, H - 10, w->n, margin * 100);
#undef X
#undef Y
}

/* Inline text as HTML: words escaped, code spans in <code>, breaks as new lines. */
void lr_doc_html_inline(FILE *f, const struct lr_buf *t)
{
	const char *s;
	size_t i = 0, n;

	while (i < t->len) {
		int code = lr_doc_next_span(t, &i, &s, &n);
		char *w = strndup(s, n);

		if (!w)
			return;
		if (code)
			fputs("<code>", f);
		lr_html_text(f, w);
		if (code)
			fputs("</code>", f);
		free(w);
	}
}

static void html_facts(FILE *f, const struct lr_doc_block *b)
{
	int level = 0;

	if (b->text.len) {
		fputs("<p>", f);
		lr_doc_html_inline(f, &b->text);
		fputs(b->nitems ? ":</p>\n" : ": none.</p>\n", f);
	}
	if (!b->nitems)
		return;
	fputs("<ul>\n", f);
	for (size_t i = 0; i < b->nitems; i++) {
		int to = b->items[i].level > 0;

		if (i)
			fputs(to > level ? "\n<ul>\n" : to < level ? "</li>\n</ul></li>\n" : "</li>\n", f);
		level = to;
		fputs("<li>", f);
		lr_doc_html_inline(f, &b->items[i].text);
	}
	fputs(level ? "</li>\n</ul></li>\n</ul>\n" : "</li>\n</ul>\n", f);
}

int lr_doc_html_block(FILE *f, const struct lr_doc_block *b)
{
	switch (b->kind) {
	case LR_BLOCK_HEADING:
		fprintf(f, "<h%d>", b->level < 1 ? 1 : b->level > 6 ? 6 : b->level);
		lr_doc_html_inline(f, &b->text);
		fprintf(f, "</h%d>\n", b->level < 1 ? 1 : b->level > 6 ? 6 : b->level);
		return 1;
	case LR_BLOCK_PROSE:
	case LR_BLOCK_NOTE:
		fputs("<p>", f);
		lr_doc_html_inline(f, &b->text);
		fputs("</p>\n", f);
		return 1;
	case LR_BLOCK_FACTS: html_facts(f, b); return 1;
	case LR_BLOCK_TABLE:
		if (!b->missing) {
			lr_render_table_html(f, &b->table);
			return 1;
		}
		fputs("<p>", f);
		lr_html_text(f, b->missing);
		fputs(": the table is missing</p>\n", f);
		return 1;
	case LR_BLOCK_CHART: svg_chart(f, &b->chart); return 1;
	case LR_BLOCK_CODE:
		fputs("<details><summary>", f);
		lr_doc_html_inline(f, &b->text);
		fputs("</summary><pre>", f);
		lr_html_text(f, b->code.buf);
		fputs("</pre></details>\n", f);
		return 1;
	case LR_BLOCK_FOLD: /* its blocks follow; the writer closes it after the last (doc-write.c) */
		fputs("<details><summary>", f);
		lr_doc_html_inline(f, &b->text);
		fputs("</summary>\n", f);
		return 1;
	}
	return 0;
}
