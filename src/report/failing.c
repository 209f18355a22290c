/*
 * The failing and missing cases of the serving evidence, grouped for a
 * reader: the same failure of a run's cases on several routes is one line,
 * its case ids in ranges where they run on ("q01-q12"), its routes named
 * once ("run 3, q01-q12 on whole and stream (gate): format fails, no EOS").
 * Cases are grouped per route first, and routes only share a line when
 * their cases are the same, so a line never says more than the rows do.
 */
#include "config.h"
#include "base/system.h"

#include <ctype.h>

#include "base/buf.h"
#include "base/list.h"
#include "report/doc.h"
#include "report/render-int.h"
#include "serving/report.h"

/* The failures of one cell found by one check, alike: their cases. */
struct group {
	const struct lr_serving_failure *first;
	char *what; /* "format fails, no EOS" */
	struct lr_strlist cases;
	char *case_text; /* "q01-q12, q15", once all are in */
	int line;        /* the line it is shown on */
};

/* A case id as a prefix and a number ("q" 12, width 2), for ranges. */
struct case_id {
	const char *id;
	size_t plen;
	unsigned long num;
	int width; /* digits; 0: no number at its end */
};

static struct case_id case_parse(const char *id)
{
	size_t n = strlen(id), k = n;

	while (k > 0 && n - k < 9 && isdigit((unsigned char)id[k - 1]))
		k--;
	return (struct case_id){ id, k, k < n ? strtoul(id + k, NULL, 10) : 0, (int)(n - k) };
}

static int case_cmp(const void *a, const void *b)
{
	struct case_id x = case_parse(*(const char *const *)a), y = case_parse(*(const char *const *)b);
	int c = strncmp(x.id, y.id, x.plen < y.plen ? x.plen : y.plen);

	if (c || x.plen != y.plen)
		return c ? c : x.plen < y.plen ? -1 : 1;
	if (!x.width != !y.width || x.num != y.num)
		return !x.width != !y.width ? (x.width ? 1 : -1) : x.num < y.num ? -1 : 1;
	return strcmp(x.id, y.id);
}

/* Whether b is the case after a: the same prefix, the next number, written alike. */
static int case_next(const char *a, const char *b)
{
	struct case_id x = case_parse(a), y = case_parse(b);

	return x.width && y.width && x.plen == y.plen && !strncmp(a, b, x.plen) && y.num == x.num + 1 &&
	       (x.width == y.width || (a[x.plen] != '0' && b[y.plen] != '0'));
}

/* The cases, sorted, once each, runs of three or more as "first-last". */
static char *case_text(struct lr_strlist *cases)
{
	struct lr_buf b = LR_BUF_INIT;
	size_t i = 0, k, n = 0;

	if (cases->n) /* a cell's own failure has none, and no array */
		qsort(cases->v, cases->n, sizeof *cases->v, case_cmp);
	for (i = 0; i < cases->n; i++) /* once each */
		if (!n || strcmp(cases->v[n - 1], cases->v[i]))
			cases->v[n++] = cases->v[i];
		else
			free(cases->v[i]);
	cases->n = n;
	for (i = 0; i < n; i = k + 1) {
		for (k = i; k + 1 < n && case_next(cases->v[k], cases->v[k + 1]);)
			k++;
		if (k - i < 2)
			k = i;
		lr_buf_addf(&b, "%s%s", i ? ", " : "", cases->v[i]);
		if (k > i)
			lr_buf_addf(&b, "-%s", cases->v[k]);
	}
	return lr_buf_detach(&b, NULL);
}

/* "format fails; no EOS;" as "format fails, no EOS". */
static char *what_text(const char *what)
{
	struct lr_buf b = LR_BUF_INIT;
	size_t n = strlen(what);

	while (n && (what[n - 1] == ';' || what[n - 1] == ' '))
		n--;
	for (size_t i = 0; i < n; i++)
		lr_buf_addch(&b, what[i] == ';' ? ',' : what[i]);
	return lr_buf_detach(&b, NULL);
}

static int same_group(const struct group *g, const struct lr_serving_failure *f, const char *what)
{
	return g->first->row == f->row && g->first->route == f->route && !strcmp(g->first->check, f->check) &&
	       !g->first->case_id == !f->case_id && !strcmp(g->what, what);
}

/* The failures of sv by cell, check and description: *n groups, each with its cases. */
static struct group *groups_of(const struct lr_serving_report *sv, size_t *n, int *failed)
{
	struct group *g = NULL;
	size_t cap = 0, k;

	*n = 0;
	for (size_t i = 0; i < sv->failing.n && !*failed; i++) {
		const struct lr_serving_failure *f = &sv->failures[i];
		char *what = what_text(f->what);

		for (k = 0; what && k < *n && !same_group(&g[k], f, what); k++)
			;
		if (what && k == *n && !LR_ALLOC_GROW(g, *n + 1, cap))
			g[(*n)++] = (struct group){ f, what, { 0 }, NULL, -1 };
		else
			free(what);
		if (!what || k == *n || (f->case_id && lr_strlist_add(&g[k].cases, f->case_id)))
			*failed = 1;
	}
	for (k = 0; k < *n && !*failed; k++)
		if (!(g[k].case_text = case_text(&g[k].cases)))
			*failed = 1;
	return g;
}

/* Groups that differ only in their route share line; one line of d's facts each: "LABEL, CASES on ROUTES (CHECK): WHAT". */
static void lines(struct lr_doc *d, struct lr_doc_block *b, const struct lr_serving_report *sv, struct group *g,
		  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct lr_serving_failure *f = g[i].first;
		struct lr_buf *t;
		size_t k, same = 0, shown = 0;

		if (g[i].line >= 0)
			continue;
		for (k = i; k < n; k++)
			if (g[k].line < 0 && g[k].first->row == f->row && !strcmp(g[k].first->check, f->check) &&
			    !strcmp(g[k].what, g[i].what) && !strcmp(g[k].case_text, g[i].case_text)) {
				g[k].line = (int)i;
				same++;
			}
		t = lr_doc_item(d, b, 0);
		lr_doc_addf(t, "%s%s%s on ", sv->rows[f->row].label, f->case_id ? ", " : "", g[i].case_text);
		for (int r = 0; r < sv->nroutes; r++) /* in the matrix's order */
			for (k = i; k < n; k++)
				if (g[k].line == (int)i && g[k].first->route == r) {
					shown++;
					lr_doc_addf(t, "%s%s",
						    shown == 1      ? ""
						    : shown == same ? " and "
								    : ", ",
						    sv->routes[r]);
					break;
				}
		lr_doc_addf(t, "%s%s%s: %s", *f->check ? " (" : "", f->check, *f->check ? ")" : "", g[i].what);
	}
}

void lr_render_failing_doc(struct lr_doc *d, const struct lr_serving_report *sv)
{
	struct lr_doc_block *b = lr_doc_facts(d);
	size_t n = 0;
	int failed = 0;
	struct group *g;

	lr_doc_add(&b->text, "Failing and missing cases");
	g = groups_of(sv, &n, &failed);
	if (!failed)
		lines(d, b, sv, g, n);
	for (size_t k = 0; k < n; k++) {
		free(g[k].what);
		free(g[k].case_text);
		lr_strlist_release(&g[k].cases);
	}
	free(g);
	if (failed)
		d->failed = 1;
}
