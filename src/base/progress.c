#include "config.h"
#include "base/system.h"

#include "base/clock.h"
#include "base/progress.h"

struct lr_progress {
	const char *title, *unit;
	int64_t done, total;
	double start, next;
	int shown;
};

static struct lr_progress_sink sink;
static int have_sink;
static int active; /* a meter is showing: work inside it (an import a benchmark repeats) stays silent */

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
	active = 1;
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
	sink.show(sink.arg, p->title, p->unit, done, p->total, now - p->start, 0);
}

void lr_progress_stop(struct lr_progress **pp)
{
	struct lr_progress *p = *pp;

	if (!p)
		return;
	sink.show(sink.arg, p->title, p->unit, p->done, p->total, lr_monotonic_s() - p->start, 1);
	active = 0;
	free(p);
	*pp = NULL;
}
