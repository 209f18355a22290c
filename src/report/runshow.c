/*
 * The lists 'labrun show' prints about one run, for a terminal: its changed
 * files, artifacts, measurements, checks and an experiment run's conditions.
 */
#include "config.h"
#include "base/system.h"

#include "experiment/report.h"
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
