#ifndef LR_SCAN_H
#define LR_SCAN_H

/*
 * The sensitive-content scan (labrun scan; manifest and archive run it on
 * the runs they publish): private keys, provider access tokens, passwords
 * in URLs, credential files by name, and internal host or address patterns
 * the user configures. Each finding has a stable fingerprint, the first 16
 * hex digits of sha256("labrun-scan-1", rule, file, matched text), so it
 * survives edits elsewhere in the file; a baseline file of accepted
 * fingerprints makes only new findings count. The matched text itself is
 * never returned. Nothing here prints.
 */

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/model.h"
#include "store/store.h"

struct lr_finding {
	const char *file; /* the path scanned, or "run-5/stdout" for stored evidence */
	long line;        /* 1-based; a credential file by name is line 1 */
	const char *rule; /* "private-key", "github-token", "url-password", ... */
	char fingerprint[17];
	int baselined; /* accepted in the baseline: not new */
};
typedef int (*lr_finding_fn)(void *arg, const struct lr_finding *f);

struct lr_scanner {
	regex_t *internal; /* the user's internal host/address patterns */
	size_t ninternal;
	struct lr_strlist baseline; /* accepted fingerprints */
	long files, skipped;        /* scanned; binary or unreadable, skipped */
	long found, baselined;      /* findings; of them, accepted */
	long found_files;           /* files with a finding */
	char *last;                 /* the file of the last finding */
	struct lr_strlist seen;     /* lr_scan_run: the findings of a run so far, by rule and matched text */
	int seen_mode;              /* 1: add each finding to 'seen'; 2: skip those in it (the run's bundle) */
};

/*
 * 'internal': extended regular expressions for internal hosts/addresses
 * (LR_EINVAL naming a bad one). 'baseline': a file of fingerprints, one per
 * line ('#' comments and text after the fingerprint ignored); NULL for none.
 */
LR_MUST_CHECK int lr_scanner_init(struct lr_scanner *s, const struct lr_strlist *internal, const char *baseline);
void lr_scanner_release(struct lr_scanner *s);

/* The default baseline file, read when it exists in the working directory. */
#define LR_SCAN_BASELINE ".labrun-scan-baseline"

/*
 * lr_scanner_init with the store's settings (st may be NULL): the patterns
 * of 'scan.internal' added to 'internal', and the baseline 'baseline', else
 * 'scan.baseline', else LR_SCAN_BASELINE when it exists.
 */
LR_MUST_CHECK int lr_scanner_settle(struct lr_scanner *s, struct lr_store *st, const struct lr_strlist *internal,
				    const char *baseline);

/* Scan one buffer, reported as 'name'. Binary content (a NUL byte) is skipped and counted. */
LR_MUST_CHECK int lr_scan_buffer(struct lr_scanner *s, const char *name, const void *data, size_t len, lr_finding_fn fn,
				 void *arg);

/* Scan a file, or every file below a directory (symlinks not followed). */
LR_MUST_CHECK int lr_scan_path(struct lr_scanner *s, const char *path, lr_finding_fn fn, void *arg);

/*
 * Scan a stored run as it would be published: its run.json, every log,
 * artifact and response file, its definition (run-ID/definition.ini), the
 * failures of its serving requests (run-ID/collect_request.failure), and
 * its bundle (run-ID/bundle.json: every row a crate carries, so the serving
 * passes' endpoints and metrics URLs and the requests' failures), where a
 * finding already reported for the run is not reported again.
 */
LR_MUST_CHECK int lr_scan_run(struct lr_scanner *s, struct lr_store *st, int64_t run, lr_finding_fn fn, void *arg);

/*
 * What scanner s found, as a check ($LABRUN_CHECKS, record/checks.h): named
 * "sensitive scan", or "sensitive scan (SCOPE)" when 'scope' is not NULL;
 * passed the findings the baseline accepts, total every finding, and the
 * detail "7 findings in 6 files, all in the baseline; 812 files scanned"
 * (or "2 new, 7 in the baseline", or "no findings"). Strings malloc'd
 * (lr_check_release); LR_ENOMEM.
 */
LR_MUST_CHECK int lr_scan_check(const struct lr_scanner *s, const char *scope, struct lr_check *c);

#endif
