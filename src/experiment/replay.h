#ifndef LR_REPLAY_H
#define LR_REPLAY_H

/*
 * Replay: run a stored run again from what the store holds, record the
 * replay as a new run (replay_of set), compare the two and record what was
 * compared, in one transaction. An experiment run is run again from its
 * stored definition text with the same seed and pinned CPU; a recorded
 * command in its recorded working directory with its recorded (non-secret)
 * environment, its exit code and declared artifacts compared by sha256.
 * Nothing here prints.
 */

#include "base/error.h"
#include "base/model.h"
#include "experiment/compare.h"
#include "experiment/runner.h"
#include "store/experiments.h"
#include "store/store.h"

struct lr_replay_opts {
	char *const *argv;		/* labrun's command line, as an experiment replay records it */
	char *const *envp;		/* the environment to start from */
	const struct lr_runopts *run;	/* experiment replays: cancel, progress, faults */
	int tee_out, tee_err;		/* record replays: copy the command's output here (0: don't) */
};

struct lr_replay {
	struct lr_run run;			/* the replay, as stored */
	struct lr_run_result exp;		/* experiment replays: what the runner found */
	struct lr_comparison cmp;		/* the replay against the original */
	struct lr_replay_check *checks;		/* record replays: exit code and each output and log */
	int nchecks;
	char exit_original[16], exit_replay[16];	/* the exit codes the first check compares */
	int same;				/* outputs identical (and, for experiments, the replay passed) */
};

/*
 * Replay run 'orig' (loaded from 'st'); 'r' is filled and must be released
 * with lr_replay_release() either way. LR_EINVAL for a run that cannot be
 * replayed (an import, or a command whose directory is gone).
 */
LR_MUST_CHECK int lr_replay(struct lr_store *st, const struct lr_run *orig, const struct lr_replay_opts *o, struct lr_replay *r);
void lr_replay_release(struct lr_replay *r);

/* A record run's command line back from its argv JSON (NULL-terminated, malloc'd; lr_argv_free). */
char **lr_argv_from_json(const char *json);
void lr_argv_free(char **argv);

#endif
