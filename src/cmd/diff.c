#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "experiment/compare.h"
#include "store/runs.h"

static const char usage[] =
	"usage: labrun diff A B [--json]\n"
	"\n"
	"Compare two runs without running anything: what drifted between them (sources,\n"
	"binding, geometry, host, tool versions, labrun version), one summary line per kind\n"
	"of difference, and what they produced: for record and import runs the command,\n"
	"status, exit code, every log and artifact by hash and the device-state digest; for\n"
	"experiment runs of the same definition, whether each condition's outputs are\n"
	"identical and how B's baseline timing compares with A's (ratio with a 95%\n"
	"interval, block by block). Exit 0 when the outputs match, 1 when they do not.\n";

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
	if ((rc = cmd_open_store(&st, g)))
		return rc;
	lr_run_init(&a);
	lr_run_init(&b);
	if (!(rc = lr_store_run_resolve(st, argv[first], &ia)) && !(rc = lr_store_run_resolve(st, argv[first + 1], &ib)) &&
	    !(rc = lr_store_run_load(st, ia, &a)) && !(rc = lr_store_run_load(st, ib, &b)) &&
	    !(rc = lr_compare_runs(st, &a, &b, &cmp))) {
		if (json) {
			json_t *o = lr_comparison_json(&a, &b, &cmp);

			json_dumpf(o, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(o);
		} else {
			cmd_print_comparison(&a, &b, &cmp);
		}
		same = cmp.outputs_match;
	}
	lr_comparison_release(&cmp);
	lr_run_release(&a);
	lr_run_release(&b);
	lr_store_free(st);
	if (rc)
		return cmd_fail(rc);
	return same ? LR_EXIT_OK : LR_EXIT_FAIL;
}
