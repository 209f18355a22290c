/* How commands show progress (base/progress.h is how work reports it). */
#include "config.h"
#include "base/system.h"

#include <stdarg.h>

#include "base/clock.h"
#include "base/progress.h"
#include "cmd/progress.h"
#include "experiment/runner.h"

/* ---- progress ---------------------------------------------------------------- */

/*
 * How commands show progress (base/progress.h is how work reports it): on a
 * terminal, one line rewritten in place; off a terminal, with --progress or
 * LABRUN_PROGRESS=1, a line every few seconds (for a CI log or a script's
 * output); otherwise nothing, so output captured by a script stays as it was.
 */
#define TERMINAL_INTERVAL_S 0.2
#define LINES_INTERVAL_S    5.0

static const char *command;
static enum cmd_progress_mode mode;
static double next; /* progress_text's: its own callers are not rate-limited */
static int pending; /* a terminal line is showing */

static void emit(const char *text, int final)
{
	if (mode == CMD_PROGRESS_TERMINAL) {
		/* the final state is cleared: the command's own summary follows */
		fprintf(stderr, final ? "\r\033[K" : "\r%s: %s\033[K", command, text);
		pending = !final;
	} else {
		fprintf(stderr, "%s: %s\n", command, text);
	}
	fflush(stderr);
}

static void show(void *arg, const struct lr_progress_view *v)
{
	char text[384], step[160] = "";

	(void)arg;
	if (v->step) /* bytes in MiB, so a 1.2 GB object reads as it moves */
		snprintf(step, sizeof step, ", %s: %.1f of %.1f MiB", v->step, (double)v->step_done / (1 << 20),
			 (double)v->step_total / (1 << 20));
	if (v->total >= 0)
		snprintf(text, sizeof text, "%s %lld of %lld %s%s, %.0f s%s", v->title, (long long)v->done,
			 (long long)v->total, v->unit, step, v->elapsed_s, v->final ? ", done" : "");
	else
		snprintf(text, sizeof text, "%s %lld %s%s, %.0f s%s", v->title, (long long)v->done, v->unit, step,
			 v->elapsed_s, v->final ? ", done" : "");
	emit(text, v->final && mode == CMD_PROGRESS_TERMINAL);
}

enum cmd_progress_mode cmd_progress_begin(const char *cmd, int asked, int quiet)
{
	const char *env = getenv("LABRUN_PROGRESS");
	struct lr_progress_sink sink = { show, NULL, TERMINAL_INTERVAL_S, 1 };

	command = cmd;
	mode = CMD_PROGRESS_OFF;
	if (quiet)
		;
	else if (isatty(STDERR_FILENO) && (asked || !env || strcmp(env, "0")))
		mode = CMD_PROGRESS_TERMINAL;
	else if (!isatty(STDERR_FILENO) && (asked || (env && !strcmp(env, "1"))))
		mode = CMD_PROGRESS_LINES;
	if (mode == CMD_PROGRESS_LINES) { /* a log gets a line every few seconds, however fast the work goes */
		sink.interval_s = LINES_INTERVAL_S;
		sink.percent = 0;
	}
	lr_progress_sink_set(mode == CMD_PROGRESS_OFF ? NULL : &sink);
	next = 0;
	return mode;
}

/* A line of the command's own (an experiment's condition and block), at most every few seconds off a terminal. */
static void __attribute__((format(printf, 1, 2))) progress_text(const char *fmt, ...)
{
	double now = lr_monotonic_s();
	char text[256];
	va_list ap;

	if (mode == CMD_PROGRESS_OFF || now < next)
		return;
	next = now + (mode == CMD_PROGRESS_TERMINAL ? TERMINAL_INTERVAL_S : LINES_INTERVAL_S);
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	emit(text, 0);
}

void cmd_progress_clear(void)
{
	if (pending)
		emit("", 1);
}

void cmd_progress_end(void)
{
	cmd_progress_clear();
	lr_progress_sink_set(NULL);
	mode = CMD_PROGRESS_OFF;
}

void cmd_run_progress(void *arg, const struct lr_run_progress *p)
{
	(void)arg;
	progress_text("condition %d/%d, block %d/%d, %.0f s elapsed, about %.0f s left", p->condition + 1,
		      p->nconditions, p->block + 1, p->nblocks, p->elapsed_s, p->eta_s);
}
