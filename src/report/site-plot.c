/*
 * labrun site: the frame of every figure the site draws beside its tables
 * (site-int.h): round ticks, axes named with their units, lines told apart
 * by colour, dash and marker, and a key under the plot. Text never leaves
 * the picture: a caption or a name too wide is cut with an ellipsis, as a
 * browser clips what passes an <svg>'s edge.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "report/site-int.h"
#include "report/text.h"

/* Colour, dash and marker of each series: the dash and the marker tell them apart in grey too. */
static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				       "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f" };
static const char *const dashes[] = { "", "7 3", "2 2", "9 3 2 3", "4 4", "1 3" };
#define NSTYLES(a) (sizeof(a) / sizeof *(a))

void lr_plot_size(struct lr_plot *p, double height, int rows)
{
	p->b = 46 + 18.0 * rows;
	p->h = p->t + height + p->b;
}

void lr_plot_range(double *lo, double *hi, int most, double least, double *step)
{
	static const double m[] = { 1, 2, 5 };
	double span, mag;

	if (!(*hi > *lo)) { /* one value (or none): a range around it */
		double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;

		*lo -= d;
		*hi += d;
	}
	span = *hi - *lo;
	mag = pow(10, floor(log10(span / most)));
	for (int i = 0;; i = (i + 1) % 3) {
		*step = m[i] * mag;
		if (*step >= least && ceil(*hi / *step - 1e-9) - floor(*lo / *step + 1e-9) <= most)
			break;
		if (i == 2)
			mag *= 10;
	}
	*lo = floor(*lo / *step + 1e-9) * *step;
	*hi = ceil(*hi / *step - 1e-9) * *step;
}

double lr_plot_x(const struct lr_plot *p, double x)
{
	double w = p->w - p->l - p->r;

	if (p->ncat > 0)
		return p->l + w * (x - 0.5) / p->ncat;
	return p->l + w * (x - p->x0) / (p->x1 - p->x0);
}

double lr_plot_y(const struct lr_plot *p, double y)
{
	return p->t + (p->h - p->t - p->b) * (1 - (y - p->y0) / (p->y1 - p->y0));
}

double lr_plot_text_width(const char *text, int size)
{
	double w = 0;

	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		if ((*c & 0xc0) != 0x80) /* a character, not a continuation byte */
			w += strchr("mwMW@%", *c) ? 0.95 : (*c >= 'A' && *c <= 'Z') || *c >= 0x80 ? 0.75 : 0.62;
	return w * size;
}

void lr_plot_text(FILE *f, double x, double y, int size, const char *anchor, double maxw, const char *attrs,
		  const char *text)
{
	char *cut = NULL;

	if (lr_plot_text_width(text, size) > maxw && (cut = strdup(text))) {
		size_t n = strlen(cut);

		/* shorter until it fits with the ellipsis, and never in the middle of a character */
		while (n > 0 && (lr_plot_text_width(cut, size) + 0.75 * size > maxw || (text[n] & 0xc0) == 0x80))
			cut[--n] = '\0';
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s>", x, y, size, anchor,
		*attrs ? " " : "", attrs);
	lr_html_text(f, cut ? cut : text);
	fputs(cut ? "&#8230;</text>" : "</text>", f);
	free(cut);
}

/* A tick's number, with as many decimals as the step needs. */
static void tick_text(char *buf, size_t len, double v, double step, int pct)
{
	int dec;

	if (pct) {
		v *= 100;
		step *= 100;
	}
	dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	snprintf(buf, len, "%.*f%s", dec > 6 ? 6 : dec, fabs(v) < step / 1e6 ? 0.0 : v, pct ? "%" : "");
}

static void grid_line(FILE *f, double x1, double y1, double x2, double y2)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x1, y1, x2, y2);
}

static void x_ticks(FILE *f, const struct lr_plot *p, double bottom)
{
	char num[64];
	int n = p->ncat > 0 ? p->ncat : (int)floor((p->x1 - p->x0) / p->xstep + 1e-6) + 1,
	    every = p->ncat > 0 ? (p->ncat + 11) / 12 : 1; /* at most a dozen labels of blocks */

	for (int i = 0; i < n; i++) {
		double v = p->ncat > 0 ? i + 1 : p->x0 + i * p->xstep, x = lr_plot_x(p, v);

		if (p->ncat <= 0)
			grid_line(f, x, p->t, x, bottom);
		if (i % every)
			continue;
		if (p->ncat > 0)
			snprintf(num, sizeof num, "%d", i + 1);
		else
			tick_text(num, sizeof num, v, p->xstep, 0);
		lr_plot_text(f, x, bottom + 18, 11, "middle", 60, "", num); /* clear of the lowest y tick's */
	}
}

void lr_plot_open(FILE *f, const struct lr_plot *p)
{
	double bottom = p->h - p->b, mid = p->t + (bottom - p->t) / 2;
	char num[64];
	int ny = (int)floor((p->y1 - p->y0) / p->ystep + 1e-6) + 1;

	fprintf(f,
		"<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"xmlns=\"http://www.w3.org/2000/svg\"><title>",
		p->w, p->h, p->w, p->h);
	lr_html_text(f, p->title);
	fputs("</title>\n", f);
	lr_plot_text(f, 4, 16, 13, "start", p->w - 8, "class=\"caption\" font-weight=\"bold\"", p->title);
	fputs("\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"#999\"/>\n", p->l,
		p->t, p->w - p->l - p->r, bottom - p->t);
	for (int i = 0; i < ny; i++) {
		double v = p->y0 + i * p->ystep, y = lr_plot_y(p, v);

		grid_line(f, p->l, y, p->w - p->r, y);
		tick_text(num, sizeof num, v, p->ystep, p->ypct);
		lr_plot_text(f, p->l - 4, y + 4, 11, "end", p->l - 26, "class=\"tick\"", num);
	}
	x_ticks(f, p, bottom);
	lr_plot_text(f, p->l + (p->w - p->l - p->r) / 2, bottom + 34, 11, "middle", p->w - p->l - p->r, "", p->xlabel);
	fprintf(f, "<g transform=\"rotate(-90 12 %.1f)\">", mid);
	lr_plot_text(f, 12, mid, 11, "middle", bottom - p->t, "", p->ylabel);
	fputs("</g>\n", f);
}

void lr_plot_close(FILE *f)
{
	fputs("</svg>\n", f);
}

static void marker(FILE *f, int style, double x, double y)
{
	const char *c = colours[style % NSTYLES(colours)];

	switch (style % 6) {
	case 0: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", x, y, c); break;
	case 1:
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\"/>", x - 4, y - 4, c);
		break;
	case 2: fprintf(f, "<path d=\"M%.1f %.1fl5 9h-10z\" fill=\"%s\"/>", x, y - 5, c); break;
	case 3: fprintf(f, "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"%s\"/>", x, y - 5, c); break;
	case 4: fprintf(f, "<path d=\"M%.1f %.1fl5 -9h-10z\" fill=\"%s\"/>", x, y + 5, c); break;
	default:
		fprintf(f, "<path d=\"M%.1f %.1fh10M%.1f %.1fv10\" stroke=\"%s\" stroke-width=\"3\"/>", x - 5, y, x,
			y - 5, c);
	}
}

static void stroke(FILE *f, int style)
{
	const char *d = dashes[style % NSTYLES(dashes)];

	fprintf(f, " fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s", colours[style % NSTYLES(colours)],
		*d ? " stroke-dasharray=\"" : "", d, *d ? "\"" : "");
}

void lr_plot_line(FILE *f, const struct lr_plot *p, int style, const double *x, const double *y, size_t n, int step,
		  int markers)
{
	double px = NAN, py = NAN;
	int open = 0;

	fputs("<path d=\"", f);
	for (size_t i = 0; i < n; i++) {
		double cx, cy;

		if (isnan(y[i])) { /* a gap: the line starts again at the next value */
			open = 0;
			continue;
		}
		cx = lr_plot_x(p, x[i]);
		cy = lr_plot_y(p, y[i]);
		if (!open)
			fprintf(f, "M%.1f %.1f", cx, cy);
		else if (step && fabs(cy - py) >= 0.05)
			fprintf(f, "H%.1fV%.1f", cx, cy);
		else if (!step && (fabs(cx - px) >= 0.05 || fabs(cy - py) >= 0.05))
			fprintf(f, "L%.1f %.1f", cx, cy);
		open = 1;
		px = cx;
		py = cy;
	}
	if (open && step && n)
		fprintf(f, "H%.1f", lr_plot_x(p, x[n - 1]));
	fputs("\"", f);
	stroke(f, style);
	fputs("/>\n", f);
	for (size_t i = 0; markers && i < n; i++)
		if (!isnan(y[i]))
			marker(f, style, lr_plot_x(p, x[i]), lr_plot_y(p, y[i]));
	if (markers)
		fputs("\n", f);
}

void lr_plot_key(FILE *f, const struct lr_plot *p, int row, int style, int mark, const char *text)
{
	double y = p->h - p->b + 52 + 18.0 * row, x = p->l;

	fprintf(f, "<path d=\"M%.1f %.1fh28\"", x, y - 4);
	stroke(f, style);
	fputs("/>", f);
	if (mark)
		marker(f, style, x + 14, y - 4);
	lr_plot_text(f, x + 36, y, 11, "start", p->w - x - 40, "", text);
	fputs("\n", f);
}
