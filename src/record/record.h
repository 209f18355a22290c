#ifndef LR_RECORD_H
#define LR_RECORD_H

#include "base/error.h"
#include "base/exit.h"
#include "base/issueref.h"
#include "base/model.h"
#include "record/facts.h"
#include "store/store.h"

/* What to record, as parsed by cmd-record.c. Nothing here is owned by labrun's record layer. */
struct lr_record_opts {
	char *const *argv;            /* the command, argv[0] looked up in PATH */
	char *const *envp;            /* environment the command runs with */
	const char *experiment;       /* or NULL */
	struct lr_strlist issues;     /* raw references, validated by lr_issue_normalize */
	struct lr_run_facts facts;    /* --geometry, --binding, --tool, --source, --note (record/facts.h) */
	struct lr_strlist outputs;    /* --artifact: hashed after the run */
	struct lr_strlist inputs;     /* --input: hashed before the run */
	struct lr_strlist references; /* --reference: hashed before the run */
	struct lr_strlist logs;       /* --log: hashed after the run */
	double timeout_s;             /* 0: none */
	double kill_after_s;          /* grace between SIGTERM and SIGKILL */
	int tee_out, tee_err;         /* copy the command's stdout/stderr to these fds (0: don't) */
	int follow_links;             /* store what symlinks in artifacts point to, not the links */
	int64_t max_output;           /* --max-output: bytes of each log kept at most; 0: all */
};

void lr_record_opts_release(struct lr_record_opts *o);

/*
 * Split "KEY=VALUE" of option 'opt' (--geometry, --binding, --tool) and
 * check it: a key of [A-Za-z0-9_.-], a non-empty value, and for numeric
 * geometry fields a positive integer. Adds to 'l'; a key given twice is an
 * error.
 */
LR_MUST_CHECK int lr_fact_parse(struct lr_kvlist *l, const char *opt, const char *arg);

/*
 * Fill what every kind of run records about itself: a new uuid, 'kind',
 * cwd, argv (secret values scrubbed), labrun version, experiment, note,
 * issue references (normalised; LR_EINVAL for a bad one), host, git state
 * of the working directory, environment (allowlist, secrets redacted) and
 * the observed CPU binding. 'run' must be lr_run_init'ed.
 */
LR_MUST_CHECK int lr_run_capture(struct lr_store *st, struct lr_run *run, enum lr_run_kind kind, char *const *argv,
				 char *const *envp, const char *experiment, const char *note,
				 const struct lr_strlist *issues);

/*
 * Record one execution of o->argv into 'st': the run row is committed as
 * 'running' before the command starts, the command's output is teed and
 * streamed into the spool, and the row is finalised after it ends, with the
 * checks it appended to the file $LABRUN_CHECKS names; no write
 * transaction is held while it runs. On return 0 the run is stored (passed,
 * failed or cancelled: see run->status and run->failure) and 'res'
 * says how labrun should exit. A negative return means nothing was
 * stored (bad input, or the store refused the run row), or, when run->id is
 * set, that finalising failed and the run will be marked abandoned.
 * 'run' must be lr_run_init'ed; the caller releases it.
 */
struct lr_record_result {
	int exit_status;      /* what 'labrun record' exits with */
	int exec_failed;      /* the command could not be started (126/127) */
	int artifacts_failed; /* a declared artifact was missing or refused */
	int checks_failed;    /* its $LABRUN_CHECKS file was refused (record/checks.h) */
};
LR_MUST_CHECK int lr_record(struct lr_store *st, const struct lr_record_opts *o, struct lr_run *run,
			    struct lr_record_result *res);

#endif
