#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "serving/serving.h"
#include "store/runs.h"
#include "store/serving.h"

static const char usage[] = "usage: labrun gate --run ID --route ROUTE --answers KEY.jsonl [--condition N]\n"
			    "\n"
			    "Score a route's responses against a frozen answer key (one JSON object a line:\n"
			    "case_id, answer, keys) and store the scores with run ID. Format passes when the text,\n"
			    "with surrounding whitespace removed and nothing else changed, is exactly one JSON\n"
			    "object whose members are exactly 'keys'; a strict answer also has its 'answer' member\n"
			    "equal to the key's (JSON equality); EOS is finish_reason 'stop'. No other\n"
			    "normalisation, ever. The key's sha256 is stored, so a changed key shows. Exit 0 when\n"
			    "every case passes all three, 1 otherwise.\n";

int cmd_gate(const struct lr_global *g, int argc, char **argv)
{
	const char *run_ref = NULL, *route = NULL, *answers = NULL;
	struct lr_response_set set;
	struct lr_gate_counts k = { 0 };
	struct lr_store *st = NULL;
	int64_t run = 0, id = 0;
	int rc, cond = -1, json = 0, first;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref, "ID", "the run holding the responses"),
		CMD_STRING(0, "route", &route, "ROUTE", "their route (or RUN:ROUTE)"),
		CMD_STRING(0, "answers", &answers, "FILE", "the frozen answer key"),
		CMD_INT(0, "condition", &cond, 0, 1000000, "N", "the condition of a command experiment"),
		CMD_BOOL(0, "json", &json, "one JSON object (docs/labrun.md gives its shape)"),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "gate", .usage = usage };

	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if (!run_ref || !route || !answers)
		return cmd_usage_error("gate", "--run, --route and --answers are required");
	if ((rc = cmd_store(&st, g)))
		return rc;
	if (!(rc = lr_store_run_resolve(st, run_ref, &run)) && !(rc = lr_route_set(st, run, route, cond, &set)) &&
	    !(rc = lr_gate_score(st, set.run, set.id, answers, &k, &id)) && json) {
		json_t *o = json_pack("{s:I, s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:b}", "gate", (json_int_t)id,
				      "route", set.route, "run", (json_int_t)set.run, "counts", "total",
				      (json_int_t)k.total, "strict", (json_int_t)k.strict, "formats",
				      (json_int_t)k.formats, "eos", (json_int_t)k.eos, "missing", (json_int_t)k.missing,
				      "passed", k.strict == k.total && k.eos == k.total);

		cmd_json_print(o);
	}
	if (!rc && !json) {
		printf("gate %lld: ", (long long)id);
		lr_term_text(stdout, set.route);
		printf(" (run %lld): strict answers %lld/%lld, formats %lld/%lld, EOS %lld/%lld, missing %lld\n",
		       (long long)set.run, (long long)k.strict, (long long)k.total, (long long)k.formats,
		       (long long)k.total, (long long)k.eos, (long long)k.total, (long long)k.missing);
	}
	if (rc)
		return cmd_fail(rc);
	return k.strict == k.total && k.eos == k.total ? LR_EXIT_OK : LR_EXIT_FAIL;
}
