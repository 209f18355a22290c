#include "config.h"
#include "base/system.h"

#include <sys/resource.h>

#include "base/clock.h"
#include "base/error.h"
#include "record/redact.h"
#include "record/session.h"
#include "record/spool.h"
#include "store/runs.h"

int lr_session_lock(struct lr_session *s, struct lr_store *st, struct lr_run *run)
{
	s->st = st;
	s->run = run;
	s->lock = -1;
	return lr_spool_lock(lr_store_dir(st), run->uuid, &s->lock);
}

static void cpu_times(double *user, double *sys, int64_t *peak_kib)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (peak_kib)
		*peak_kib = ru.ru_maxrss;
}

int lr_session_begin(struct lr_session *s)
{
	struct lr_run *run = s->run;
	int rc;

	s->start_s = lr_monotonic_s();
	cpu_times(&s->user_s, &s->sys_s, NULL);
	run->status = LR_RUNNING;
	if (!run->started_at && !(run->started_at = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_run_scrub(run)))
		return rc;
	return lr_store_run_begin(s->st, run);
}

int lr_session_start(struct lr_session *s, struct lr_store *st, struct lr_run *run)
{
	int rc = lr_session_lock(s, st, run);

	return rc ? rc : lr_session_begin(s);
}

int lr_session_end(struct lr_session *s, size_t first_new_artifact)
{
	struct lr_run *run = s->run;
	int rc;

	if (!run->ended_at && !(run->ended_at = lr_now_iso()))
		return lr_error_set(LR_ENOMEM, "out of memory");
	if (run->kind != LR_KIND_RECORD) { /* labrun's own work: measured on this process */
		double user, sys;

		cpu_times(&user, &sys, &run->peak_rss_kib);
		run->wall_s = lr_monotonic_s() - s->start_s;
		run->user_s = user - s->user_s;
		run->sys_s = sys - s->sys_s;
	}
	if (run->status != LR_PASSED && !run->failure)
		return lr_error_set(LR_ENOMEM, "out of memory");
	if ((rc = lr_run_scrub(run)) || (rc = lr_store_run_finish(s->st, run, first_new_artifact)))
		return rc;
	lr_spool_unlock(lr_store_dir(s->st), run->uuid, s->lock);
	s->lock = -1;
	return 0;
}

void lr_session_release(struct lr_session *s)
{
	if (!s->st || s->lock < 0)
		return;
	if (!s->run->id)
		lr_spool_unlock(lr_store_dir(s->st), s->run->uuid, s->lock);
	else
		close(s->lock); /* the row stays 'running': the next labrun marks it abandoned */
	s->lock = -1;
}
