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
	char *const *argv;                /* labrun's command line, as an experiment replay records it */
	char *const *envp;                /* the environment to start from */
	const struct lr_runopts *run;     /* experiment replays: cancel, progress, faults */
	int tee_out, tee_err;             /* record replays: copy the command's output here (0: don't) */
	const struct lr_run_facts *facts; /* --binding, --tool, ...: over what the original stated; may be NULL */
};

struct lr_replay {
	struct lr_run run;              /* the replay, as stored */
	struct lr_run_result exp;       /* experiment replays: what the runner found */
	struct lr_comparison cmp;       /* the replay against the original */
	struct lr_replay_check *checks; /* record replays: exit code and each output and log */
	int nchecks;
	char exit_original[16], exit_replay[16]; /* the exit codes the first check compares */
	int same;                                /* outputs identical (and, for experiments, the replay passed) */
	char logs_changed[32];                   /* record replays: "stdout", "stderr", "stdout and stderr" or "" */
};

/*
 * Replay run 'orig' (loaded from 'st'); 'r' is filled and must be released
 * with lr_replay_release() either way. LR_EINVAL for a run that cannot be
 * replayed (an import, or a command whose directory is gone).
 */
LR_MUST_CHECK int lr_replay(struct lr_store *st, const struct lr_run *orig, const struct lr_replay_opts *o,
			    struct lr_replay *r);
void lr_replay_release(struct lr_replay *r);

/*
 * What a replay of 'orig' would execute, one call of 'fn' per command: a
 * recorded command, or each command arm of an experiment's stored
 * definition (none for built-in targets). Shown before a replay of a run
 * from another host runs anything.
 */
struct lr_replay_exec {
	const char *arm;             /* an experiment's arm; NULL for a recorded command */
	const char *argv_json;       /* a recorded command's argv (a JSON array) */
	const char *command;         /* an arm's command template */
	const char *cwd;             /* "" or NULL: the directory labrun runs in */
	const struct lr_kvlist *env; /* what it sets (a recorded command: its non-secret environment) */
};
typedef int (*lr_replay_exec_fn)(void *arg, const struct lr_replay_exec *e);
LR_MUST_CHECK int lr_replay_execs(struct lr_store *st, const struct lr_run *orig, lr_replay_exec_fn fn, void *arg);

/* Whether environment variable 'name' changes which program starts or how it loads (PATH, LD_PRELOAD, BASH_ENV...). */
int lr_env_changes_start(const char *name);

/* A record run's command line back from its argv JSON (NULL-terminated, malloc'd; lr_argv_free). */
char **lr_argv_from_json(const char *json);
void lr_argv_free(char **argv);

#endif
