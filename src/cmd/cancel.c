/* Ctrl-C and SIGTERM as a request to stop at the next safe point (cmd_cancel_requested). */
#include "config.h"
#include "base/system.h"

#include <signal.h>

#include "cmd/cmd.h"

atomic_int cmd_cancel_requested;

static void on_cancel(int sig)
{
	(void)sig;
	cmd_cancel_requested = 1;
}

void cmd_cancel_install(struct cmd_cancel *c)
{
	struct sigaction sa = { .sa_handler = on_cancel };

	cmd_cancel_requested = 0;
	sigaction(SIGINT, &sa, &c->old_int);
	sigaction(SIGTERM, &sa, &c->old_term);
}

void cmd_cancel_restore(struct cmd_cancel *c)
{
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGTERM, &c->old_term, NULL);
}
