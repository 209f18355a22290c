/*
 * The report as a document, shared by 'report', 'run', 'manifest', 'archive',
 * 'site' and 'verify' (which compares a crate's report with one rebuilt
 * from its rows): its title, method and head, and each experiment run's
 * blocks. The serving evidence's blocks are serving.c's, the recorded runs'
 * records.c's; formats.c writes the document, data.c the data, html.c the
 * page around it.
 */
#include "config.h"
#include "base/system.h"

#include <math.h>

#include "base/csv.h"
#include "base/error.h"
#include "base/sha256.h"
#include "experiment/report.h"
#include "record/facts.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "report/report.h"
#include "report/text.h"
#include "serving/report.h"

/* "Binding: `k=v`, `k=v`", or "Binding: none". */
static void kv_item(struct lr_doc *d, struct lr_doc_block *b, const char *title, const struct lr_kvlist *l)
{
	struct lr_buf *t = lr_doc_item(d, b, 0);

	lr_doc_addf(t, "%s: ", title);
	if (!l->n)
		lr_doc_add(t, "none");
	for (size_t i = 0; i < l->n; i++) {
		struct lr_buf kv = LR_BUF_INIT;

		lr_buf_addf(&kv, "%s=%s", l->v[i].key, l->v[i].value);
		lr_doc_add(t, i ? ", " : "");
		lr_doc_code(t, kv.buf);
		if (kv.failed)
			d->failed = 1;
		lr_buf_release(&kv);
	}
}

/* The columns of rr's table tb, into h: the forms rr's definition asks for (LR_FORM_*) add theirs. */
static int table_heads(struct lr_render_heads *h, const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	const struct lr_stored_design *d = &rr->design;
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm], *metric = d->metric[0] ? d->metric : "wall time ms";
	int n = 0, cmd = d->target == LR_TARGET_COMMAND;
	struct lr_column *c = h->cols;

	if (rr->exploratory_metric && rr->unit[0])
		metric = rr->unit; /* its heading names it */
	snprintf(h->text[0], sizeof h->text[0], "%s median %s", an, cmd ? metric : "ms");
	snprintf(h->text[1], sizeof h->text[1], "%s median %s", bn, cmd ? metric : "ms");
	snprintf(h->text[2], sizeof h->text[2], "drift %s/%s", an, bn);
	snprintf(h->text[3], sizeof h->text[3], "%s mean %s", an, cmd ? metric : "ms");
	snprintf(h->text[4], sizeof h->text[4], "%s mean %s", bn, cmd ? metric : "ms");
	c[n++] = (struct lr_column){ "condition", cmd ? "Condition" : "Shape layers/input", 0 };
	c[n++] = (struct lr_column){ "baseline_median", h->text[0], LR_COL_NUMBER };
	c[n++] = (struct lr_column){ "arm_median", h->text[1], LR_COL_NUMBER };
	if (rr->forms & LR_FORM_MEAN) {
		c[n++] = (struct lr_column){ "baseline_mean", h->text[3], LR_COL_NUMBER };
		c[n++] = (struct lr_column){ "arm_mean", h->text[4], LR_COL_NUMBER };
	}
	c[n++] = (struct lr_column){ "change", cmd ? "Change" : "Reduction", LR_COL_NUMBER };
	if (rr->forms & LR_FORM_RATIO)
		c[n++] = (struct lr_column){ "ratio", "ratio B/A", LR_COL_NUMBER };
	c[n++] = (struct lr_column){ "interval", "95% interval", 0 };
	c[n++] = (struct lr_column){ "blocks", "blocks", LR_COL_NUMBER };
	c[n++] = (struct lr_column){ "flagged", "flagged reps", LR_COL_NUMBER };
	c[n++] = (struct lr_column){ "drift", h->text[2], 0 };
	c[n++] = (struct lr_column){ "verdict", rr->exploratory_metric ? "direction (exploratory)" : "verdict", 0 };
	return n;
}

/* Row w of rr's table tb, a cell per column of table_heads. */
static void table_row(struct lr_table *t, const struct lr_report_run *rr, const struct lr_report_table *tb,
		      const struct lr_report_row *w)
{
	int cmd = rr->design.target == LR_TARGET_COMMAND,
	    forms = !!(rr->forms & LR_FORM_MEAN) * 2 + !!(rr->forms & LR_FORM_RATIO);
	double effect, lo, hi;
	char cell[3][256];

	lr_table_text(t, w->label);
	if (!w->has) {
		for (int k = 0; k < 4 + forms; k++)
			lr_table_none(t);
		lr_table_int(t, w->blocks);
		lr_table_int(t, w->flagged);
		lr_table_none(t);
		lr_table_text(t, w->status);
		return;
	}
	lr_table_real(t, w->median_a_ms, 3);
	lr_table_real(t, w->median_b_ms, 3);
	if (rr->forms & LR_FORM_MEAN) {
		lr_table_real(t, w->mean_a, 3);
		lr_table_real(t, w->mean_b, 3);
	}
	lr_report_pct(rr, w, &effect, &lo, &hi);
	snprintf(cell[0], sizeof cell[0], cmd ? "%+.1f%%%s" : "%.1f%%%s", effect,
		 lr_report_sign_disagrees(w) ? " (a)" : "");
	lr_table_text(t, cell[0]);
	if (rr->forms & LR_FORM_RATIO) {
		snprintf(cell[0], sizeof cell[0], "%.2fx", w->p.ratio);
		lr_table_text(t, cell[0]);
	}
	if (w->p.k)
		snprintf(cell[1], sizeof cell[1], cmd ? "[%+.1f%%, %+.1f%%]" : "[%.1f%%, %.1f%%]", lo, hi);
	else
		snprintf(cell[1], sizeof cell[1], "%d timed batches, no interval", w->blocks);
	snprintf(cell[2], sizeof cell[2], "%+.1f%%/%+.1f%%%s", w->drift_a * 100, w->drift_b * 100,
		 lr_report_drift_marks(rr) && w->drifted ? " DRIFT" : ""); /* an older crate's flag, for verify */
	lr_table_text(t, cell[1]);
	lr_table_int(t, w->blocks);
	lr_table_int(t, w->flagged);
	lr_table_text(t, cell[2]);
	lr_table_text(t, lr_report_verdict(cell[0], sizeof cell[0], rr, w, rr->arm[tb->arm]));
}

void lr_render_table(struct lr_table *t, struct lr_render_heads *h, const struct lr_report_run *rr,
		     const struct lr_report_table *tb)
{
	lr_table_init(t, h->cols, table_heads(h, rr, tb));
	for (int i = 0; i < tb->nrows; i++)
		table_row(t, rr, tb, &tb->rows[i]);
}

const char lr_render_sign_note[] =
	"(a) The medians and the estimate point different ways here. The medians pool every repetition of "
	"each arm; the estimate is the median of the paired block ratios, which cancels drift between "
	"blocks. For an effect this close to zero the two may differ in sign; the estimate and its "
	"interval are the method's figures.";

int lr_render_sign_noted(const struct lr_report_table *tb)
{
	for (int k = 0; k < tb->nrows; k++)
		if (lr_report_sign_disagrees(&tb->rows[k]))
			return 1;
	return 0;
}

/* The range form: the paired estimate's least and greatest over tb's conditions, under it. */
static void range_note(struct lr_doc *d, const struct lr_report_run *rr, const struct lr_report_table *tb)
{
	struct lr_buf *t = &lr_doc_note(d)->text;
	double lo = 0, hi = 0;
	int n = lr_report_range(tb, &lo, &hi);

	if (!n) {
		lr_doc_add(t, "Range over conditions: no condition has an estimate.");
		return;
	}
	lr_doc_addf(t, "Range over conditions: the paired ratio B/A is %.2fx to %.2fx", lo, hi);
	if (rr->design.target == LR_TARGET_COMMAND)
		lr_doc_addf(t, " (change %+.1f%% to %+.1f%%)", (lo - 1) * 100, (hi - 1) * 100);
	else
		lr_doc_addf(t, " (reduction %.1f%% to %.1f%%)", (1 - hi) * 100, (1 - lo) * 100);
	lr_doc_addf(t,
		    " over %d condition%s with an estimate. It only summarises the rows: each row's ratio and its 95%% "
		    "interval are the claim.",
		    n, n == 1 ? "" : "s");
}

/* One table of a run: its heading, the table, the note under it, and (charts) a chart per condition. */
static void doc_table(struct lr_doc *d, const struct lr_report_run *rr, const struct lr_report_table *tb, int charts)
{
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm];
	struct lr_render_heads h;
	struct lr_table t;

	struct lr_buf *head = &lr_doc_heading(d, 3)->text;

	lr_doc_addf(head, "%s (%s) vs %s (%s), run %lld", bn, rr->kernel[tb->arm], an, rr->kernel[0],
		    (long long)rr->run.id);
	if (rr->exploratory_metric) {
		lr_doc_add(head, ": exploratory metric ");
		lr_doc_code(head, rr->design.metric);
		lr_doc_addf(head, " (%s%s%s%s is better)", rr->unit[0] ? "in " : "", rr->unit, rr->unit[0] ? ", " : "",
			    rr->higher ? "higher" : "lower");
	}
	lr_render_table(&t, &h, rr, tb);
	lr_doc_table(d, 0, &t);
	if (lr_render_sign_noted(tb))
		lr_doc_add(&lr_doc_note(d)->text, lr_render_sign_note);
	if (rr->forms & LR_FORM_RANGE)
		range_note(d, rr, tb);
	for (int k = 0; charts && k < tb->nrows; k++) {
		const struct lr_report_row *w = &tb->rows[k];
		struct lr_buf title = LR_BUF_INIT;

		if (!w->has)
			continue;
		lr_buf_addf(&title, "%s vs %s, %s", bn, an, w->label);
		lr_doc_chart(d, &(struct lr_chart){ title.buf, w->block_ratio, w->blocks, w->p.ratio, w->p.lo, w->p.hi,
						    w->p.k > 0, rr->design.margin,
						    rr->design.target == LR_TARGET_COMMAND });
		if (title.failed)
			d->failed = 1;
		lr_buf_release(&title);
	}
}

void lr_render_tables_doc(struct lr_doc *d, const struct lr_report_run *rr, int charts)
{
	for (int t = 0; t < rr->ntables; t++)
		doc_table(d, rr, &rr->tables[t], charts);
}

static const char exploratory_note[] =
	"They are exploratory: with many metrics compared at once, some intervals exclude 1 by chance alone "
	"(at 95%, about one in twenty when nothing changed), so a row says which way B moved and whether "
	"that is better, never a verdict: no margin, no noise floor. Test a direction that matters in a "
	"design whose metric it is ([design] metric).";

/*
 * A run's further metrics ([report] metrics, --metric): what they are, a
 * table per metric and arm pair (no charts), and the metrics [report] asks
 * for that no execution wrote.
 */
void lr_render_metrics_doc(struct lr_doc *d, const struct lr_report_run *rr)
{
	struct lr_buf *t;

	for (size_t i = 0; i < rr->unstored.n; i++) {
		t = &lr_doc_prose(d)->text;
		lr_doc_add(t, "Metric ");
		lr_doc_code(t, rr->unstored.v[i]);
		lr_doc_addf(
			t,
			", which [report] metrics asks for, was written by no execution of run %lld: it has no table.",
			(long long)rr->run.id);
	}
	if (!rr->nmetrics)
		return;
	t = &lr_doc_prose(d)->text;
	lr_doc_addf(t,
		    "Further metrics of run %lld: %d metric%s the harness wrote beyond the design's own, each "
		    "compared as the design's is (per condition, the median over blocks of the ratio B/A of each "
		    "block and its sign-test 95%% interval). ",
		    (long long)rr->run.id, rr->nmetrics, rr->nmetrics == 1 ? "" : "s");
	lr_doc_add(t, exploratory_note);
	for (int m = 0; m < rr->nmetrics; m++)
		lr_render_tables_doc(d, &rr->metrics[m], 0);
}

int lr_render_tables(FILE *f, const struct lr_report_run *rr)
{
	struct lr_doc d;
	int rc;

	lr_doc_init(&d);
	lr_render_tables_doc(&d, rr, 0);
	lr_render_metrics_doc(&d, rr);
	rc = lr_doc_error(&d);
	for (size_t i = 0; i < d.n && !rc; i++) { /* blank lines between the blocks, none after: a printout goes on */
		if (i)
			fputc('\n', f);
		rc = lr_doc_write_block(f, &d, i, LR_FORMAT_MD);
	}
	lr_doc_release(&d);
	return rc;
}

/* Where a run ran: its directory; 'relative': inside its repository's top, or the directory's last name (docs/design.md). */
static void cwd_words(struct lr_doc *d, struct lr_buf *t, const char *cwd, const char *top, int relative)
{
	char *rel = NULL;

	if (!relative) {
		lr_doc_code(t, cwd);
		return;
	}
	if (top && lr_path_within(cwd, top) && lr_path_within(top, cwd)) {
		lr_doc_add(t, "the repository's top");
		return;
	}
	if (!(rel = lr_path_relative(cwd, top && lr_path_within(cwd, top) ? top : NULL, NULL)))
		d->failed = 1;
	lr_doc_code(t, rel);
	if (top && lr_path_within(cwd, top))
		lr_doc_add(t, " of the repository");
	free(rel);
}

/* Every changed file and every --source file with its sha256; 'relative': a --source path from the run's directory. */
static void source_files(struct lr_doc *d, struct lr_doc_block *b, const struct lr_run *r, int relative)
{
	const char *top = r->source.present ? r->source.repo_path : NULL;

	for (size_t i = 0; i < r->nfiles; i++) {
		struct lr_buf *t = lr_doc_item(d, b, 1);
		int external = !strcmp(r->files[i].status, "external");
		char *path = relative && external ? lr_path_relative(r->files[i].path, r->cwd, top)
						  : strdup(r->files[i].path);

		if (!path)
			d->failed = 1;
		lr_doc_code(t, path ? path : "");
		free(path);
		lr_doc_addf(t, " %s ", r->files[i].status);
		lr_doc_code(t, r->files[i].has_content ? r->files[i].sha256 : "(deleted)");
	}
}

/* Command, replay, definition and sources (with every changed file), as facts of b; 'relative': no machine's paths. */
static void run_source_facts(struct lr_doc *d, struct lr_doc_block *b, const struct lr_report_run *rr, int relative)
{
	const struct lr_run *r = &rr->run;
	const char *top = r->source.present ? r->source.repo_path : NULL;
	char *cmdline = relative ? lr_argv_text_relative(r->argv_json, r->cwd, top) : lr_argv_text(r->argv_json);
	char *def = relative ? lr_path_relative(rr->design.path, r->cwd, top) : strdup(rr->design.path);
	struct lr_buf *t = lr_doc_item(d, b, 0);

	if (!cmdline || !def)
		d->failed = 1;
	lr_doc_add(t, "Command: ");
	lr_doc_code(t, cmdline);
	lr_doc_add(t, " (in ");
	cwd_words(d, t, r->cwd, top, relative);
	lr_doc_addf(t, ", started %s)", r->started_at);
	free(cmdline);
	if (r->replay_of)
		lr_doc_addf(lr_doc_item(d, b, 0), "Replay of run %lld", (long long)r->replay_of);
	t = lr_doc_item(d, b, 0);
	lr_doc_add(t, "Definition: ");
	lr_doc_code(t, def);
	free(def);
	lr_doc_add(t, ", sha256 ");
	lr_doc_code(t, rr->design.sha256);
	t = lr_doc_item(d, b, 0);
	if (!r->source.present) {
		lr_doc_add(t, "Sources: not inside a git work tree");
		if (rr->format && rr->format < LR_REPORT_FORMAT_TREND)
			return; /* a crate of an older format listed no --source file there */
	} else {
		lr_doc_add(t, "Sources: HEAD ");
		lr_doc_code(t, r->source.head ? r->source.head : "(no commit)");
		if (r->source.branch) {
			lr_doc_add(t, " (branch ");
			lr_doc_code(t, r->source.branch);
			lr_doc_add(t, ")");
		}
		lr_doc_addf(t, ", dirty: %s, diff sha256 ", r->source.dirty ? "yes" : "no");
		lr_doc_code(t, r->source.diff_sha256);
	}
	source_files(d, b, r, relative);
}

/* The registration in full: the design entry, and the design head written before the first block. */
static void prereg_facts(struct lr_doc *d, struct lr_doc_block *b, const struct lr_report_run *rr, int relative)
{
	const struct lr_design_reg *g = &rr->prereg.reg;
	struct lr_buf *t;
	char *path;

	if (!g->seq)
		return;
	t = lr_doc_item(d, b, 0);
	lr_doc_addf(t, "Design registration: ledger entry %lld, appended %s, design digest ", (long long)g->seq,
		    g->appended_at);
	lr_doc_code(t, g->content);
	t = lr_doc_item(d, b, 0);
	if (!g->head_seq) {
		lr_doc_add(t, "Design head: none written or pushed before the first block");
		return;
	}
	path = relative ? lr_path_relative(g->head_path, rr->run.cwd,
					   rr->run.source.present ? rr->run.source.repo_path : NULL)
			: strdup(g->head_path);
	if (!path)
		d->failed = 1;
	lr_doc_add(t, "Design head: ");
	lr_doc_code(t, path);
	lr_doc_addf(t, " (entry %lld), written and fsynced %s, sha256 ", (long long)g->head_seq, g->head_at);
	lr_doc_code(t, g->head_sha256);
	free(path);
}

void lr_render_run_facts_doc(struct lr_doc *d, const struct lr_report_run *rr, int relative)
{
	const struct lr_run *r = &rr->run;
	const struct lr_stored_design *ds = &rr->design;
	struct lr_doc_block *b = lr_doc_facts(d);
	char floor[512];

	run_source_facts(d, b, rr, relative);
	lr_doc_addf(lr_doc_item(d, b, 0), "Host: %s, %s, %lld CPUs, %s, kernel %s", r->host.hostname,
		    r->host.cpu_model ? r->host.cpu_model : "unknown CPU", (long long)r->host.cores,
		    r->host.os ? r->host.os : "unknown OS", r->host.kernel);
	kv_item(d, b, "Binding", &r->binding);
	kv_item(d, b, "Geometry", &r->geometry);
	kv_item(d, b, "Tool versions", &r->tools);
	lr_render_run_identity_doc(d, b, r);
	lr_doc_addf(
		lr_doc_item(d, b, 0),
		"Design: %s, %d timed blocks after %d warm-up, practical margin %g%%, seed %llu, target %s, backend %s",
		ds->order == LR_ORDER_ABBA ? "ABBA" : "random", ds->blocks, ds->warmup, ds->margin * 100,
		(unsigned long long)ds->seed, lr_exp_target_name(ds->target), lr_run_backend(r, ds->backend));
	prereg_facts(d, b, rr, relative);
	lr_doc_addf(lr_doc_item(d, b, 0), "Parity: %d passed, %d failed, %d missing", rr->passed, rr->failed,
		    rr->missing);
	lr_doc_addf(lr_doc_item(d, b, 0), "Noise floor: %s", lr_report_floor_text(floor, sizeof floor, rr));
	if (ds->target == LR_TARGET_COMMAND && !lr_report_drift_marks(rr)) { /* a crate of format 3 on says it */
		struct lr_buf *t = lr_doc_item(d, b, 0);

		lr_doc_add(t, "Cleanup: ");
		lr_render_cleanup(t, &r->left);
	}
}

/* The design the run registered before its first block, and what changed since its experiment's earlier run. */
static void prereg_doc(struct lr_doc *d, const struct lr_report_run *rr)
{
	const struct lr_prereg *p = &rr->prereg;
	char digest[24];
	struct lr_buf *t;

	if (!p->reg.seq)
		return; /* recorded before labrun registered designs */
	t = &lr_doc_prose(d)->text;
	lr_doc_addf(t, "Design registered before the first block: ledger entry %lld, digest ", (long long)p->reg.seq);
	snprintf(digest, sizeof digest, "%.16s...", p->reg.content);
	lr_doc_code(t, digest);
	lr_doc_addf(t, " (%s); its design head was %s.", p->reg.is_signed ? "signed" : "unsigned",
		    p->reg.head_seq
			    ? "written to a file before the first block, so another could hold it before the data"
			    : "neither written nor pushed before the first block: only this store held it");
	if (p->earlier)
		lr_doc_addf(&lr_doc_prose(d)->text,
			    "Design changed since run %lld, which registered this experiment's design earlier: %s.",
			    (long long)p->earlier, p->changes);
}

void lr_render_run_head_doc(struct lr_doc *d, const struct lr_report_run *rr)
{
	const struct lr_stored_design *ds = &rr->design;
	char cards[512];

	lr_doc_addf(&lr_doc_heading(d, 2)->text, "%s, run %lld (%s)", ds->name, (long long)rr->run.id,
		    lr_status_name(rr->run.status));
	if (ds->title[0])
		lr_doc_add(&lr_doc_prose(d)->text, ds->title);
	prereg_doc(d, rr);
	lr_run_cards_said(&rr->run, cards, sizeof cards);
	if (cards[0]) /* a cross-card comparison says so before its figures */
		lr_doc_addf(&lr_doc_note(d)->text, "Cross-card comparison: %s.", cards);
}

void lr_render_run_failed_doc(struct lr_doc *d, const struct lr_report_run *rr)
{
	struct lr_doc_block *b = lr_doc_facts(d);

	lr_doc_add(&b->text, "Failed or missing conditions");
	for (int i = 0; i < rr->nconds; i++)
		if (strcmp(rr->conds[i].status, "passed"))
			lr_doc_addf(lr_doc_item(d, b, 0), "%s: %s: %s",
				    rr->ntables ? rr->tables[0].rows[i].label : rr->conds[i].model, rr->conds[i].status,
				    rr->conds[i].failure ? rr->conds[i].failure : "");
}

void lr_render_run_doc(struct lr_doc *d, const struct lr_report_run *rr, int charts)
{
	lr_render_run_head_doc(d, rr);
	lr_render_run_facts_doc(d, rr, 0);
	lr_render_tables_doc(d, rr, charts);
	lr_render_metrics_doc(d, rr);
	lr_render_run_failed_doc(d, rr);
}

/* The method in one paragraph: the same words in every format that has prose. */
static const char method[] =
	"every figure is recomputed from the stored\n"
	"repetitions of the runs named in each heading. Times are measured wall-clock time per\n"
	"execution (median over the timed blocks); reduction = 1 - exp(median over blocks of\n"
	"ln((B1+B2)/(A1+A2))); the 95% interval is the sign-test interval of the block ratios.\n"
	"Drift is each arm's relative change over the timed blocks (least-squares slope of log time),\n";

/* The method's last sentences: as this labrun says them, or as a crate of a format before the trend rule did. */
static const char method_drift[] =
	"shown as information: the block ratio cancels what the arms share. A trend of the block ratios\n"
	"themselves (Kendall's test over the block index, p at most 0.02), which ABBA does not cancel,\n"
	"qualifies the verdict, which says so.";
static const char method_drift_marks[] = "flagged DRIFT beyond the practical margin.";

void lr_render_head_doc(struct lr_doc *d, const struct lr_report *rep, const struct lr_report_label *l)
{
	struct lr_buf *t;

	lr_doc_addf(&lr_doc_heading(d, 1)->text, "labrun report: %s", l->title);
	t = &lr_doc_prose(d)->text;
	lr_doc_addf(t, "Regenerated from the store by labrun %s: ", l->version ? l->version : PACKAGE_VERSION);
	lr_doc_add_lines(t, method);
	lr_doc_add_lines(t, rep->format && rep->format < LR_REPORT_FORMAT_TREND ? method_drift_marks : method_drift);
	if (rep->head.seq) {
		char head[LR_SHA256_HEX + 32], audit[LR_SHA256_HEX + 64];

		snprintf(head, sizeof head, "%lld:%s", (long long)rep->head.seq, rep->head.digest);
		snprintf(audit, sizeof audit, "labrun audit --head %s", head);
		t = &lr_doc_prose(d)->text;
		lr_doc_add(t, "Ledger head: ");
		lr_doc_code(t, head);
		lr_doc_add(t, "; ");
		lr_doc_code(t, audit);
		lr_doc_add(t, " proves a store still holds");
		lr_doc_break(t);
		lr_doc_add(t, "every run this report was computed from, unchanged.");
	}
}

void lr_render_report_doc_flat(struct lr_doc *d, const struct lr_report *rep, const struct lr_serving_report *sv,
			       const struct lr_report_label *l, int charts)
{
	struct lr_doc_block *b;

	lr_render_head_doc(d, rep, l);
	if (rep->head_statement) {
		b = lr_doc_code_block(d, rep->head_statement);
		lr_doc_add(&b->text, "The signed ledger head: ");
		lr_doc_code(&b->text, "labrun audit --head REPORT.md");
		lr_doc_add(&b->text, " names every run changed, deleted or reordered before it");
	}
	for (int i = 0; i < rep->nruns; i++) {
		lr_render_run_doc(d, &rep->runs[i], charts);
		lr_render_invalid_note(d, rep->runs[i].run.id, sv);
	}
	if (sv->nrows)
		lr_render_serving_doc(d, sv);
	lr_render_records_doc(d, rep);
}
