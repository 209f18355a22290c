#ifndef LR_VERIFY_H
#define LR_VERIFY_H

/*
 * A crate checked by a reviewer who has no store (labrun verify,
 * docs/verify.md): every file against the signed subjects of
 * crate.intoto.json and of each run's run.intoto.json, every signature
 * against the trusted keys, the ledger entries the crate carries recomputed
 * and chained to its signed head, and each run's rows (bundle.json) giving
 * its seal. The rows are then loaded into a throwaway store, keeping the
 * ids they had, so that the crate's report can be rebuilt with the code
 * 'report' uses and compared block by block (lr_verify_report). Input from the crate is
 * data: no path in it is opened, only the files found under the crate's
 * directory. Nothing here prints.
 */

#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "base/list.h"
#include "base/sha256.h"
#include "store/ledger.h"
#include "store/store.h"

struct lr_trust;

/* Each problem: the crate's file it concerns (relative), and a sentence. */
typedef void (*lr_verify_fn)(void *arg, const char *file, const char *problem);

struct lr_verified {
	struct lr_store *st; /* the throwaway store holding the crate's runs (NULL: none loaded) */
	char *tmp;           /* its directory, removed by lr_verified_release */
	int64_t *ids;        /* the runs there, in the crate's order, with the ids they had ("run-7": 7) */
	int nids;
	struct lr_ledger_head head;      /* the crate's signed ledger head ... */
	char *head_statement;            /* ... and its envelope as the crate carries it (NULL: none) */
	int report_fit;                  /* the crate's statement says how its report.md was cut (a summary, folds): */
	int64_t report_max_chars;        /* in so many characters (0: not cut); without it, as labrun wrote before */
	int site;                        /* the crate's statement says how its site/ was built: */
	char site_signer[LR_SHA256_HEX]; /* the key its signers were held to ("" when none) */
	json_t *ledger;                  /* ledger.json, the entries it drew (set with site) */
	int files;                       /* files checked against their signed digests */
	int runs;                        /* runs in the crate */
	int held;                        /* run files checked against the bytes their sealed rows give */
	int entries;                     /* ledger entries recomputed */
	char signer[LR_SHA256_HEX];      /* the trusted key that signed the crate ("" when none) */
	char principal[128];
	struct lr_strlist added; /* files no statement signs: named, never read (lr_verify_site skips them) */
	char refused[512];       /* when no trusted key signed the crate, why (lr_dsse_opened's) */
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
 * The crate's report (report.md, report.json) against the one its rows give
 * now (v from lr_crate_verify): the document rebuilt with report's own code,
 * under the crate's title, version and verified ledger head, compared with
 * report.json's document block by block and cell by cell, with report.md
 * block by block as rendered, and with report.json's data value by value.
 * Each difference is a problem naming the file, the block and the words (or
 * the row and column). Crates written before reports had documents are
 * checked on report.md and the data. An error only when the check could
 * not run.
 */
LR_MUST_CHECK int lr_verify_report(const char *dir, const struct lr_verified *v, lr_verify_fn fn, void *arg,
				   int *problems);

/*
 * The crate's site/ against the site its rows give now (verify-site.c): built
 * again from the throwaway store as the crate's statement says it was (its
 * ledger's signers held to the crate's key, the entries ledger.json carries)
 * and compared file by file; a changed, added or missing page is named, with
 * the heading it is under and the words. A crate whose statement does not
 * say how its site was built (written before labrun did) is checked on its
 * digests alone.
 */
/* '"crate words" where the rows give "rows words"': the words of a and b that differ, into out. */
struct lr_buf;
void lr_verify_words(struct lr_buf *out, const char *a, const char *b);

LR_MUST_CHECK int lr_verify_site(const char *dir, const struct lr_verified *v, lr_verify_fn fn, void *arg,
				 int *problems);

#endif
