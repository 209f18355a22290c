/*
 * The run list of 'labrun list' and its registrations (--registered), a row
 * at a time as the store gives them, and the text table of 'labrun sql'.
 */
#include "config.h"
#include "base/system.h"

#include "report/report.h"
#include "report/text.h"

void lr_render_registration_row(FILE *f, int first, const struct lr_registration *g)
{
	if (first)
		fprintf(f, "%5s  %-16s  %-20s  %-16s  %-12s  %s\n", "REG", "HUB", "REGISTERED", "MANIFEST", "RUNS",
			"CRATE");
	fprintf(f, "%5lld  %-16s  %-20.19s  %-16.16s  %-12s  %s\n", (long long)g->id, g->hub, g->when, g->sha,
		*g->runs ? g->runs : "-", g->path);
}

/*
 * 'text' fitted to 'width' bytes in 'out': longer text ends in "..." (cut at
 * a UTF-8 character boundary). width 0: the whole text.
 */
static const char *fit(char *out, size_t len, const char *text, size_t width)
{
	size_t n = strlen(text);

	if (!width || n <= width || width < 4 || width >= len)
		return text;
	n = width - 3;
	while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
		n--;
	snprintf(out, len, "%.*s...", (int)n, text);
	return out;
}

void lr_render_run_row(FILE *f, int first, const struct lr_run *r, size_t width, int wide)
{
	char exitbuf[16] = "-", wall[24] = "-", issues[512] = "", *cmd, e[64], is[64], cm[4096];
	/* the columns before COMMAND take 5+2+9+2+4+2+9+2+20+2+16+2+12+2 bytes */
	size_t i, off = 0, cmdw = wide || width <= 89 + 10 ? 0 : width - 89;

	if (first)
		fprintf(f, "%5s  %-9s  %4s  %9s  %-20s  %-16s  %-12s  %s\n", "ID", "STATUS", "EXIT", "WALL", "STARTED",
			"EXPERIMENT", "ISSUES", "COMMAND");
	if (r->has_exit)
		snprintf(exitbuf, sizeof exitbuf, "%d", r->exit_code);
	else if (r->signal)
		snprintf(exitbuf, sizeof exitbuf, "s%d", r->signal);
	if (r->ended_at)
		snprintf(wall, sizeof wall, "%.2fs", r->wall_s);
	for (i = 0; i < r->issues.n && off < sizeof issues; i++)
		off += (size_t)snprintf(issues + off, sizeof issues - off, "%s%s", i ? "," : "", r->issues.v[i]);
	cmd = lr_argv_text(r->argv_json);
	fprintf(f, "%5lld  %-9s  %4s  %9s  %-20.19s  %-16s  %-12s  %s\n", (long long)r->id, lr_status_name(r->status),
		exitbuf, wall, r->started_at, fit(e, sizeof e, r->experiment ? r->experiment : "-", wide ? 0 : 16),
		fit(is, sizeof is, *issues ? issues : "-", wide ? 0 : 12), fit(cm, sizeof cm, cmd ? cmd : "", cmdw));
	free(cmd);
}

static void rule(FILE *f, const size_t *w, int ncol)
{
	for (int i = 0; i < ncol; i++) {
		for (size_t k = 0; k < w[i]; k++)
			fputc('-', f);
		if (i + 1 < ncol)
			fputs("  ", f);
	}
	fputc('\n', f);
}

int lr_render_sql_table(FILE *f, char *const *cells, size_t ncells, int ncol)
{
	size_t *w, r, nrows;
	int i;

	if (ncol <= 0)
		return 0;
	w = calloc((size_t)ncol, sizeof *w);
	if (!w)
		return lr_error_set(LR_ENOMEM, "out of memory");
	nrows = ncells / (size_t)ncol;
	for (r = 0; r < nrows; r++)
		for (i = 0; i < ncol; i++) {
			size_t len = strlen(cells[r * (size_t)ncol + (size_t)i]);

			if (len > w[i])
				w[i] = len;
		}
	for (r = 0; r < nrows; r++) {
		for (i = 0; i < ncol; i++) {
			const char *v = cells[r * (size_t)ncol + (size_t)i];

			if (i + 1 < ncol)
				fprintf(f, "%-*s  ", (int)w[i], v);
			else
				fputs(v, f);
		}
		fputc('\n', f);
		if (r == 0)
			rule(f, w, ncol);
	}
	free(w);
	return 0;
}
