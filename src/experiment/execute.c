#include "config.h"
#include "base/system.h"

#include <sched.h>

#include "base/error.h"
#include "experiment/runner.h"
#include "record/record.h"
#include "record/redact.h"
#include "record/session.h"

int lr_cpu_usable(int cpu)
{
	cpu_set_t set;

	return cpu >= 0 && cpu < CPU_SETSIZE && !sched_getaffinity(0, sizeof set, &set) && CPU_ISSET(cpu, &set);
}

/* The CPUs this process may run on, as "0-3,6" (for messages). */
static void cpu_allowed(char *buf, size_t n)
{
	cpu_set_t set;
	size_t len = 0;
	int c, first = -1;

	buf[0] = 0;
	if (sched_getaffinity(0, sizeof set, &set))
		return;
	for (c = 0; c <= CPU_SETSIZE && len < n; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			len += (size_t)snprintf(buf + len, n - len, first == c - 1 ? "%s%d" : "%s%d-%d", len ? "," : "",
						first, c - 1);
			first = -1;
		}
	}
}

int lr_experiment_execute(struct lr_store *st, struct lr_expdef *d, char *const *argv, char *const *envp,
			  int64_t replay_of, const struct lr_runopts *ro, struct lr_run *run, struct lr_run_result *res)
{
	struct lr_session ss = { 0 };
	char num[32], failure[128];
	int rc, found;

	if (d->cpu >= 0 && !lr_cpu_usable(d->cpu)) {
		char allowed[128];

		cpu_allowed(allowed, sizeof allowed);
		rc = lr_error_set(LR_EINVAL,
				  "%s: cpu = %d in [design]: this process may not run on CPU %d (it may use %s)",
				  d->path, d->cpu, d->cpu, allowed[0] ? allowed : "none it can list");
		lr_error_hint("set 'cpu' to one of those, or remove it to pin to the CPU the runner starts on");
		return rc;
	}
	if ((rc = lr_run_capture(st, run, LR_KIND_EXPERIMENT, argv, envp, d->name, NULL, &d->issues)))
		return rc;
	/* the definition is stored verbatim (its sha256 proves it), so one holding a secret is refused */
	if ((rc = lr_text_holds_secret(&run->secrets, d->text, &found)) ||
	    (!found && (rc = lr_text_holds_secret(&run->secrets, d->path, &found))))
		return rc;
	if (found) {
		rc = lr_error_set(LR_EREFUSED,
				  "refusing to store definition '%s': it holds the value of a secret variable",
				  d->path);
		lr_error_hint("take the value out of the definition; labrun records secret variables by name only");
		return rc;
	}
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
