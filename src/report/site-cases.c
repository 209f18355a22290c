/* labrun site: a run's failing serving cases, both token arrays side by side from the first difference. */
#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "report/report.h"
#include "report/text.h"
#include "report/render-int.h"
#include "store/serving.h"

#define CONTEXT 4  /* tokens shown before the first difference */
#define SHOWN   24 /* tokens shown in all */

struct one_case {
	const char *want; /* the case id looked for */
	json_t *tokens;   /* its tokens when found */
	char *text;
};

static int find_case(void *arg, const struct lr_response *r)
{
	struct one_case *c = arg;

	if (c->tokens || strcmp(r->case_id, c->want))
		return 0;
	c->tokens = json_loads(r->tokens, 0, NULL);
	c->text = strndup(r->text ? r->text : "", r->text_len < 200 ? r->text_len : 200);
	return 0;
}

/* One position: its number, the reference's token above the candidate's, marked where they differ. */
static void token_column(FILE *f, size_t i, json_t *ref, json_t *cand)
{
	json_t *x = json_array_get(ref, i), *y = json_array_get(cand, i);
	int same = x && y && json_equal(x, y);

	fprintf(f, "<div class=\"tok%s\"><span>%zu</span>", same ? "" : " bad", i);
	if (x)
		fprintf(f, "<span>%lld</span>", (long long)json_integer_value(x));
	else
		fputs("<span>-</span>", f);
	if (y)
		fprintf(f, "<span>%lld</span></div>", (long long)json_integer_value(y));
	else
		fputs("<span>-</span></div>", f);
}

struct failing_ctx {
	FILE *f;
	struct lr_store *st;
	const struct lr_comparison_row *k;
	int shown;
};

static int failing_case(void *arg, const char *case_id, const struct lr_case_outcome *o)
{
	struct failing_ctx *c = arg;
	struct one_case ref = { case_id, NULL, NULL }, cand = { case_id, NULL, NULL };
	size_t first = o->first_token_diff > 0 ? (size_t)o->first_token_diff : 0,
	       from = first > CONTEXT ? first - CONTEXT : 0;
	int rc;

	if (!c->shown)
		fputs("<h2 id=\"failing-cases\">Failing cases, token by token</h2>\n", c->f);
	if (c->shown++ >= 50) /* the report lists every one; a page shows the first fifty */
		return 0;
	if (!(rc = lr_store_set_responses(c->st, c->k->ref_set, find_case, &ref)))
		rc = lr_store_set_responses(c->st, c->k->cand_set, find_case, &cand);
	fputs("<h3>", c->f);
	lr_html_text(c->f, c->k->cand_route);
	fputs(" against ", c->f);
	lr_html_text(c->f, c->k->ref_route);
	fprintf(c->f, " (comparison %lld, %s), case ", (long long)c->k->id, c->k->kind);
	lr_html_text(c->f, case_id);
	fputs("</h3>\n<p>", c->f);
	if (o->missing)
		fprintf(c->f, "the %s has no response", o->missing == 1 ? "reference" : "candidate");
	else if (o->first_token_diff >= 0)
		fprintf(c->f, "tokens differ from position %lld (shown from %zu)", (long long)o->first_token_diff,
			from);
	else
		fprintf(c->f, "tokens equal;%s%s", o->text_equal ? "" : " texts differ;",
			o->finish_equal ? "" : " finish reasons differ");
	fputs("</p>\n", c->f);
	if (ref.tokens || cand.tokens) {
		size_t n = json_array_size(ref.tokens) > json_array_size(cand.tokens) ? json_array_size(ref.tokens)
										      : json_array_size(cand.tokens);
		size_t to = n < from + SHOWN ? n : from + SHOWN;

		/* a column per position, wrapping on a narrow screen: the two tokens stay one above the other */
		fputs("<div class=\"tokens\"><div class=\"tok head\"><span>position</span><span>reference</span>"
		      "<span>candidate</span></div>",
		      c->f);
		for (size_t i = from; i < to; i++)
			token_column(c->f, i, ref.tokens, cand.tokens);
		fputs("</div>\n<table class=\"kv\">\n", c->f);
		lr_render_site_fact(c->f, "reference text", ref.text);
		lr_render_site_fact(c->f, "candidate text", cand.text);
		fputs("</table>\n", c->f);
	}
	json_decref(ref.tokens);
	json_decref(cand.tokens);
	free(ref.text);
	free(cand.text);
	return rc;
}

static int failing_comparison(void *arg, const struct lr_comparison_row *k)
{
	struct failing_ctx *c = arg;

	if (k->exact == k->total && !k->finish_mismatch)
		return 0;
	c->k = k;
	return lr_store_comparison_failures(c->st, k->id, failing_case, c);
}

int lr_render_site_failing_cases(FILE *f, struct lr_store *st, int64_t run)
{
	struct failing_ctx c = { f, st, NULL, 0 };

	return lr_store_comparisons(st, run, failing_comparison, &c);
}
