#ifndef LR_CMD_PROGRESS_H
#define LR_CMD_PROGRESS_H

/*
 * How a command shows progress (cmd/progress.c; base/progress.h is how the
 * work reports it): on a terminal, one line rewritten in place; off one, with
 * --progress or LABRUN_PROGRESS=1, a line every few seconds; else nothing.
 */

struct lr_run_progress;

/*
 * begin decides how it shows, from a terminal on stderr, the command's
 * --progress ('asked'), LABRUN_PROGRESS (1 on, 0 off) and -q, and installs
 * base/progress.h's sink; end clears a terminal line and removes the sink.
 */
enum cmd_progress_mode { CMD_PROGRESS_OFF, CMD_PROGRESS_TERMINAL, CMD_PROGRESS_LINES };
enum cmd_progress_mode cmd_progress_begin(const char *cmd, int asked, int quiet);
void cmd_progress_end(void);

/* Clear a terminal's progress line before printing a line of one's own (the next progress redraws it). */
void cmd_progress_clear(void);

/* Progress of an experiment (the runner's callback): condition, block, elapsed, forecast. */
void cmd_run_progress(void *arg, const struct lr_run_progress *p);

#endif
