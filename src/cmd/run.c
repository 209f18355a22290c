#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "base/walk.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "experiment/expdef.h"
#include "experiment/report.h"
#include "experiment/runner.h"
#include "serving/report.h"

extern char **environ;

static const char usage[] =
	"usage: labrun run [--quiet] [--progress] [--design-head FILE] [--binding K=V] [--tool NAME=VERSION]\n"
	"                  [--source PATH] [--geometry K=V] [--note TEXT] [--fault-flip-bit ARM[@CONDITION]] FILE\n"
	"\n"
	"Run the experiment defined in FILE (docs/experiments.md): for every condition,\n"
	"check that all arms give bit-identical output, then time paired blocks\n"
	"(ABBA/BAAB) and store every repetition, parity check and the definition itself.\n"
	"Prints the comparison of every arm with the first (the baseline): medians,\n"
	"the paired ratio with its 95% interval, and the verdict. Ctrl-C stops after the\n"
	"current repetition and keeps what was measured (the run is 'cancelled').\n"
	"The design is registered in the ledger before the first timed block (with\n"
	"--design-head FILE, the signed ledger head that holds it is written to FILE).\n"
	"Exit 0 when every condition passed, 1 otherwise.\n";

/* Say when execution logs passed [design] output_cap. */
static int warn_dropped(struct lr_store *st, const struct lr_expdef *d, int64_t run)
{
	int64_t capped = 0, dropped = 0;
	char size[32];
	int rc;

	if ((rc = lr_store_output_dropped(st, run, &capped, &dropped)) || !capped)
		return rc;
	fprintf(stderr,
		"labrun: warning: %lld execution log(s) passed [design] output_cap (%s a log): %lld byte(s) "
		"were not kept\n",
		(long long)capped, lr_human_size(size, sizeof size, d->output_cap), (long long)dropped);
	fprintf(stderr, "hint: the table output_dropped names them; raise output_cap, or set it to 0 to keep all\n");
	return 0;
}

int cmd_run(const struct lr_global *g, int argc, char **argv)
{
	static struct lr_run_facts facts; /* --binding, --tool, ... over the definition's [record] */
	struct lr_runopts ro = {
		.facts = &facts,
		.cancel = &cmd_cancel_requested,
		.envp = environ,
		.progress = cmd_run_progress,
		.flip_arm = -1,
		.flip_condition = -1,
	};
	struct cmd_cancel cancel;
	struct lr_store *st = NULL;
	struct lr_run_result res;
	struct lr_report rep = { 0 };
	struct lr_serving_report sv = { 0 };
	struct lr_expdef d;
	struct lr_run run;
	int rc, quiet = 0, progress = 0, exit_code = LR_EXIT_OK, first;
	const struct cmd_opt opts[] = {
		CMD_BOOL('q', "quiet", &quiet, "no progress, on a terminal either"),
		CMD_PROGRESS(&progress),
		CMD_NONEMPTY(0, "design-head", &ro.design_head, "FILE", "write the signed design head to FILE first"),
		CMD_CALLBACK(
			0, "fault-flip-bit", &ro, cmd_opt_flip, "ARM[@C]",
			"test fault: flip one output bit of arm number ARM\n(0 = baseline) in condition C (default: all)"),
		CMD_HEADING("Where it ran and with what (over the definition's [record]):"),
		CMD_FACT_OPTS(&facts, cmd_opt_fact),
		CMD_END,
	};
	const struct cmd_parse p = {
		.cmd = "run", .usage = usage, .min = 1, .max = 1, .operands = "one experiment file"
	};

	memset(&res, 0, sizeof res);
	memset(&d, 0, sizeof d);
	lr_run_init(&run);
	if ((rc = cmd_parse_options(&p, opts, argc, argv, &first)))
		return rc;

	if ((ro.design_head && (rc = lr_output_replaceable(ro.design_head))) ||
	    (rc = lr_expdef_load(&d, argv[first], NULL))) {
		exit_code = cmd_fail(rc);
		goto out;
	}
	if (!cmd_progress_begin("labrun run", progress, quiet))
		ro.progress = NULL;
	lr_progress_sink_set(NULL); /* the runner's callback shows the experiment; the work inside it stays silent */
	if ((rc = cmd_store(&st, g))) {
		exit_code = rc;
		goto out;
	}
	cmd_cancel_install(&cancel);
	rc = lr_experiment_execute(st, &d, g->argv, environ, 0, &ro, &run, &res);
	cmd_cancel_restore(&cancel);
	cmd_progress_end();
	if (rc || (rc = lr_report_build(st, NULL, run.id, &rep)) ||
	    (rc = lr_serving_report_build(st, &run.id, 1, NULL, 0, &sv)))
		goto fail;
	lr_render_outcome(stdout, &d, &run, &res, &rep.runs[0], &sv);
	if ((rc = warn_dropped(st, &d, run.id)))
		goto fail;
	exit_code = run.status == LR_PASSED ? LR_EXIT_OK : LR_EXIT_FAIL;
	goto out;
fail:
	exit_code = cmd_fail(rc);
out:
	lr_report_release(&rep);
	lr_serving_report_release(&sv);
	free(res.cond);
	lr_expdef_release(&d);
	lr_run_release(&run);
	lr_run_facts_release(&facts);
	return exit_code;
}
