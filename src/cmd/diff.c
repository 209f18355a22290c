#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/jsonbytes.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "experiment/compare.h"
#include "store/runs.h"

static const char usage[] = "usage: labrun diff A B [--json]\n"
			    "\n"
			    "Compare two runs without running anything: what drifted between them (sources,\n"
			    "binding, geometry, host, tool versions, labrun version), one summary line per kind\n"
			    "of difference, and what they produced: for record and import runs the command,\n"
			    "status, exit code, every log and artifact by hash and the device-state digest; for\n"
			    "experiment runs of the same definition, whether each condition's outputs are\n"
			    "identical and how B's baseline timing compares with A's (ratio with a 95%\n"
			    "interval, block by block). Exit 0 when the outputs match, 1 when they do not.\n";

/*
 * The comparison as JSON (the shape docs/labrun.md gives for 'diff --json'):
 * a and b, outputs_match, differences (kind -> count), drift [{what, key, a,
 * b}], and for experiment runs comparable and conditions [{condition,
 * outputs_match, differs?, timing?}].
 */
static json_t *comparison_json(const struct lr_run *a, const struct lr_run *b, const struct lr_comparison *cmp)
{
	json_t *o = json_object(), *drift = json_array(), *kinds = json_object(), *conds = json_array();
	size_t i;
	int c;

	for (i = 0; i < cmp->ndrift; i++) {
		const struct lr_drift *d = &cmp->drift[i];
		json_t *n = json_object_get(kinds, d->what);

		json_array_append_new(drift,
				      json_pack("{s:s, s:o, s:o, s:o}", "what", d->what, "key", lr_json_bytes(d->key),
						"a", lr_json_bytes(d->a), "b", lr_json_bytes(d->b)));
		json_object_set_new(kinds, d->what, json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	for (c = 0; cmp->experiments && cmp->comparable && c < cmp->ncond; c++) {
		const struct lr_cond_compare *x = &cmp->cond[c];
		json_t *j =
			json_pack("{s:s, s:b}", "condition", cmp->where[c].label, "outputs_match", x->outputs_match);

		if (!x->outputs_match)
			json_object_set_new(j, "differs",
					    json_pack("{s:s, s:s, s:s}", "arm", cmp->arm_names[x->first_arm], "a",
						      x->a_sha, "b", x->b_sha));
		if (x->has_timing)
			json_object_set_new(j, "timing",
					    json_pack("{s:f, s:o, s:o, s:i}", "ratio", x->timing.ratio, "lo",
						      x->timing.k ? json_real(x->timing.lo) : json_null(), "hi",
						      x->timing.k ? json_real(x->timing.hi) : json_null(), "blocks",
						      x->timing.n));
		json_array_append_new(conds, j);
	}
	json_object_set_new(o, "a",
			    json_pack("{s:I, s:s, s:s}", "id", (json_int_t)a->id, "kind", lr_run_kind_name(a->kind),
				      "status", lr_status_name(a->status)));
	json_object_set_new(o, "b",
			    json_pack("{s:I, s:s, s:s}", "id", (json_int_t)b->id, "kind", lr_run_kind_name(b->kind),
				      "status", lr_status_name(b->status)));
	json_object_set_new(o, "outputs_match", json_boolean(cmp->outputs_match));
	json_object_set_new(o, "differences", kinds);
	json_object_set_new(o, "drift", drift);
	if (cmp->experiments) {
		json_object_set_new(o, "comparable", json_boolean(cmp->comparable));
		json_object_set_new(o, "conditions", conds);
	} else {
		json_decref(conds);
	}
	return o;
}

int cmd_diff(const struct lr_global *g, int argc, char **argv)
{
	struct lr_comparison cmp = { 0 };
	struct lr_store *st = NULL;
	struct lr_run a, b;
	int64_t ia = 0, ib = 0;
	int rc, first, same = 1, json = 0;

	if ((rc = cmd_parse_plain_json("diff", usage, argc, argv, 2, 2, "two runs, A and B", &first, &json,
				       "one JSON object (docs/labrun.md gives its shape)")))
		return rc;
	if ((rc = cmd_store(&st, g)))
		return rc;
	lr_run_init(&a);
	lr_run_init(&b);
	if (!(rc = lr_store_run_resolve(st, argv[first], &ia)) &&
	    !(rc = lr_store_run_resolve(st, argv[first + 1], &ib)) && !(rc = lr_store_run_load(st, ia, &a)) &&
	    !(rc = lr_store_run_load(st, ib, &b)) && !(rc = lr_compare_runs(st, &a, &b, &cmp))) {
		if (json) {
			json_t *o = comparison_json(&a, &b, &cmp);

			cmd_json_print(o);
		} else {
			lr_render_comparison(stdout, &a, &b, &cmp, 0);
		}
		same = cmp.outputs_match;
	}
	lr_comparison_release(&cmp);
	lr_run_release(&a);
	lr_run_release(&b);
	if (rc)
		return cmd_fail(rc);
	return same ? LR_EXIT_OK : LR_EXIT_FAIL;
}
