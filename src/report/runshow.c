/*
 * The lists 'labrun show' prints about one run, for a terminal: its changed
 * files, artifacts, measurements, checks and an experiment run's conditions.
 */
#include "config.h"
#include "base/system.h"

#include "experiment/report.h"
#include "record/facts.h"
#include "report/doc.h"
#include "report/report.h"
#include "report/text.h"

/* "LABEL VALUE\n", the value escaped for a terminal. */
static void field(FILE *f, const char *label, const char *v)
{
	fputs(label, f);
	lr_term_text(f, v);
	fputc('\n', f);
}

void lr_render_run_files(FILE *f, const struct lr_run *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		fprintf(f, "  %-10s %s  ", r->files[i].status,
			r->files[i].has_content ? r->files[i].sha256
						: "(deleted)                                                       ");
		field(f, "", r->files[i].path);
	}
}

void lr_render_run_artifacts(FILE *f, const struct lr_run *r)
{
	char size[32];

	fputs("artifacts:", f);
	if (!r->nartifacts)
		fputs(" (none)", f);
	fputc('\n', f);
	for (size_t i = 0; i < r->nartifacts; i++) {
		const struct lr_artifact *a = &r->artifacts[i];

		if (a->present) {
			fprintf(f, "  %-9s %-10s %s  ", a->role, lr_human_size(size, sizeof size, a->size), a->sha256);
			lr_term_text(f, a->name);
			fputs(a->kind == LR_ENTRY_SYMLINK    ? " (symlink) -> "
			      : a->kind == LR_ENTRY_FOLLOWED ? " (followed) -> "
							     : "",
			      f);
			field(f, "", a->target ? a->target : "");
		} else {
			fprintf(f, "  %-9s %-10s %-64s  ", a->role, "MISSING", "-");
			field(f, "", a->name);
		}
	}
}

void lr_render_run_measures(FILE *f, const struct lr_run *r)
{
	if (r->kind == LR_KIND_BENCH && (r->nsamples || r->nmeasures)) /* one per repetition: hundreds */
		fprintf(f, "samples: %zu timed repetitions; 'labrun report --run %lld' gives the tables, --json each\n",
			r->nsamples ? r->nsamples : r->nmeasures, (long long)r->id);
	else if (r->nmeasures)
		fputs("measurements:\n", f);
	for (size_t i = 0; r->kind != LR_KIND_BENCH && i < r->nmeasures; i++)
		fprintf(f, "  %-18s %14.6g %-6s%s\n", r->measures[i].name, r->measures[i].value, r->measures[i].unit,
			r->measures[i].modelled ? "  MODELLED, not measured" : "");
}

void lr_render_run_checks(FILE *f, const struct lr_run *r)
{
	if (r->nchecks)
		fputs("checks:\n", f);
	for (size_t i = 0; i < r->nchecks; i++) {
		const struct lr_check *c = &r->checks[i];

		fputs("  ", f);
		lr_term_text(f, c->name);
		fprintf(f, ": %lld/%lld%s", (long long)c->passed, (long long)c->total,
			c->passed < c->total ? " FAILED" : "");
		if (c->detail) {
			fputs(" (", f);
			lr_term_text(f, c->detail);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

void lr_render_run_conditions(FILE *f, const struct lr_report_run *rr)
{
	char verdict[256];

	fprintf(f, "conditions: %d, parity %d passed, %d failed, %d missing (baseline arm '%s')\n", rr->nconds,
		rr->passed, rr->failed, rr->missing, rr->arm[0]);
	for (int t = 0; t < rr->ntables; t++)
		for (int k = 0; k < rr->tables[t].nrows; k++) {
			const struct lr_report_row *w = &rr->tables[t].rows[k];
			const char *arm = rr->arm[rr->tables[t].arm];

			fprintf(f, "  %-28s %-12s %-8s %s\n", w->label, arm, w->status,
				w->has       ? lr_report_verdict(verdict, sizeof verdict, rr, w, arm)
				: w->failure ? w->failure
					     : "no estimate");
		}
}

/* The labrun that recorded r: "labrun 0.1.0, binary sha256 X (N bytes), built by CC CFLAGS, configure OPTS". */
static void recorder_text(struct lr_buf *t, const struct lr_run *r)
{
	const struct lr_kv *sha = lr_kvlist_find(&r->recorder, "binary_sha256"),
			   *size = lr_kvlist_find(&r->recorder, "binary_size"),
			   *cc = lr_kvlist_find(&r->recorder, "cc"), *cflags = lr_kvlist_find(&r->recorder, "cflags"),
			   *conf = lr_kvlist_find(&r->recorder, "configure");

	lr_buf_addf(t, "labrun %s, binary sha256 %s", r->labrun_version, sha ? sha->value : "(not recorded)");
	if (size)
		lr_buf_addf(t, " (%s bytes)", size->value);
	if (cc)
		lr_buf_addf(t, ", built by %s %s, configure options: %s", cc->value, cflags ? cflags->value : "",
			    conf && conf->value[0] ? conf->value : "none");
}

void lr_render_run_identity(FILE *f, const struct lr_run *r)
{
	struct lr_buf t = LR_BUF_INIT;
	char cards[512];

	if (r->probes.n)
		fputs("tool probes:\n", f);
	for (size_t i = 0; i < r->probes.n; i++) {
		fprintf(f, "  %s: ", r->probes.v[i].key);
		lr_term_text(f, r->probes.v[i].tag ? r->probes.v[i].tag : "");
		fputc('\n', f);
		for (const char *s = r->probes.v[i].value; *s; s += *s == '\n') {
			size_t n = strcspn(s, "\n");
			char line[256];

			snprintf(line, sizeof line, "%.*s", (int)n, s);
			fputs("    | ", f);
			lr_term_text(f, line);
			fputc('\n', f);
			s += n;
		}
	}
	lr_run_cards_said(r, cards, sizeof cards);
	if (cards[0])
		fprintf(f, "cards:      %s\n", cards);
	recorder_text(&t, r);
	fputs("recorder:   ", f);
	lr_term_text(f, t.buf);
	fputc('\n', f);
	lr_buf_release(&t);
}

void lr_render_run_identity_doc(struct lr_doc *d, struct lr_doc_block *b, const struct lr_run *r)
{
	struct lr_buf *t, rec = LR_BUF_INIT;
	char cards[512];

	for (size_t i = 0; i < r->probes.n; i++) {
		char version[256];
		const struct lr_kv *v = lr_kvlist_find(&r->tools, r->probes.v[i].key);

		snprintf(version, sizeof version, "%s", v ? v->value : "");
		t = lr_doc_item(d, b, 0);
		lr_doc_addf(t, "Tool probe %s: ", r->probes.v[i].key);
		lr_doc_code(t, r->probes.v[i].tag ? r->probes.v[i].tag : "");
		lr_doc_add(t, " printed ");
		lr_doc_code(t, version);
	}
	lr_run_cards_said(r, cards, sizeof cards);
	if (cards[0])
		lr_doc_addf(lr_doc_item(d, b, 0), "Cards: %s", cards);
	if (!r->recorder.n) /* runs recorded before migration 24 */
		return;
	t = lr_doc_item(d, b, 0);
	lr_doc_addf(t, "Recorded by: labrun %s, binary sha256 ", r->labrun_version);
	for (size_t i = 0; i < r->recorder.n; i++) {
		const struct lr_kv *kv = &r->recorder.v[i];

		if (!strcmp(kv->key, "binary_sha256"))
			lr_doc_code(t, kv->value);
	}
	if (!lr_kvlist_find(&r->recorder, "binary_sha256"))
		lr_doc_add(t, "(not recorded)");
	for (size_t i = 0; i < r->recorder.n; i++) {
		const struct lr_kv *kv = &r->recorder.v[i];

		if (strcmp(kv->key, "binary_sha256") && kv->value[0]) {
			lr_buf_reset(&rec);
			lr_buf_addf(&rec, "%s=%s", kv->key, kv->value);
			lr_doc_add(t, ", ");
			lr_doc_code(t, rec.buf);
		}
	}
	if (rec.failed)
		d->failed = 1;
	lr_buf_release(&rec);
}
