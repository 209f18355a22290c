#ifndef LR_CRATE_RUN_H
#define LR_CRATE_RUN_H

/*
 * The files of a run's directory in a crate (run-ID/), as the run's rows
 * give them: run.json, its artifacts, an experiment's definition.ini and
 * repetitions.csv, its executions' logs, responses and answer keys.
 * manifest writes them from here, and verify compares a crate's files with
 * them, from the rows the run's seal covers: one list, so that the two
 * cannot disagree on what a run's files are. Nothing here prints.
 */

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "base/model.h"
#include "store/store.h"

/* One file of run-ID/: made from the rows ('text', 'len' bytes), or a stored object ('text' NULL). */
struct lr_run_file {
	const char *rel;    /* its name in the crate, "run-7/run.json" */
	const char *text;   /* its bytes, when made from the rows */
	size_t len;         /* ... their count */
	const char *sha256; /* a stored object's digest, as the rows hold it (text NULL) */
	int input;          /* something the run read (its action's object), else something it made (a result) */
};

typedef int (*lr_run_file_fn)(void *arg, const struct lr_run_file *f);

/*
 * Every file of run 'r' (loaded from 'st') under run-ID/, in the order
 * manifest writes them, through 'fn' (which may stop the walk by returning
 * an error). bundle.json and run.intoto.json, which attest the rest, are
 * not among them.
 */
LR_MUST_CHECK int lr_crate_run_files(struct lr_store *st, const struct lr_run *r, lr_run_file_fn fn, void *arg);

/* The run as an RO-Crate CreateAction (@id 'urn'): what ran (the command line), when, how it ended; no files. */
json_t *lr_crate_action(const struct lr_run *r, const char *urn);

/* manifest-sha256.txt: "SHA256  NAME" of each File entity of 'graph', in its order (malloc'd; NULL: out of memory). */
char *lr_crate_bag_text(json_t *graph);

/* "run-ID/ROLE/NAME" of an artifact, NAME made safe for a crate (base/safename.h). */
const char *lr_crate_artifact_path(char *buf, size_t len, int64_t run, const char *role, const char *name);

#endif
