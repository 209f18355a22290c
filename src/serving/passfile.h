#ifndef LR_SERVING_PASSFILE_H
#define LR_SERVING_PASSFILE_H

/*
 * A collected pass as a file: what 'labrun collect --out FILE --pass PASS'
 * writes beside the responses, so that the experiment that ran it stores
 * the pass's rows (collect_pass, collect_request, collect_gauge) in the
 * transaction of the responses' set, exactly as a pass collected into the
 * store keeps them. One JSON object: "pass" (its settings and the server's
 * identity), "gauges" ([t, running, waiting] samples) and "requests" (one
 * object a line, every request, completed or not). The file comes from a
 * child process: it is data, read strictly.
 */

#include "base/error.h"
#include <stdio.h>

#include "record/redact.h"
#include "store/collect.h"

/* The pass file's name in a serving experiment's {outdir}. */
#define LR_PASS_FILE "pass.json"

LR_MUST_CHECK int lr_passfile_write(FILE *f, const struct lr_store_pass *p, const struct lr_store_request *r, size_t n);

struct lr_passfile {
	struct lr_store_pass pass;
	struct lr_store_request *req;
	size_t n;
	struct lr_gauge_sample *gauges;
	char *text, *strings; /* the file, and its strings decoded */
};

/*
 * Read and check 'path': LR_EINVAL "PATH: not a collect pass file: why";
 * LR_EREFUSED when a request body holds a secret 'scrub' knows (NULL: none).
 */
LR_MUST_CHECK int lr_passfile_read(const char *path, const struct lr_scrub *scrub, struct lr_passfile *pf);
void lr_passfile_release(struct lr_passfile *pf);

/* An ingest extra (lr_responses_ingest_with): store the pass of 'arg' (a struct lr_passfile) in w's transaction. */
LR_MUST_CHECK int lr_passfile_store(void *arg, struct lr_set_writer *w);

#endif
