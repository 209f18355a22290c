#ifndef LR_MANIFEST_H
#define LR_MANIFEST_H

/*
 * Registration manifests: RO-Crate 1.2 with the Process Run Crate profile
 * (docs/manifest.md). A crate is a directory holding the evidence
 * files, ro-crate-metadata.json and manifest-sha256.txt. labrun validates
 * every crate it writes against the REQUIRED rules and refuses to leave an
 * invalid one behind. Nothing here prints.
 */

#include "base/error.h"
#include <stdint.h>

#include "base/model.h"
#include "base/trust.h"
#include "store/ledger.h"
#include "store/store.h"

#define LR_RO_CRATE        "https://w3id.org/ro/crate/1.2"
#define LR_RO_CONTEXT      "https://w3id.org/ro/crate/1.2/context"
#define LR_PROCESS_PROFILE "https://w3id.org/ro/wfrun/process/0.5"

struct lr_crate_opts {
	const char *title;        /* the root Dataset's name */
	const char *report_title; /* the title of report.md and report.json (NULL: 'title') */
	const char *license;      /* the license entity's name */
	const char *author;       /* or NULL */
	const char *publisher;    /* or NULL */
	int site; /* the static site of the runs in site/ (report/site.c), each file a File (lr_crate_site_trust) */
};

/*
 * Write a crate for runs[0..n) into 'dir' (created; must not exist): each
 * run's logs, artifacts and (experiments) definition and repetitions, one
 * CreateAction per run (failed ones included), the software used, the
 * report (report.md, report.json) when the runs give one, the site when
 * asked, and the manifests; then validate it. On any failure the directory is removed.
 * Everything is read from one snapshot of the store (lr_store_snapshot_begin;
 * a caller holding one already, as manifest and archive do from choosing the
 * runs on, extends it over the crate), so what it signs is one state of it.
 */
LR_MUST_CHECK int lr_crate_write(struct lr_store *st, const int64_t *runs, int n, const char *dir,
				 const struct lr_crate_opts *o);

/*
 * Check the crate in 'dir' against the REQUIRED rules: descriptor, context
 * and graph, @id/@type everywhere, the root Dataset's fields, every File on
 * disk with matching size and sha256 and reachable through hasPart, every
 * CreateAction's instrument a SoftwareApplication, and only known keys.
 * LR_EINVAL naming the first broken rule and entity. *entities counts them.
 */
LR_MUST_CHECK int lr_crate_validate(const char *dir, int *entities);

/*
 * The keys a crate's site holds its ledger entries' signers to: the key that
 * signs the crate (fingerprint 'fpr'; none when ""), named "the crate's
 * signer". Not the builder's own trusted keys, which no reviewer has: so a
 * reviewer rebuilds the same pages ('labrun verify'). k is t's one key.
 */
#define LR_CRATE_SIGNER "the crate's signer"
void lr_crate_site_trust(struct lr_trust *t, struct lr_trusted_key *k, const char *fpr);

/* A ledger entry as ledger.json and the run attestations hold it, appended to the JSON array 'arg'. */
LR_MUST_CHECK int lr_crate_ledger_entry(void *arg, const struct lr_ledger_entry *e);

/*
 * The runs a crate of runs[0..n) must hold so that a reader can recompute
 * it: those, the runs their rows point at (a replay's original, another
 * run's responses) and the A/A runs their reports name as noise floor,
 * oldest first, each once. *out is malloc'd.
 */
LR_MUST_CHECK int lr_crate_runs(struct lr_store *st, const int64_t *runs, int n, int64_t **out, int *nout);

/* The run uuids of a crate's CreateActions (their "urn:uuid:" ids), added to 'out'. */
LR_MUST_CHECK int lr_crate_run_uuids(const char *dir, struct lr_strlist *out);

#endif
