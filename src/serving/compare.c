#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "serving/serving.h"
#include "store/runs.h"
#include "store/serving.h"

/*
 * The first position where two compact token arrays ("[1,2,3]") differ:
 * the shorter length when one is a prefix of the other.
 */
static int64_t first_diff(const char *a, const char *b)
{
	int64_t pos = 0;

	a++;
	b++;
	for (;;) {
		int end_a = *a == ']', end_b = *b == ']';
		char *ea, *eb;
		long long x, y;

		if (end_a || end_b)
			return pos;
		x = strtoll(a, &ea, 10);
		y = strtoll(b, &eb, 10);
		if (x != y)
			return pos;
		a = *ea == ',' ? ea + 1 : ea;
		b = *eb == ',' ? eb + 1 : eb;
		pos++;
	}
}

static int judge(void *arg, const struct lr_response *ref, const struct lr_response *cand, struct lr_case_outcome *o)
{
	struct lr_compare_counts *c = arg;

	c->total++;
	if (!ref || !cand) {
		o->missing = ref ? 2 : 1;
		c->missing++;
		return 0;
	}
	o->tokens_equal = !strcmp(ref->tokens, cand->tokens); /* both compact: equal text is equal arrays */
	o->text_equal = ref->text_len == cand->text_len && !memcmp(ref->text, cand->text, ref->text_len);
	o->finish_equal = !strcmp(ref->finish_reason, cand->finish_reason);
	if (!o->tokens_equal) {
		o->first_token_diff = first_diff(ref->tokens, cand->tokens);
		c->token_mismatch++;
	}
	if (!o->text_equal)
		c->text_mismatch++;
	if (!o->finish_equal)
		c->finish_mismatch++;
	if (o->tokens_equal && o->text_equal)
		c->exact++;
	return 0;
}

int lr_compare_sets(struct lr_store *st, int64_t run, const char *kind, int64_t ref, int64_t cand,
		    struct lr_compare_counts *counts, int64_t *id)
{
	int64_t nref = 0, ncand = 0;
	int rc;

	memset(counts, 0, sizeof *counts);
	*id = 0;
	/* neither shows anything, yet each was stored as a pass and shown as exact in the matrix */
	if (ref == cand) {
		lr_error_set(LR_EINVAL, "cannot compare response set %lld with itself: every case would match",
			     (long long)ref);
		lr_error_hint("compare two routes, or the same route of two runs (RUN:ROUTE)");
		return LR_EINVAL;
	}
	if ((rc = lr_store_set_cases(st, ref, &nref)) || (rc = lr_store_set_cases(st, cand, &ncand)))
		return rc;
	if (!nref && !ncand) {
		lr_error_set(LR_EINVAL, "cannot compare response sets %lld and %lld: both are empty", (long long)ref,
			     (long long)cand);
		lr_error_hint("a comparison of no cases shows nothing; ingest the harness's responses first");
		return LR_EINVAL;
	}
	return lr_store_comparison(st, run, kind, ref, cand, judge, counts, id);
}

struct find {
	int cond;
	struct lr_response_set *out;
	int found, conds;
	int last_cond;
};

static int pick(void *arg, const struct lr_response_set *s)
{
	struct find *f = arg;

	if (f->cond >= 0 && s->cond != f->cond)
		return 0;
	if (!f->found || (f->cond < 0 && s->cond < 0 && f->out->cond >= 0)) {
		*f->out = *s;
		f->found = 1;
	}
	if (s->cond != f->last_cond) {
		f->conds++;
		f->last_cond = s->cond;
	}
	return 0;
}

int lr_route_set(struct lr_store *st, int64_t run, const char *ref, int cond, struct lr_response_set *out)
{
	const char *colon = strchr(ref, ':'), *route = ref;
	struct find f = { .cond = cond, .out = out, .last_cond = -2 };
	int64_t owner = run;
	char num[32];
	int rc;

	if (colon) {
		snprintf(num, sizeof num, "%.*s", (int)(colon - ref < 31 ? colon - ref : 31), ref);
		if ((rc = lr_store_run_resolve(st, num, &owner)))
			return rc;
		route = colon + 1;
	}
	memset(out, 0, sizeof *out);
	if ((rc = lr_store_sets(st, owner, route, pick, &f)))
		return rc;
	if (!f.found) {
		lr_error_set(LR_ENOTFOUND, "cannot find route '%s' in run %lld%s", route, (long long)owner,
			     cond >= 0 ? " for that condition" : "");
		lr_error_hint(
			"'labrun sql \"SELECT run_id, route, condition_idx FROM response_set\"' lists the routes");
		return LR_ENOTFOUND;
	}
	if (cond < 0 && out->cond >= 0 && f.conds > 1) {
		lr_error_set(LR_EINVAL, "route '%s' of run %lld has responses in %d conditions", route,
			     (long long)owner, f.conds);
		lr_error_hint("name the condition with --condition N");
		return LR_EINVAL;
	}
	return 0;
}
