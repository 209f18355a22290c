#ifndef LR_CMD_H
#define LR_CMD_H

/*
 * What the commands share: global options, the store main holds for them,
 * turning error codes into one message and one exit code. Only src/cmd/
 * prints.
 */

#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>

#include "base/exit.h"
#include "store/store.h"
#include "encode/bench.h"

#include <jansson.h>

/*
 * What a command returns when it has printed its usage for -h or --help
 * (cmd_parse_options): not an error and not an exit status, so that every
 * command passes it up as it would an error, and main exits 0 for it.
 */
#define CMD_HELP_SHOWN 256

/*
 * What a command does with the store: its row of the command table says
 * (labrun.c), and cmd_store opens the store so. Each mode allows what those
 * above it do.
 */
enum cmd_store_mode {
	CMD_NO_STORE, /* never opens one */
	CMD_MAY_READ, /* reads the store's settings when there is one; none is no error */
	CMD_READS,    /* reads an existing store; appends only when it finishes an abandoned run */
	CMD_REPAIRS,  /* reads, and finishing the abandoned runs must succeed (fsck counts them) */
	CMD_WRITES,   /* writes to an existing store: refuses a key it cannot use */
	CMD_CREATES,  /* writes, and creates the store when there is none */
};

/*
 * The running command's store, held by main (labrun.c): opened by
 * cmd_store the first time the command asks, freed by main once it returns.
 */
struct cmd_held_store {
	struct lr_store *st;          /* NULL until the command asks (and when CMD_MAY_READ finds none) */
	int abandoned;                /* runs its opening marked abandoned (fsck reports them) */
	enum cmd_store_mode declared; /* the command's row's: the most it may ask for */
};

struct lr_global {
	const char *store;           /* --store, else $LABRUN_STORE, else NULL */
	char **argv;                 /* labrun's whole command line, as runs record it */
	enum cmd_store_mode mode;    /* what the command asks of the store: its row's, or less for a form of it */
	struct cmd_held_store *held; /* main's: the store cmd_store opened */
};

struct lr_command {
	const char *name;
	int (*run)(const struct lr_global *g, int argc, char **argv);
	enum cmd_store_mode mode;
	const char *summary;
};

int cmd_init(const struct lr_global *g, int argc, char **argv);
int cmd_record(const struct lr_global *g, int argc, char **argv);
int cmd_list(const struct lr_global *g, int argc, char **argv);
int cmd_show(const struct lr_global *g, int argc, char **argv);
int cmd_cat(const struct lr_global *g, int argc, char **argv);
int cmd_sql(const struct lr_global *g, int argc, char **argv);
int cmd_fsck(const struct lr_global *g, int argc, char **argv);
int cmd_config(const struct lr_global *g, int argc, char **argv);
int cmd_key(const struct lr_global *g, int argc, char **argv);
int cmd_encode(const struct lr_global *g, int argc, char **argv);
int cmd_decode(const struct lr_global *g, int argc, char **argv);
int cmd_bench(const struct lr_global *g, int argc, char **argv);
int cmd_import(const struct lr_global *g, int argc, char **argv);
int cmd_run(const struct lr_global *g, int argc, char **argv);
int cmd_replay(const struct lr_global *g, int argc, char **argv);
int cmd_diff(const struct lr_global *g, int argc, char **argv);
int cmd_site(const struct lr_global *g, int argc, char **argv);
int cmd_report(const struct lr_global *g, int argc, char **argv);
int cmd_archive(const struct lr_global *g, int argc, char **argv);
int cmd_audit(const struct lr_global *g, int argc, char **argv);
int cmd_manifest(const struct lr_global *g, int argc, char **argv);
int cmd_register(const struct lr_global *g, int argc, char **argv);
int cmd_ingest(const struct lr_global *g, int argc, char **argv);
int cmd_collect(const struct lr_global *g, int argc, char **argv);
int cmd_compare(const struct lr_global *g, int argc, char **argv);
int cmd_gate(const struct lr_global *g, int argc, char **argv);
int cmd_scan(const struct lr_global *g, int argc, char **argv);
int cmd_remote(const struct lr_global *g, int argc, char **argv);
int cmd_push(const struct lr_global *g, int argc, char **argv);
int cmd_share(const struct lr_global *g, int argc, char **argv);
int cmd_pull(const struct lr_global *g, int argc, char **argv);
int cmd_verify(const struct lr_global *g, int argc, char **argv);

/*
 * Ctrl-C (SIGINT) and SIGTERM as a cancel request: while installed they set
 * cmd_cancel_requested (cleared on install), which long operations poll;
 * cmd_cancel_restore puts the old handlers back.
 */
extern atomic_int cmd_cancel_requested;
struct cmd_cancel {
	struct sigaction old_int, old_term;
};
void cmd_cancel_install(struct cmd_cancel *c);
void cmd_cancel_restore(struct cmd_cancel *c);

/* Print the current error ("labrun: error: ..." and its hint) to stderr and
 * return the exit code for 'rc'. */
int cmd_fail(int rc);

/* A command's --json answer: o on stdout, indented, a newline after it; o is released. */
void cmd_json_print(json_t *o);

/* ---- open.c: the one way into the store ---- */

/*
 * The running command's store, opened in the mode g->mode gives (its row of
 * the command table; a form that needs less, such as 'config KEY', asks
 * with a copy of g whose mode is lower, never higher). A command asks once
 * it has checked its options and inputs, so that -h, a usage error or a bad
 * input needs no store and creates none. Opened once, held and freed by
 * main when the command returns: *st is borrowed until then, and a second
 * call gives the same store. CMD_CREATES creates the store when missing; the
 * signing key is loaded (a writer refuses one it cannot use, and a store the
 * user's configuration knows as signed without a key); runs whose recorder
 * died are marked abandoned first (g->held->abandoned counts them).
 * CMD_MAY_READ gives *st NULL, and no error, when there is no store to read.
 * On failure prints the error and returns its exit code (> 0); 0 on success.
 */
int cmd_store(struct lr_store **st, const struct lr_global *g);

/*
 * The keys to hold signatures to: the user's configuration (or, with
 * 'only', just the keys of that file), and the keys of each of 'files'
 * (--trust FILE). Release t with lr_trust_release() even on failure.
 */
struct lr_trust;
int cmd_trust_load(struct lr_trust *t, const struct lr_strlist *files, const char *only);

/*
 * 'labrun verify PATH' and 'labrun archive --verify FILE': the crate or
 * archive at 'path' checked by every part of verify (lr_verify_path) against
 * the keys cmd_trust_load gives for 'files' and 'only' ('allow': a crate no
 * trusted key signed is checked all the same), each problem printed as a
 * PROBLEM line, then what was checked. Progress is shown under 'cmd'
 * ("labrun verify"). 'path' may also be the s3:// URI of an archive's copy
 * (read back first), and 'statement' (NULL: none) the statement a reviewer
 * fetched beside an archive: the copy's own checks (publish.h) come first.
 * Returns the exit status: 0 when everything holds, 1 on a problem, an
 * error's (printed) otherwise.
 */
int cmd_verify_path(const char *cmd, const char *path, const char *statement, const struct lr_strlist *files,
		    const char *only, int allow, int progress);

/* A verify problem as a line 'PROBLEM FILE: ...', its words escaped (they may come from a crate or a bucket). */
void cmd_print_problem(void *arg, const char *file, const char *problem);

/*
 * The checks of an archive's copy 'f' (publish.h's lr_fetched_check)
 * said: a line when its statement holds, else a PROBLEM line counted in
 * *problems (a statement no key in 't' signed is a warning with 'allow').
 * Returns 0, or an error that stopped the check.
 */
struct lr_fetched;
int cmd_judge_copy(const struct lr_fetched *f, const struct lr_trust *t, int allow, int *problems);

/* Warn that a crate or archive declares the placeholder licence 'license'. */
void cmd_warn_license(const char *license);

/* Report a usage problem of 'cmd' (printf-style) and return LR_EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include "report/report.h"
#include "report/text.h"

/* The runs 'cmd' takes: those of --issue (an issue no run references is LR_ENOTFOUND), else each of
 * 'refs', else every run; oldest first. *ids is malloc'd. */
LR_MUST_CHECK int cmd_select_runs(struct lr_store *st, const char *cmd, const char *issue,
				  const struct lr_strlist *refs, int64_t **ids, int *n);

/*
 * What manifest and archive publish (common.c): the runs of --run and
 * --issue with the runs they point at, scanned for new findings, and the
 * title they share. _open returns 0 or the exit status
 * (reported); _release it either way. From _open to _release (or
 * _end_snapshot, before a write such as archive --prune) the store is read
 * as one snapshot (lr_store_snapshot_begin): the runs chosen and all that
 * the crate holds and signs are of one state of the store.
 */
struct cmd_crate_job {
	struct lr_store *st;
	int64_t *ids, *all; /* the runs chosen; and with the runs they point at */
	int n, nall;
	int snapshot;    /* the snapshot is held */
	char name[280];  /* "run-1", "issue-270": for default file names */
	char title[400]; /* "labrun evidence: run 1" */
};
int cmd_crate_job_open(struct cmd_crate_job *j, const struct lr_global *g, const struct lr_strlist *runs,
		       const struct lr_strlist *issues, int allow, const char *select_verb, const char *scan_verb);
void cmd_crate_job_end_snapshot(struct cmd_crate_job *j);
void cmd_crate_job_release(struct cmd_crate_job *j);

#endif
