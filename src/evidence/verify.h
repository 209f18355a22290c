#ifndef LR_VERIFY_H
#define LR_VERIFY_H

/*
 * A crate checked by a reviewer who has no store (labrun verify,
 * docs/verify.md): every file against the signed subjects of
 * crate.intoto.json and of each run's run.intoto.json, every signature
 * against the trusted keys, the ledger entries the crate carries recomputed
 * and chained to its signed head, and each run's rows (bundle.json) giving
 * its seal. The rows are then loaded into a throwaway store, so that the
 * caller can recompute the crate's report with the code 'report' uses and
 * compare it cell by cell (lr_verify_compare_*). Input from the crate is
 * data: no path in it is opened, only the files found under the crate's
 * directory. Nothing here prints.
 */

#include <stdint.h>

#include "base/error.h"
#include "base/sha256.h"
#include "store/store.h"

struct lr_trust;

/* Each problem: the crate's file it concerns (relative), and a sentence. */
typedef void (*lr_verify_fn)(void *arg, const char *file, const char *problem);

struct lr_verified {
	struct lr_store *st;	/* the throwaway store holding the crate's runs (NULL: none loaded) */
	char *tmp;		/* its directory, removed by lr_verified_release */
	int64_t *ids;		/* the runs there, in the crate's order */
	int64_t *crate_ids;	/* ... and the id each had in the store that wrote the crate ("run-7": 7) */
	int nids;
	int files;		/* files checked against their signed digests */
	int runs;		/* runs in the crate */
	int entries;		/* ledger entries recomputed */
	char signer[LR_SHA256_HEX];	/* the trusted key that signed the crate ("" when none) */
	char principal[128];
};

/*
 * Check the crate in 'dir' against 't' ('allow_unsigned': a crate that no
 * trusted key signed is checked all the same, and that is not a problem).
 * *problems grows by each problem 'fn' is told. Returns an error only when
 * the check itself could not run (LR_ENOTFOUND: not a crate of labrun's).
 */
LR_MUST_CHECK int lr_crate_verify(const char *dir, const struct lr_trust *t, int allow_unsigned, lr_verify_fn fn,
				  void *arg, int *problems, struct lr_verified *v);
void lr_verified_release(struct lr_verified *v);

/*
 * Compare the crate's report ('file', its text 'crate') with the one its
 * rows give now ('now'): Markdown by the rows of every table, JSON by every
 * value but those that name where it was computed (the ledger head, run
 * ids, the title, the version). Each differing cell is a problem naming the
 * table, the row and the column.
 */
void lr_verify_compare_md(const char *file, const char *crate, const char *now, lr_verify_fn fn, void *arg,
			  int *problems);
void lr_verify_compare_json(const char *file, const char *crate, const char *now, lr_verify_fn fn, void *arg,
			    int *problems);

/*
 * 'text' (malloc'd) with each "run N" for N = from[i] written "run to[i]": a
 * report the throwaway store gives, in the numbers of the store that wrote the
 * crate. NULL when out of memory.
 */
char *lr_verify_renumber(const char *text, const int64_t *from, const int64_t *to, int n);

#endif
