/*
 * labrun site: the route matrix as a grid on an issue's page. A row per
 * matrix row (a run, or a condition of an experiment), a column per route,
 * and in each cell a mark per check, named by its letter and drawn by its
 * state (a tick, a cross, a dash), so it reads in grey as well as in
 * colour. Each cell links to its own section below, where its sentence and
 * every failing case it holds are listed (the first fifty), no script needed.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/error.h"
#include "report/site-int.h"
#include "report/text.h"
#include "serving/report.h"
#include "store/collect.h"
#include "store/serving.h"

#define HEAD_H    30 /* the routes' names */
#define CELL_H    52
#define MARK_W    30
#define MARK_H    18
#define CASES_MAX 50 /* a cell's section lists this many cases; the report lists every one */

enum mark { MARK_NA, MARK_NONE, MARK_PASS, MARK_FAIL };

static const char letters[] = "WXGC";

/* The state of check 'which' (W, X, G, C) in cell c, as the report's sentence counts it. */
static enum mark check(const struct lr_serving_cell *c, int which)
{
	const struct lr_serving_parity *p = which == 0 ? &c->within : &c->cross;

	if (which == 3)
		return !c->sets || c->not_collected ? MARK_FAIL : MARK_PASS;
	if (!c->sets)
		return MARK_NA; /* nothing collected: nothing to check */
	if (which == 2)
		return !c->gated                                             ? MARK_NONE
		       : c->strict < c->gate_total || c->eos < c->gate_total ? MARK_FAIL
									     : MARK_PASS;
	return !p->comparisons ? MARK_NONE : p->failing ? MARK_FAIL : MARK_PASS;
}

/* One mark: its box, its letter, and its state as a shape (tick, cross, dash). */
static void mark(FILE *f, double x, double y, char letter, enum mark m)
{
	static const char *const fill[] = { "#fff", "#fff", "#d3f0d8", "#ffd7d2" };
	static const char *const ink[] = { "#999", "#666", "#1a7f37", "#b42318" };

	if (m == MARK_NA)
		return;
	fprintf(f,
		"<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"%s\"%s/>",
		x, y, MARK_W, MARK_H, fill[m], ink[m], m == MARK_NONE ? " stroke-dasharray=\"3 2\"" : "");
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\" fill=\"%s\">%c</text>", x + 4,
		y + 13, ink[m], letter);
	if (m == MARK_PASS)
		fprintf(f, "<path d=\"M%.1f %.1fl3 4l6 -8\"", x + 17, y + 9);
	else if (m == MARK_FAIL)
		fprintf(f, "<path d=\"M%.1f %.1fl8 10m0 -10l-8 10\"", x + 18, y + 4);
	else
		fprintf(f, "<path d=\"M%.1f %.1fh8\"", x + 18, y + 9);
	fprintf(f, " fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>", ink[m]);
}

static void cell(FILE *f, const struct lr_serving_report *sv, int r, int k, double x, double y, double cw)
{
	const struct lr_serving_cell *c = &sv->cells[r * sv->nroutes + k];
	char text[512];

	if (!c->declared) { /* no cell: the row's run never declared the route */
		fprintf(f, "<g><title>");
		lr_html_text(f, sv->rows[r].label);
		fputs(" / ", f);
		lr_html_text(f, sv->routes[k]);
		fprintf(f,
			": not a route of this run</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			"fill=\"#fafafa\" stroke=\"#ddd\"/>",
			x, y, cw, CELL_H);
		lr_plot_text(f, x + cw / 2, y + CELL_H / 2 + 4, 11, "middle", cw - 12, "fill=\"#888\"", "-");
		fputs("</g>\n", f);
		return;
	}
	fprintf(f, "<a href=\"#cell-%d-%d\"><title>", r, k);
	lr_html_text(f, sv->rows[r].label);
	fputs(" / ", f);
	lr_html_text(f, sv->routes[k]);
	fputs(": ", f);
	lr_html_text(f, lr_render_cell_text(text, sizeof text, c));
	fprintf(f, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#bbb\"/>", x,
		y, cw, CELL_H, c->sets ? "#fff" : "#f1f1f1");
	if (!c->sets)
		lr_plot_text(f, x + 6, y + 19, 10, "start", cw - 12, "fill=\"#b42318\"", "uncollected");
	for (int m = 0; m < 4; m++)
		mark(f, x + 6 + (m % 2) * (MARK_W + 4), y + 6 + (m / 2) * (MARK_H + 4), letters[m], check(c, m));
	fputs("</a>\n", f);
}

static void grid(FILE *f, const struct lr_serving_report *sv)
{
	double lw = 60, cw = 2 * MARK_W + 16, w, h;

	for (int r = 0; r < sv->nrows; r++)
		lw = fmax(lw, lr_plot_text_width(sv->rows[r].label, 11) + 12);
	for (int k = 0; k < sv->nroutes; k++)
		cw = fmax(cw, lr_plot_text_width(sv->routes[k], 11) + 10);
	lw = fmin(lw, 260);
	cw = fmin(cw, 160);
	w = lw + cw * sv->nroutes + 2;
	h = HEAD_H + CELL_H * sv->nrows + 2;
	fprintf(f,
		"<svg class=\"chart grid\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"xmlns=\"http://www.w3.org/2000/svg\"><title>The route matrix: %d row%s, %d route%s</title>\n",
		w, h, w, h, sv->nrows, sv->nrows == 1 ? "" : "s", sv->nroutes, sv->nroutes == 1 ? "" : "s");
	for (int k = 0; k < sv->nroutes; k++)
		lr_plot_text(f, lw + cw * k + cw / 2, HEAD_H - 10, 11, "middle", cw - 6, "font-weight=\"bold\"",
			     sv->routes[k]);
	fputs("\n", f);
	for (int r = 0; r < sv->nrows; r++) {
		double y = HEAD_H + CELL_H * r;

		lr_plot_text(f, 4, y + CELL_H / 2 + 4, 11, "start", lw - 8, "", sv->rows[r].label);
		fputs("\n", f);
		for (int k = 0; k < sv->nroutes; k++)
			cell(f, sv, r, k, lw + cw * k, y, cw);
	}
	fputs("</svg>\n", f);
}

/* The key: what each letter checks and what each shape says, with the marks themselves. */
static void key(FILE *f)
{
	static const char *const says[] = { "", "never checked", "passing: every case exact, or the gate passed",
					    "failing (open the cell for its cases)" };
	static const enum mark order[] = { MARK_PASS, MARK_FAIL, MARK_NONE };

	fputs("<p>A mark per check in each cell: <b>W</b> within-route parity, <b>X</b> cross-route parity, <b>G</b> "
	      "the latest frozen quality gate, <b>C</b> collection (every request completed). A cell without W, X "
	      "and G collected nothing: no check applies. A place that reads - holds a route its row's run never "
	      "declared: it is no cell. Open a cell for its sentence and its failing cases.</p>\n"
	      "<ul class=\"key\">\n",
	      f);
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		enum mark m = order[i];

		fprintf(f,
			"<li><svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
			"xmlns=\"http://www.w3.org/2000/svg\">",
			MARK_W + 2, MARK_H + 2, MARK_W + 2, MARK_H + 2);
		mark(f, 1, 1, 'W', m);
		fprintf(f, "</svg> %s</li>\n", says[m]);
	}
	fputs("</ul>\n", f);
}

/* ---- a cell's own section: its failing cases ---- */

struct cell_ctx {
	FILE *f;
	struct lr_store *st;
	const struct lr_serving_row *row;
	const char *route;
	int listed, unlisted; /* cases written, and those past CASES_MAX */
	int64_t gate;         /* the latest gate of the cell (the one the matrix shows), 0: none */
	int tokens;           /* a comparison failed: its cases token by token are on the run's page */
};

/* One case's line, or only counted once CASES_MAX are listed. */
static int listed(struct cell_ctx *c)
{
	if (c->listed >= CASES_MAX) {
		c->unlisted++;
		return 0;
	}
	c->listed++;
	fputs("<li>case <code>", c->f);
	return 1;
}

static int comparison_case(void *arg, const char *case_id, const struct lr_case_outcome *o)
{
	struct cell_ctx *c = arg;

	if (!listed(c))
		return 0;
	lr_html_text(c->f, case_id);
	fputs("</code>:", c->f);
	if (o->missing)
		fprintf(c->f, " missing in the %s", o->missing == 1 ? "reference" : "candidate");
	else if (!o->tokens_equal)
		fprintf(c->f, " tokens differ at position %lld;", (long long)o->first_token_diff);
	if (!o->missing && !o->text_equal)
		fputs(" text differs;", c->f);
	if (!o->missing && !o->finish_equal)
		fputs(" finish reason differs;", c->f);
	fputs("</li>\n", c->f);
	return 0;
}

static int cell_comparison(void *arg, const struct lr_comparison_row *k)
{
	struct cell_ctx *c = arg;
	int rc;

	if (k->cond != c->row->cond || strcmp(k->cand_route, c->route) || (k->exact == k->total && !k->finish_mismatch))
		return 0;
	c->tokens = 1;
	fprintf(c->f, "<p>Comparison %lld (%s, against ", (long long)k->id, k->kind);
	lr_html_text(c->f, k->ref_route);
	fprintf(c->f,
		" of run %lld): %lld of %lld cases exact; %lld token, %lld text, %lld finish mismatches, %lld "
		"missing:</p>\n<ul>\n",
		(long long)k->ref_run, (long long)k->exact, (long long)k->total, (long long)k->token_mismatch,
		(long long)k->text_mismatch, (long long)k->finish_mismatch, (long long)k->missing);
	rc = lr_store_comparison_failures(c->st, k->id, comparison_case, c);
	fputs("</ul>\n", c->f);
	return rc;
}

static int cell_gate(void *arg, const struct lr_gate_row *g)
{
	struct cell_ctx *c = arg;

	if (g->cond == c->row->cond && !strcmp(g->route, c->route))
		c->gate = g->strict < g->total || g->eos < g->total ? g->id : 0;
	return 0;
}

static int gate_case(void *arg, const struct lr_gate_case *g)
{
	struct cell_ctx *c = arg;

	if (!listed(c))
		return 0;
	lr_html_text(c->f, g->case_id);
	fputs("</code>:", c->f);
	if (g->missing)
		fputs(" no response", c->f);
	fputs(!g->missing && !g->format_ok ? " format fails;" : "", c->f);
	fputs(!g->missing && g->format_ok && !g->answer_ok ? " wrong answer;" : "", c->f);
	fputs(!g->missing && !g->eos ? " no EOS;" : "", c->f);
	fputs("</li>\n", c->f);
	return 0;
}

static int cell_not_collected(void *arg, const struct lr_collect_failure *x)
{
	struct cell_ctx *c = arg;

	if (x->cond != c->row->cond || strcmp(x->route, c->route) || !listed(c))
		return 0;
	lr_html_text(c->f, x->case_id);
	fprintf(c->f, "</code> (set %lld): not collected: ", (long long)x->set);
	lr_html_text(c->f, x->failure);
	fputs("</li>\n", c->f);
	return 0;
}

static int cell_section(FILE *f, struct lr_store *st, const struct lr_serving_report *sv, int r, int k)
{
	const struct lr_serving_cell *x = &sv->cells[r * sv->nroutes + k];
	struct cell_ctx c = { f, st, &sv->rows[r], sv->routes[k], 0, 0, 0, 0 };
	char text[512];
	int rc;

	fprintf(f, "<section class=\"cell\" id=\"cell-%d-%d\"><h4>", r, k);
	lr_html_text(f, c.row->label);
	fputs(" / ", f);
	lr_html_text(f, c.route);
	fputs("</h4>\n<p>", f);
	lr_html_text(f, lr_render_cell_text(text, sizeof text, x));
	fputs(x->sets ? ".</p>\n" : ": the route has no responses here.</p>\n", f);
	if (!(rc = lr_store_comparisons(st, c.row->run, cell_comparison, &c)) &&
	    !(rc = lr_store_gates(st, c.row->run, cell_gate, &c)) && c.gate) {
		fprintf(f,
			"<p>Gate %lld, the latest of this cell: strict answers %lld/%lld, formats %lld/%lld, EOS "
			"%lld/%lld; its failing cases:</p>\n<ul>\n",
			(long long)c.gate, (long long)x->strict, (long long)x->gate_total, (long long)x->formats,
			(long long)x->gate_total, (long long)x->eos, (long long)x->gate_total);
		rc = lr_store_gate_failures(st, c.gate, gate_case, &c);
		fputs("</ul>\n", f);
	}
	if (!rc && x->not_collected) {
		fputs("<p>Requests that did not complete:</p>\n<ul>\n", f);
		rc = lr_store_collect_failures(st, c.row->run, cell_not_collected, &c);
		fputs("</ul>\n", f);
	}
	if (c.unlisted)
		fprintf(f, "<p>And %d more case%s: the report lists every one.</p>\n", c.unlisted,
			c.unlisted == 1 ? "" : "s");
	if (c.tokens)
		fprintf(f, "<p>Token by token: <a href=\"run-%lld.html#failing-cases\">run %lld's page</a>.</p>\n",
			(long long)c.row->run, (long long)c.row->run);
	fputs("</section>\n", f);
	return rc;
}

void lr_site_grid(FILE *f, const struct lr_serving_report *sv)
{
	grid(f, sv);
	key(f);
}

int lr_site_cells(FILE *f, struct lr_store *st, const struct lr_serving_report *sv)
{
	int rc = 0;

	for (int r = 0; r < sv->nrows && !rc; r++)
		for (int k = 0; k < sv->nroutes && !rc; k++)
			if (sv->cells[r * sv->nroutes + k].declared)
				rc = cell_section(f, st, sv, r, k);
	return rc;
}
