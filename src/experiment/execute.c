#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "experiment/runner.h"
#include "record/record.h"
#include "record/session.h"

int lr_experiment_execute(struct lr_store *st, struct lr_expdef *d, char *const *argv, char *const *envp,
			  int64_t replay_of, const struct lr_runopts *ro, struct lr_run *run, struct lr_run_result *res)
{
	struct lr_session ss = { 0 };
	char num[32], failure[128];
	int rc;

	if ((rc = lr_run_capture(st, run, LR_KIND_EXPERIMENT, argv, envp, d->name, NULL, &d->issues)))
		return rc;
	run->replay_of = replay_of;
	if (d->cpu < 0)
		d->cpu = sched_getcpu();
	snprintf(num, sizeof num, "%d", d->cpu);
	if ((rc = lr_kvlist_set(&run->binding, "pinned_cpu", num, "auto")) ||
	    (rc = lr_kvlist_set(&run->binding, "backend", d->backend, "user")) ||
	    (rc = lr_kvlist_set(&run->geometry, "target", lr_exp_target_name(d->target), NULL)))
		return rc;
	if ((rc = lr_session_start(&ss, st, run)))
		goto out;
	/* On an error the run stays 'running' and is marked abandoned with what was stored. */
	if ((rc = lr_experiment_run(st, run->id, d, ro, res)))
		goto out;
	run->status = res->cancelled ? LR_CANCELLED : res->failed ? LR_FAILED : LR_PASSED;
	if (run->status != LR_PASSED) {
		snprintf(failure, sizeof failure, "%d of %d condition(s) failed or missing%s", res->failed,
			 res->nconditions, res->cancelled ? "; cancelled" : "");
		run->failure = strdup(failure);
	}
	rc = lr_session_end(&ss, 0);
out:
	lr_session_release(&ss);
	return rc;
}
