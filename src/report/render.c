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

void lr_render_table(struct lr_table *t, struct lr_render_heads *h, const struct lr_report_run *rr,
		     const struct lr_report_table *tb)
{
	const struct lr_stored_design *d = &rr->design;
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm], *metric = d->metric[0] ? d->metric : "wall time ms";
	int i, cmd = d->target == LR_TARGET_COMMAND;
	double effect, lo, hi;
	char cell[3][160];
	const struct lr_column cols[9] = {
		{ "condition", cmd ? "Condition" : "Shape layers/input", 0 },
		{ "baseline_median", h->text[0], LR_COL_NUMBER },
		{ "arm_median", h->text[1], LR_COL_NUMBER },
		{ "change", cmd ? "Change" : "Reduction", LR_COL_NUMBER },
		{ "interval", "95% interval", 0 },
		{ "blocks", "blocks", LR_COL_NUMBER },
		{ "flagged", "flagged reps", LR_COL_NUMBER },
		{ "drift", h->text[2], 0 },
		{ "verdict", "verdict", 0 },
	};

	memcpy(h->cols, cols, sizeof cols);
	snprintf(h->text[0], sizeof h->text[0], "%s median %s", an, cmd ? metric : "ms");
	snprintf(h->text[1], sizeof h->text[1], "%s median %s", bn, cmd ? metric : "ms");
	snprintf(h->text[2], sizeof h->text[2], "drift %s/%s", an, bn);
	lr_table_init(t, h->cols, 9);
	for (i = 0; i < tb->nrows; i++) {
		const struct lr_report_row *w = &tb->rows[i];

		lr_table_text(t, w->label);
		if (!w->has) {
			for (int k = 0; k < 4; k++)
				lr_table_none(t);
			lr_table_int(t, w->blocks);
			lr_table_int(t, w->flagged);
			lr_table_none(t);
			lr_table_text(t, w->status);
			continue;
		}
		lr_table_real(t, w->median_a_ms, 3);
		lr_table_real(t, w->median_b_ms, 3);
		lr_report_pct(rr, w, &effect, &lo, &hi);
		snprintf(cell[0], sizeof cell[0], cmd ? "%+.1f%%%s" : "%.1f%%%s", effect,
			 lr_report_sign_disagrees(w) ? " (a)" : "");
		if (w->p.k)
			snprintf(cell[1], sizeof cell[1], cmd ? "[%+.1f%%, %+.1f%%]" : "[%.1f%%, %.1f%%]", lo, hi);
		else
			snprintf(cell[1], sizeof cell[1], "%d timed batches, no interval", w->blocks);
		snprintf(cell[2], sizeof cell[2], "%+.1f%%/%+.1f%%%s", w->drift_a * 100, w->drift_b * 100,
			 w->drifted ? " DRIFT" : "");
		lr_table_text(t, cell[0]);
		lr_table_text(t, cell[1]);
		lr_table_int(t, w->blocks);
		lr_table_int(t, w->flagged);
		lr_table_text(t, cell[2]);
		lr_table_text(t, lr_report_verdict(cell[0], sizeof cell[0], rr, w, bn));
	}
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

/* One table of a run: its heading, the table, the note under it, and (charts) a chart per condition. */
static void doc_table(struct lr_doc *d, const struct lr_report_run *rr, const struct lr_report_table *tb, int charts)
{
	const char *an = rr->arm[0], *bn = rr->arm[tb->arm];
	struct lr_render_heads h;
	struct lr_table t;

	lr_doc_addf(&lr_doc_heading(d, 3)->text, "%s (%s) vs %s (%s), run %lld", bn, rr->kernel[tb->arm], an,
		    rr->kernel[0], (long long)rr->run.id);
	lr_render_table(&t, &h, rr, tb);
	lr_doc_table(d, 0, &t);
	if (lr_render_sign_noted(tb))
		lr_doc_add(&lr_doc_note(d)->text, lr_render_sign_note);
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

int lr_render_tables(FILE *f, const struct lr_report_run *rr)
{
	struct lr_doc d;
	int rc;

	lr_doc_init(&d);
	lr_render_tables_doc(&d, rr, 0);
	rc = lr_doc_error(&d);
	for (size_t i = 0; i < d.n && !rc; i++) { /* blank lines between the blocks, none after: a printout goes on */
		if (i)
			fputc('\n', f);
		rc = lr_doc_write_block(f, &d, i, LR_FORMAT_MD);
	}
	lr_doc_release(&d);
	return rc;
}

/* Command, replay, definition and sources (with every changed file), as facts of b. */
static void run_source_facts(struct lr_doc *d, struct lr_doc_block *b, const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	char *cmdline = lr_argv_text(r->argv_json);
	struct lr_buf *t = lr_doc_item(d, b, 0);

	lr_doc_add(t, "Command: ");
	lr_doc_code(t, cmdline ? cmdline : r->argv_json);
	lr_doc_add(t, " (in ");
	lr_doc_code(t, r->cwd);
	lr_doc_addf(t, ", started %s)", r->started_at);
	free(cmdline);
	if (r->replay_of)
		lr_doc_addf(lr_doc_item(d, b, 0), "Replay of run %lld", (long long)r->replay_of);
	t = lr_doc_item(d, b, 0);
	lr_doc_add(t, "Definition: ");
	lr_doc_code(t, rr->design.path);
	lr_doc_add(t, ", sha256 ");
	lr_doc_code(t, rr->design.sha256);
	t = lr_doc_item(d, b, 0);
	if (!r->source.present) {
		lr_doc_add(t, "Sources: not inside a git work tree");
		return;
	}
	lr_doc_add(t, "Sources: HEAD ");
	lr_doc_code(t, r->source.head ? r->source.head : "(no commit)");
	if (r->source.branch) {
		lr_doc_add(t, " (branch ");
		lr_doc_code(t, r->source.branch);
		lr_doc_add(t, ")");
	}
	lr_doc_addf(t, ", dirty: %s, diff sha256 ", r->source.dirty ? "yes" : "no");
	lr_doc_code(t, r->source.diff_sha256);
	for (size_t i = 0; i < r->nfiles; i++) {
		t = lr_doc_item(d, b, 1);
		lr_doc_code(t, r->files[i].path);
		lr_doc_addf(t, " %s ", r->files[i].status);
		lr_doc_code(t, r->files[i].has_content ? r->files[i].sha256 : "(deleted)");
	}
}

/* What a run rests on: command, definition, sources, host, binding, geometry, tools, design, parity, floor. */
static void run_facts(struct lr_doc *d, const struct lr_report_run *rr)
{
	const struct lr_run *r = &rr->run;
	const struct lr_stored_design *ds = &rr->design;
	struct lr_doc_block *b = lr_doc_facts(d);
	char floor[512];

	run_source_facts(d, b, rr);
	lr_doc_addf(lr_doc_item(d, b, 0), "Host: %s, %s, %lld CPUs, %s, kernel %s", r->host.hostname,
		    r->host.cpu_model ? r->host.cpu_model : "unknown CPU", (long long)r->host.cores,
		    r->host.os ? r->host.os : "unknown OS", r->host.kernel);
	kv_item(d, b, "Binding", &r->binding);
	kv_item(d, b, "Geometry", &r->geometry);
	kv_item(d, b, "Tool versions", &r->tools);
	lr_doc_addf(
		lr_doc_item(d, b, 0),
		"Design: %s, %d timed blocks after %d warm-up, practical margin %g%%, seed %llu, target %s, backend %s",
		ds->order == LR_ORDER_ABBA ? "ABBA" : "random", ds->blocks, ds->warmup, ds->margin * 100,
		(unsigned long long)ds->seed, lr_exp_target_name(ds->target), ds->backend);
	lr_doc_addf(lr_doc_item(d, b, 0), "Parity: %d passed, %d failed, %d missing", rr->passed, rr->failed,
		    rr->missing);
	lr_doc_addf(lr_doc_item(d, b, 0), "Noise floor: %s", lr_report_floor_text(floor, sizeof floor, rr));
}

void lr_render_run_doc(struct lr_doc *d, const struct lr_report_run *rr, int charts)
{
	const struct lr_stored_design *ds = &rr->design;
	struct lr_doc_block *b;

	lr_doc_addf(&lr_doc_heading(d, 2)->text, "%s, run %lld (%s)", ds->name, (long long)rr->run.id,
		    lr_status_name(rr->run.status));
	if (ds->title[0])
		lr_doc_add(&lr_doc_prose(d)->text, ds->title);
	run_facts(d, rr);
	lr_render_tables_doc(d, rr, charts);
	b = lr_doc_facts(d);
	lr_doc_add(&b->text, "Failed or missing conditions");
	for (int i = 0; i < rr->nconds; i++)
		if (strcmp(rr->conds[i].status, "passed"))
			lr_doc_addf(lr_doc_item(d, b, 0), "%s: %s: %s",
				    rr->ntables ? rr->tables[0].rows[i].label : rr->conds[i].model, rr->conds[i].status,
				    rr->conds[i].failure ? rr->conds[i].failure : "");
}

/* The method in one paragraph: the same words in every format that has prose. */
const char lr_render_method[] =
	"every figure is recomputed from the stored\n"
	"repetitions of the runs named in each heading. Times are measured wall-clock time per\n"
	"execution (median over the timed blocks); reduction = 1 - exp(median over blocks of\n"
	"ln((B1+B2)/(A1+A2))); the 95% interval is the sign-test interval of the block ratios.\n"
	"Drift is each arm's relative change over the timed blocks (least-squares slope of log time),\n"
	"flagged DRIFT beyond the practical margin.";

void lr_render_report_doc(struct lr_doc *d, const struct lr_report *rep, const struct lr_serving_report *sv,
			  const struct lr_report_label *l, int charts)
{
	struct lr_doc_block *b;
	struct lr_buf *t;

	lr_doc_addf(&lr_doc_heading(d, 1)->text, "labrun report: %s", l->title);
	t = &lr_doc_prose(d)->text;
	lr_doc_addf(t, "Regenerated from the store by labrun %s: ", l->version ? l->version : PACKAGE_VERSION);
	lr_doc_add_lines(t, lr_render_method);
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
	if (rep->head_statement) {
		b = lr_doc_code_block(d, rep->head_statement);
		lr_doc_add(&b->text, "The signed ledger head: ");
		lr_doc_code(&b->text, "labrun audit --head REPORT.md");
		lr_doc_add(&b->text, " names every run changed, deleted or reordered before it");
	}
	for (int i = 0; i < rep->nruns; i++)
		lr_render_run_doc(d, &rep->runs[i], charts);
	if (sv->nrows)
		lr_render_serving_doc(d, sv);
	lr_render_records_doc(d, rep);
}
