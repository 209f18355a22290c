#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/jsonbytes.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "serving/serving.h"
#include "store/runs.h"
#include "store/serving.h"

static const char usage[] = "usage: labrun compare --run ID --reference ROUTE --candidate ROUTE [--condition N]\n"
			    "\n"
			    "Compare the candidate route's responses with the reference route's, case by case,\n"
			    "and store the result with run ID. A case is exact when its token arrays and texts\n"
			    "are both equal; a token mismatch names the first differing position; finish reasons\n"
			    "are compared apart; a case on one side only is missing, never skipped. A route may\n"
			    "come from another run: RUN:ROUTE. Exit 0 when every case is exact with equal finish\n"
			    "reasons and none is missing, 1 otherwise.\n";

static int print_case(void *arg, const char *case_id, const struct lr_case_outcome *o)
{
	json_t *cases = arg;

	if (cases) { /* --json */
		json_array_append_new(
			cases,
			json_pack("{s:o, s:o, s:b, s:b, s:b, s:o}", "case_id", lr_json_bytes(case_id), "missing",
				  o->missing ? json_string(o->missing == 1 ? "reference" : "candidate") : json_null(),
				  "tokens_equal", o->tokens_equal, "text_equal", o->text_equal, "finish_equal",
				  o->finish_equal, "first_token_diff",
				  o->first_token_diff >= 0 ? json_integer(o->first_token_diff) : json_null()));
		return 0;
	}
	fputs("  ", stdout);
	lr_term_text(stdout, case_id); /* a case id is the harness's text: no escape sequence reaches the terminal */
	if (o->missing) {
		printf(": missing in the %s\n", o->missing == 1 ? "reference" : "candidate");
		return 0;
	}
	putchar(':');
	if (!o->tokens_equal)
		printf(" tokens differ at position %lld;", (long long)o->first_token_diff);
	if (!o->text_equal)
		printf(" text differs;");
	if (!o->finish_equal)
		printf(" finish reason differs;");
	putchar('\n');
	return 0;
}

int cmd_compare(const struct lr_global *g, int argc, char **argv)
{
	const char *run_ref = NULL, *ref = NULL, *cand = NULL;
	struct lr_response_set rs, cs;
	struct lr_compare_counts k;
	struct lr_store *st = NULL;
	int64_t run = 0, id = 0;
	int rc, cond = -1, json = 0, first;
	json_t *cases = NULL;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref, "ID", "the run holding the candidate"),
		CMD_STRING(0, "reference", &ref, "ROUTE", "the reference route (ROUTE of that run, or RUN:ROUTE)"),
		CMD_STRING(0, "candidate", &cand, "ROUTE", "the route compared with it"),
		CMD_INT(0, "condition", &cond, 0, 1000000, "N", "the condition of a command experiment to compare in"),
		CMD_BOOL(0, "json", &json, "one JSON object (docs/labrun.md gives its shape)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "compare", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if (!run_ref || !ref || !cand)
		return cmd_usage_error("compare", "--run, --reference and --candidate are required");
	if ((rc = cmd_store(&st, g)))
		return rc;
	if ((rc = lr_store_run_resolve(st, run_ref, &run)) || (rc = lr_route_set(st, run, cand, cond, &cs)) ||
	    (rc = lr_route_set(st, run, ref, cs.cond, &rs)) ||
	    (rc = lr_compare_sets(st, cs.run, "cross-route", rs.id, cs.id, &k, &id)))
		goto out;
	if (json) {
		cases = json_array();
		if (!(rc = lr_store_comparison_failures(st, id, print_case, cases))) {
			json_t *o =
				json_pack("{s:I, s:{s:s, s:I}, s:{s:s, s:I}, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:O}",
					  "comparison", (json_int_t)id, "candidate", "route", cs.route, "run",
					  (json_int_t)cs.run, "reference", "route", rs.route, "run", (json_int_t)rs.run,
					  "counts", "total", (json_int_t)k.total, "exact", (json_int_t)k.exact,
					  "token_mismatch", (json_int_t)k.token_mismatch, "text_mismatch",
					  (json_int_t)k.text_mismatch, "finish_mismatch", (json_int_t)k.finish_mismatch,
					  "missing", (json_int_t)k.missing, "failures", cases);

			cmd_json_print(o);
		}
		json_decref(cases);
		goto out;
	}
	printf("comparison %lld: ", (long long)id);
	lr_term_text(stdout, cs.route); /* a pulled run's routes were named on another host */
	printf(" (run %lld) against ", (long long)cs.run);
	lr_term_text(stdout, rs.route);
	printf(" (run %lld)\n", (long long)rs.run);
	printf("%lld exact, %lld token mismatch, %lld text mismatch, %lld finish mismatch, %lld missing (of %lld)\n",
	       (long long)k.exact, (long long)k.token_mismatch, (long long)k.text_mismatch,
	       (long long)k.finish_mismatch, (long long)k.missing, (long long)k.total);
	rc = lr_store_comparison_failures(st, id, print_case, NULL);
out:
	if (rc)
		return cmd_fail(rc);
	return k.exact == k.total && !k.finish_mismatch ? LR_EXIT_OK : LR_EXIT_FAIL;
}
