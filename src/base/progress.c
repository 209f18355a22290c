#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/progress.h"

struct lr_progress {
	const char *title, *unit;
	int64_t done, total;
	double start, next;
	int shown;
	char step[96];
	int64_t step_done, step_total;
};

static struct lr_progress_sink sink;
static int have_sink;
static struct lr_progress *active; /* the meter showing: work inside it (an import a benchmark repeats) stays silent */

static void show(const struct lr_progress *p, double now, int final)
{
	const struct lr_progress_view v = {
		p->title,     p->unit,      p->done, p->total, now - p->start, final, p->step_total ? p->step : NULL,
		p->step_done, p->step_total
	};

	sink.show(sink.arg, &v);
}

void lr_progress_sink_set(const struct lr_progress_sink *s)
{
	have_sink = s && s->show;
	if (have_sink)
		sink = *s;
}

struct lr_progress *lr_progress_start(const char *title, const char *unit, int64_t total)
{
	struct lr_progress *p;

	if (!have_sink || active || !(p = calloc(1, sizeof *p)))
		return NULL;
	active = p;
	p->title = title;
	p->unit = unit;
	p->total = total;
	p->start = lr_monotonic_s();
	return p;
}

void lr_progress_update(struct lr_progress *p, int64_t done)
{
	double now;

	if (!p)
		return;
	if (sink.percent && p->total > 0 && done * 100 / p->total != p->done * 100 / p->total)
		p->next = 0;
	p->done = done;
	now = lr_monotonic_s();
	if (p->shown && now < p->next)
		return;
	p->shown = 1;
	p->next = now + sink.interval_s;
	show(p, now, 0);
}

void lr_progress_step(const char *what, int64_t done, int64_t total)
{
	struct lr_progress *p = active;

	if (!p)
		return;
	if (!total) { /* over: the next show has no step */
		p->step_total = 0;
		return;
	}
	if (sink.percent && total > 0 && p->step_total == total && done * 100 / total != p->step_done * 100 / total)
		p->next = 0;
	snprintf(p->step, sizeof p->step, "%s", what);
	p->step_done = done;
	p->step_total = total;
	lr_progress_update(p, p->done);
}

void lr_progress_stop(struct lr_progress **pp)
{
	struct lr_progress *p = *pp;

	if (!p)
		return;
	p->step_total = 0;
	show(p, lr_monotonic_s(), 1);
	active = NULL;
	free(p);
	*pp = NULL;
}
