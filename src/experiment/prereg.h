#ifndef LR_EXPERIMENT_PREREG_H
#define LR_EXPERIMENT_PREREG_H

/*
 * A design registered before the data (experiment/prereg.c): the runner
 * registers a run's stored design before its first timed block, and a
 * report cites the registration and what changed since the experiment's
 * earlier registered run.
 */

#include "experiment/expdef.h"
#include "store/designreg.h"

/*
 * Register run 'run_id''s design, as its plan was just stored: the sha256
 * of a serving experiment's case set, then its 'design' ledger entry
 * (signed when the store signs). With 'head_path' (may be NULL), the
 * signed ledger head up to that entry is written to that file and fsynced,
 * and recorded (table design_head). Call before the first timed block.
 */
LR_MUST_CHECK int lr_prereg_register(struct lr_store *st, int64_t run_id, const struct lr_expdef *d,
				     const char *head_path);

/* A run's registration as its report cites it. */
struct lr_prereg {
	struct lr_design_reg reg; /* reg.seq 0: the run registered no design */
	int64_t earlier;          /* the experiment's earlier registered run whose design differs; 0: none */
	char changes[512];        /* what differs from it: "margin 2% -> 5%; blocks 6 -> 8" */
};

/* Run 'run_id''s registration, and whether its design differs from its experiment's earlier one. */
LR_MUST_CHECK int lr_prereg_read(struct lr_store *st, int64_t run_id, struct lr_prereg *out);

#endif
