#ifndef LR_VERIFY_INT_H
#define LR_VERIFY_INT_H

/*
 * Inside labrun verify (verify.c): the crate being checked, shared by its
 * parts. verify-files.c lists and reads the crate's files, verify.c checks
 * the signed statements and the ledger, verify-runs.c the runs' rows
 * (bundles, the throwaway store, each file against its rows).
 */

#include <jansson.h>

#include "base/buf.h"
#include "base/list.h"
#include "base/progress.h"
#include "base/walk.h"
#include "evidence/verify.h"
#include "store/remote.h"

#define LR_CRATE_JSON_MAX ((size_t)1 << 30) /* a crate's JSON file read by verify: 1 GiB, bundle.json the largest */

/* One run of the crate, as its attestation and bundle give it. */
struct vrun {
	char dir[32]; /* "run-7" */
	json_t *pred; /* its attestation's predicate */
	struct lr_bundle b;
	int bundled; /* its bundle read, not yet loaded */
	int64_t id;  /* its id in the throwaway store, once loaded (0: not loaded) */
};

struct vctx {
	const char *dir;
	const struct lr_trust *t;
	int allow;
	lr_verify_fn fn;
	void *arg;
	int *problems;
	struct lr_kvlist files;      /* every regular file found: relative name -> sha256 ("" until file_sha) */
	struct lr_progress *hashing; /* of the files signed */
	int64_t hashed;
	const char **pubs; /* public keys ledger.json carries: used only when their fingerprint is trusted */
	size_t npubs;
	json_t *ledger; /* ledger.json */
	struct vrun *runs;
	size_t nruns;
	struct lr_verified *v;
	int strict; /* the crate's statement says its run files are the bytes their rows give (runFiles) */
};

/* A problem with crate file 'file' (relative), counted and told. */
void lr_verify_problem(struct vctx *c, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An entry lr_walk found in the crate: a regular file listed, a link, FIFO or device a problem. */
int lr_verify_found(void *arg, const char *full, const char *rel, enum lr_walk_type type);

/* The sha256 of crate file 'rel', hashed the first time it is asked for; NULL when the crate has no such file. */
const char *lr_verify_file_sha(struct vctx *c, const char *rel);

/* Whether the crate holds the file 'rel' (listed, not read). */
int lr_verify_has_file(const struct vctx *c, const char *rel);

/* The JSON of crate file 'rel', each key once, or NULL (a problem) when it is missing or not JSON. */
json_t *lr_verify_read_json(struct vctx *c, const char *rel);

/*
 * How crate file 'rel' ('have') differs from the bytes its rows give
 * ('want'), said into 'out' (JSON by member, CSV by column, other text by
 * line); 1 when it does. Unless 'strict' (a crate that says its run files
 * are its rows' bytes), bytes laid out otherwise, and the run.json members
 * labrun added since its first crates, are an older labrun's writing.
 */
int lr_verify_apart(struct lr_buf *out, const char *rel, const char *have, size_t hlen, const char *want, size_t wlen,
		    int strict);

/* The first member where JSON object 'a' (the crate's) and 'b' (the rows') differ, said into 'out'; 1 when one does. */
int lr_verify_json_apart(struct lr_buf *out, json_t *a, json_t *b);

/*
 * ro-crate-metadata.json against the crate (each File's sha256 and size)
 * and each loaded run's rows (its CreateAction), and manifest-sha256.txt
 * the list of its Files.
 */
LR_MUST_CHECK int lr_verify_metadata(struct vctx *c);

/* Each run's bundle.json: its rows give the seal its attestation and its newest ledger entry name. */
LR_MUST_CHECK int lr_verify_bundles(struct vctx *c);

/* The runs' rows loaded into the throwaway store (c->v->st) with the ids they had, each file held to its rows. */
LR_MUST_CHECK int lr_verify_load(struct vctx *c);

#endif
