#include "config.h"
#include "base/system.h"

#include <math.h>

#include "report/report.h"
#include "report/text.h"
#include "report/render-int.h"

/*
 * The report in HTML: 'labrun report --format html' as one self-contained
 * page (inline CSS, no scripts, no external assets) carrying what the
 * Markdown carries, with an inline SVG chart per condition and arm pair; and
 * the same sections for the pages of 'labrun site'.
 */

/* A table as HTML, or why it is missing. */
static void table_or_error(FILE *f, int rc, const struct lr_table *t)
{
	if (!rc) {
		lr_render_table_html(f, t);
		return;
	}
	fputs("<p>", f);
	lr_html_text(f, lr_error_msg());
	fputs(": the table is missing</p>\n", f);
}

void lr_render_html_serving(FILE *f, const struct lr_serving_report *sv)
{
	struct lr_table t;
	char text[512];
	size_t i;

	fputs("<h2>Serving evidence</h2>\n<p>", f);
	lr_html_text(f, lr_render_cells_intro);
	fputs("</p>\n", f);
	table_or_error(f, lr_render_matrix(&t, sv), &t);
	lr_render_matrix_release(&t);
	fputs("<p>", f);
	lr_html_text(f, lr_render_cells_text(text, sizeof text, sv));
	fprintf(f, ".</p>\n<p>Failing and missing cases:%s</p>\n<ul>\n", sv->failing.n ? "" : " none.");
	for (i = 0; i < sv->failing.n; i++) {
		fputs("<li>", f);
		lr_html_text(f, sv->failing.v[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p>Per route, over all its responses (median and p90):</p>\n", f);
	table_or_error(f, lr_render_route_stats(&t, sv), &t);
	lr_table_release(&t);
	fputs("<p>", f);
	lr_html_text(f, lr_render_cells_outro);
	fputs("</p>\n", f);
	if (!sv->npasses)
		return;
	fputs("<p>", f);
	lr_html_text(f, lr_render_passes_intro);
	fputs("</p>\n", f);
	table_or_error(f, lr_render_passes(&t, sv), &t);
	lr_table_release(&t);
	table_or_error(f, lr_render_latency(&t, sv), &t);
	lr_table_release(&t);
	table_or_error(f, lr_render_occupancy(&t, sv), &t);
	lr_table_release(&t);
}

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
	static const double logs[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1, 1.05, 1.1, 1.25,
				       1.5, 2, 3, 5, 10, 20, 50, 100 };
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

/*
 * One chart for one condition and arm pair, captioned with both: the ratio
 * B/A of each timed block (dots), the median (red line), the 95% interval
 * (band), no difference (dashed) and the practical margin 1 ± δ (dotted).
 * Ratios sit on a log scale, so faster and slower look alike; the axis is
 * labelled in the table's own figure (reduction, or change), so a tick reads
 * like a table cell.
 */
static void svg_chart(FILE *f, const struct lr_report_row *w, const char *an, const char *bn, double margin, int change)
{
	const double W = 560, H = 230, L = 64, R = 12, T = 30, B = 34;
	double lo = w->p.k ? w->p.lo : w->p.ratio, hi = w->p.k ? w->p.hi : w->p.ratio, rmin, rmax, ymin, ymax, pad;
	double ya[4], tick[16];
	const char *fig = change ? "change" : "reduction";
	int i, t, nt;

	rmin = fmin(fmin(lo, 1 - margin), w->p.ratio);
	rmax = fmax(fmax(hi, 1 + margin), w->p.ratio);
	for (i = 0; i < w->blocks; i++) {
		rmin = fmin(rmin, w->block_ratio[i]);
		rmax = fmax(rmax, w->block_ratio[i]);
	}
	/* room for a dot's radius and more at both ends: a dot at the extreme ratio once sat half outside the plot */
	pad = fmax(0.03, (log(rmax) - log(rmin)) * 9 / (H - T - B - 18));
	ymin = log(rmin) - pad;
	ymax = log(rmax) + pad;
#define Y(v) (T + (H - T - B) * (1 - (log(v) - ymin) / (ymax - ymin)))
#define X(i) (L + (W - L - R) * ((i) + 0.5) / w->blocks)
	fprintf(f, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		   "xmlns=\"http://www.w3.org/2000/svg\"><title>", W, H, W, H);
	lr_html_text(f, bn);
	fputs(" vs ", f);
	lr_html_text(f, an);
	fputs(", ", f);
	lr_html_text(f, w->label);
	fputs("</title>\n<text class=\"caption\" x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", f);
	lr_html_text(f, bn);
	fputs(" vs ", f);
	lr_html_text(f, an);
	fputs(", ", f);
	lr_html_text(f, w->label);
	fprintf(f, ": %s %.1f%%</text>\n", fig, table_pct(w->p.ratio, change));
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"#999\"/>\n", L, T,
		W - L - R, H - T - B);
	if (w->p.k) { /* at least 10 px tall, so a narrow interval still shows around the 2 px median line */
		double top = Y(hi), height = Y(lo) - Y(hi);

		if (height < 10) {
			top -= (10 - height) / 2;
			height = 10;
		}
		top = fmax(top, T); /* and never past the plot's frame */
		height = fmin(height, H - B - top);
		fprintf(f, "<rect class=\"interval\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffd8a8\"/>\n",
			L, top, W - L - R, height);
	}
	/* ticks: the table's figure at round ratios, with light grid lines */
	ya[0] = T, ya[1] = H - T - B, ya[2] = ymin, ya[3] = ymax;
	nt = ticks(rmin, rmax, chart_y, ya, tick, 16);
	for (t = 0; t < nt; t++) {
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", L,
			W - R, Y(tick[t]), Y(tick[t]));
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.*f%%</text>\n",
			L - 4, Y(tick[t]) + 4, fabs(table_pct(tick[t], change) - round(table_pct(tick[t], change))) > 1e-9,
			table_pct(tick[t], change) + 0.0);
	}
	/* the margin under the no-difference line: a narrow margin lies a pixel or two from it */
	for (i = -1; i <= 1; i += 2)
		fprintf(f, "<line class=\"margin\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#2ca02c\" "
			   "stroke-dasharray=\"1 3\" stroke-width=\"2\"/>\n", L, W - R, Y(1 + i * margin), Y(1 + i * margin));
	fprintf(f, "<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
		   "stroke-dasharray=\"4 3\"/>\n", L, W - R, Y(1.0), Y(1.0));
	fprintf(f, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2\"/>\n",
		L, W - R, Y(w->p.ratio), Y(w->p.ratio));
	for (i = 0; i < w->blocks; i++)
		fprintf(f, "<circle class=\"block\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#1f77b4\"/>\n", X(i),
			Y(w->block_ratio[i]));
	fprintf(f, "<text x=\"12\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">"
		   "%s (%%, log scale)</text>\n", T + (H - T - B) / 2, T + (H - T - B) / 2, fig);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">block 1..%d; dots: each block, red: "
		   "median, band: 95%% interval, dashed: none, green: margin &#177;%g%%</text>\n</svg>\n",
		L + (W - L - R) / 2, H - 10, w->blocks, margin * 100);
#undef X
#undef Y
}

static void html_host(FILE *f, const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;

	lr_html_text(f, r->host.hostname);
	fputs(", ", f);
	lr_html_text(f, r->host.cpu_model ? r->host.cpu_model : "unknown CPU");
	fprintf(f, ", %lld CPUs, ", (long long)r->host.cores);
	lr_html_text(f, r->host.os ? r->host.os : "unknown OS");
	fputs(", kernel ", f);
	lr_html_text(f, r->host.kernel);
}

/* The ledger head, and the head signed (for 'audit --head'). */
static void html_head(FILE *f, const struct lr_report *rep)
{
	if (rep->head.seq)
		fprintf(f, "<p>Ledger head: <code>%lld:%s</code>; <code>labrun audit --head %lld:%s</code> proves a store "
			   "still holds every run this report was computed from, unchanged.</p>\n",
			(long long)rep->head.seq, rep->head.digest, (long long)rep->head.seq, rep->head.digest);
	if (rep->head_statement) {
		fputs("<details><summary>The signed ledger head (<code>labrun audit --head FILE</code>, with this "
		      "envelope saved as FILE)</summary><pre>", f);
		lr_html_text(f, rep->head_statement);
		fputs("</pre></details>\n", f);
	}
}

/* What a run rests on: command, definition, sources, host, design, parity, noise floor. */
static void html_run_facts(FILE *f, const struct lr_report_run *rr)
{
	char floor[512];
	char *cmd;

	fprintf(f, "<h2>");
	lr_html_text(f, rr->design.name);
	fprintf(f, ", run %lld (%s)</h2>\n<ul>\n<li>Command: <code>", (long long)rr->run.id, lr_status_name(rr->run.status));
	cmd = lr_argv_text(rr->run.argv_json);
	lr_html_text(f, cmd ? cmd : rr->run.argv_json);
	free(cmd);
	fputs("</code></li>\n<li>Definition sha256: <code>", f);
	lr_html_text(f, rr->design.sha256);
	fputs("</code></li>\n<li>Sources: ", f);
	if (rr->run.source.present) {
		fputs("HEAD <code>", f);
		lr_html_text(f, rr->run.source.head ? rr->run.source.head : "(no commit)");
		fprintf(f, "</code>, dirty: %s, diff sha256 <code>", rr->run.source.dirty ? "yes" : "no");
		lr_html_text(f, rr->run.source.diff_sha256);
		fputs("</code>", f);
	} else {
		fputs("not inside a git work tree", f);
	}
	fputs("</li>\n<li>Host: ", f);
	html_host(f, rr);
	fprintf(f, "</li>\n<li>Design: %s, %d timed blocks after %d warm-up, practical margin %g%%, seed %llu, "
		   "target %s, backend ", rr->design.order == LR_ORDER_ABBA ? "ABBA" : "random", rr->design.blocks,
		rr->design.warmup, rr->design.margin * 100, (unsigned long long)rr->design.seed, lr_exp_target_name(rr->design.target));
	lr_html_text(f, rr->design.backend);
	fprintf(f, "</li>\n<li>Parity: %d passed, %d failed, %d missing</li>\n<li>Noise floor: ", rr->passed,
		rr->failed, rr->missing);
	lr_html_text(f, lr_report_floor_text(floor, sizeof floor, rr));
	fputs("</li>\n</ul>\n", f);
}

/* One table of a run: a row per condition, then the charts. */
static void html_table(FILE *f, const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm];
	struct lr_render_heads h;
	struct lr_table t;
	int k;

	fputs("<h3>", f);
	lr_html_text(f, bn);
	fputs(" vs ", f);
	lr_html_text(f, an);
	fprintf(f, ", run %lld</h3>\n", (long long)rr->run.id);
	lr_render_table(&t, &h, rr, tb);
	table_or_error(f, lr_table_error(&t), &t);
	lr_table_release(&t);
	if (lr_render_sign_noted(tb)) {
		fputs("<p>", f);
		lr_html_text(f, lr_render_sign_note);
		fputs("</p>\n", f);
	}
	fputs("<div>\n", f);
	for (k = 0; k < tb->nrows; k++)
		if (tb->rows[k].has)
			svg_chart(f, &tb->rows[k], an, bn, rr->design.margin, rr->design.target == LR_TARGET_COMMAND);
	fputs("</div>\n", f);
}

void lr_render_html_runs(FILE *f, const struct lr_report *rep)
{
	for (int i = 0; i < rep->nruns; i++) {
		const struct lr_report_run *rr = &rep->runs[i];

		html_run_facts(f, rr);
		for (int t = 0; t < rr->ntables; t++)
			html_table(f, rr, &rr->tables[t]);
	}
}

void lr_render_html(FILE *f, const struct lr_report *rep, const struct lr_serving_report *sv, const char *title)
{

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>labrun report: ", f);
	lr_html_text(f, title);
	fputs("</title>\n<style>body{font:14px/1.45 sans-serif;margin:24px;max-width:1100px;color:#222}"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:3px 8px}"
	      "td.n{text-align:right}code{background:#f3f3f3;padding:0 3px}.chart{margin:6px 12px 6px 0}</style>\n"
	      "</head><body>\n<h1>labrun report: ", f);
	lr_html_text(f, title);
	fprintf(f, "</h1>\n<p class=\"method\">Regenerated from the store by labrun %s: ", PACKAGE_VERSION);
	lr_html_text(f, lr_render_method);
	fputs("</p>\n", f);
	html_head(f, rep);
	lr_render_html_runs(f, rep);
	if (sv->nrows)
		lr_render_html_serving(f, sv);
	fputs("</body></html>\n", f);
}
