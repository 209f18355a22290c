#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/error.h"
#include "experiment/expdef.h"
#include "experiment/replay.h"

static const char usage[] =
	"usage: labrun diff A B\n"
	"\n"
	"Compare two runs without running anything: what drifted between them (sources,\n"
	"binding, geometry, host, tool versions, labrun version) and, for experiment runs\n"
	"of the same definition, whether each condition's outputs are identical and how\n"
	"B's baseline timing compares with A's (ratio with a 95% interval, block by block).\n"
	"Exit 0 when the outputs match, 1 when they do not.\n";

static void print_drift(void *arg, const char *what, const char *key, const char *a, const char *b)
{
	(void)arg;
	printf("  %-12s %-24s %s -> %s\n", what, key, a, b);
}

int cmd_print_comparison(struct lr_store *st, const struct lr_run *a, const struct lr_run *b, int *outputs_match,
			 int record_checks_for)
{
	struct lr_cond_compare *cmp = NULL;
	struct lr_expdef da, db;
	char *path = NULL, *text = NULL;
	int n, c, rc = 0;

	*outputs_match = 1;
	printf("run %lld (%s, %s) against run %lld (%s, %s)\n", (long long)b->id, b->kind, lr_status_name(b->status),
	       (long long)a->id, a->kind, lr_status_name(a->status));
	printf("drift:\n");
	n = lr_run_drift(a, b, print_drift, NULL);
	if (!n)
		printf("  none: sources, binding, geometry, host and tool versions are the same\n");
	if (strcmp(a->kind, "experiment") || strcmp(b->kind, "experiment"))
		return 0;
	memset(&da, 0, sizeof da);
	memset(&db, 0, sizeof db);
	if ((rc = lr_store_definition(st, a->id, &path, &text)) || (rc = lr_expdef_load(&da, path, text)))
		goto out;
	free(path);
	free(text);
	path = text = NULL;
	if ((rc = lr_store_definition(st, b->id, &path, &text)) || (rc = lr_expdef_load(&db, path, text)))
		goto out;
	if (lr_expdef_conditions(&da) != lr_expdef_conditions(&db) || da.narms != db.narms) {
		printf("outputs: not comparable: the definitions differ in conditions or arms (%s vs %s)\n", da.sha256,
		       db.sha256);
		*outputs_match = 0;
		goto out;
	}
	n = lr_expdef_conditions(&da);
	cmp = calloc((size_t)n, sizeof *cmp);
	if (!cmp) {
		rc = lr_error_set(LR_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = lr_experiment_compare(st, a->id, b->id, n, da.narms, cmp)))
		goto out;
	printf("outputs and timing, condition by condition (baseline arm '%s'; ratio = run %lld / run %lld):\n",
	       da.arms[0].name, (long long)b->id, (long long)a->id);
	for (c = 0; c < n; c++) {
		struct lr_exp_condition cond;
		char item[64];

		lr_expdef_condition(&da, c, &cond);
		printf("  %s %lld/%lld: ", cond.model, (long long)cond.layers, (long long)cond.tokens);
		if (cmp[c].outputs_match)
			printf("outputs identical");
		else
			printf("OUTPUTS DIFFER: arm '%s' sha256 %.12s -> %.12s", da.arms[cmp[c].first_arm].name,
			       cmp[c].a_sha, cmp[c].b_sha);
		if (cmp[c].has_timing && cmp[c].timing.k)
			printf("; timing ratio %.3f [%.3f, %.3f] over %d blocks\n", cmp[c].timing.ratio, cmp[c].timing.lo,
			       cmp[c].timing.hi, cmp[c].timing.n);
		else if (cmp[c].has_timing)
			printf("; timing ratio %.3f (too few blocks for an interval)\n", cmp[c].timing.ratio);
		else
			printf("; no timing to compare\n");
		if (!cmp[c].outputs_match)
			*outputs_match = 0;
		if (record_checks_for) {
			snprintf(item, sizeof item, "condition %d", c);
			if ((rc = lr_store_replay_check(st, record_checks_for, item, cmp[c].a_sha[0] ? cmp[c].a_sha : NULL,
							cmp[c].b_sha[0] ? cmp[c].b_sha : NULL, cmp[c].outputs_match)))
				goto out;
		}
	}
out:
	free(cmp);
	free(path);
	free(text);
	lr_expdef_release(&da);
	lr_expdef_release(&db);
	return rc;
}

int cmd_diff(const struct lr_global *g, int argc, char **argv)
{
	struct lr_store *st = NULL;
	struct lr_run a, b;
	int64_t ia = 0, ib = 0;
	int rc, first, same = 1;

	if ((rc = cmd_parse_plain("diff", usage, argc, argv, 2, 2, "two runs, A and B", &first)))
		return rc < 0 ? LR_EXIT_OK : rc;
	if ((rc = cmd_open_store(&st, g, 0)))
		return rc;
	lr_run_init(&a);
	lr_run_init(&b);
	if (!(rc = lr_store_run_resolve(st, argv[first], &ia)) && !(rc = lr_store_run_resolve(st, argv[first + 1], &ib)) &&
	    !(rc = lr_store_run_load(st, ia, &a)) && !(rc = lr_store_run_load(st, ib, &b)))
		rc = cmd_print_comparison(st, &a, &b, &same, 0);
	lr_run_release(&a);
	lr_run_release(&b);
	lr_store_free(st);
	if (rc)
		return cmd_fail(rc);
	return same ? LR_EXIT_OK : LR_EXIT_FAIL;
}
