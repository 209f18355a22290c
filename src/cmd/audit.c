#include "config.h"
#include "base/system.h"

#include <jansson.h>

#include "base/error.h"
#include "base/issueref.h"
#include "base/trust.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/progress.h"
#include "evidence/audit.h"
#include "store/ledger.h"
#include "store/runs.h"

static const char usage[] =
	"usage: labrun audit [--run ID | --issue REF] [--head SEQ:DIGEST|FILE] [--trust FILE]... [--json]\n"
	"                    [--progress]\n"
	"\n"
	"Recompute, from raw rows and files only, what the recorded evidence claims: every\n"
	"artifact and log hash (a damaged or missing file is named), each run's seal (a table\n"
	"whose rows were edited after the run ended is named), the parity and summaries of\n"
	"experiment runs, and the binding and geometry a replay shares with its original.\n"
	"Failed and missing cases are evidence, not problems. Exit 1 on any discrepancy.\n"
	"Without options, every run in the store.\n"
	"\n"
	"Every audit also walks the ledger, the hash chain every final run is appended to,\n"
	"and prints its head (SEQ:DIGEST): publish it with the evidence. --head SEQ:DIGEST\n"
	"proves the store still extends a head published earlier: a run edited, deleted or\n"
	"reordered before it is named, and entries appended after it are listed. --head FILE\n"
	"takes a signed head: the file 'report -o REPORT' writes beside it (REPORT.head.json),\n"
	"a crate's or archive's ledger-head.intoto.json, or a JSON report: its signature must\n"
	"verify with a key you trust, and each run changed, deleted or reordered before it is\n"
	"named.\n"
	"\n"
	"Every signature is held to the keys you trust (labrun key list; --trust FILE adds\n"
	"the keys of FILE for this audit): an entry signed by another key is a problem, and\n"
	"so is an unsigned entry from the entry on which your configuration knows the store\n"
	"as signed (labrun signs a store's entries from the first one it signs with your key).\n"
	"A pulled run that came unsigned from a host whose runs came signed before it is a\n"
	"problem too: its signatures were removed on the way, or its host's key was not used.\n";

/* --json: what the reporters collect instead of printing (arg NULL: print). */
struct audit_json {
	json_t *problems, *keys, *later;
};

static struct audit_json *audit_json_init(struct audit_json *j)
{
	*j = (struct audit_json){ json_array(), json_array(), json_array() };
	return j;
}

static void report_problem(void *arg, int64_t run, const char *problem)
{
	struct audit_json *j = arg;

	cmd_progress_clear();
	if (j)
		json_array_append_new(j->problems, json_pack("{s:o, s:s}", "run", run ? json_integer(run) : json_null(),
							     "problem", problem));
	else if (run)
		printf("PROBLEM run %lld: %s\n", (long long)run, problem);
	else
		printf("PROBLEM ledger: %s\n", problem);
}

static int report_key(void *arg, const char *fingerprint, const char *entries, const char *runs)
{
	struct audit_json *j = arg;

	if (j) {
		json_array_append_new(j->keys, json_pack("{s:s, s:s, s:s}", "fingerprint", fingerprint, "entries",
							 entries, "runs", runs));
		return 0;
	}
	printf("signed by key %s: ledger entries %s (runs %s)\n", fingerprint, entries, runs);
	return 0;
}

static int report_later(void *arg, int64_t seq, const char *run_uuid, const char *kind)
{
	struct audit_json *j = arg;

	if (j) {
		json_array_append_new(j->later, json_pack("{s:I, s:s, s:s}", "seq", (json_int_t)seq, "kind", kind,
							  "run_uuid", run_uuid));
		return 0;
	}
	printf("after the head: entry %lld, %s of run %s\n", (long long)seq, kind, run_uuid);
	return 0;
}

static void print_json(struct audit_json *j, const struct lr_ledger_head *head, const struct lr_published_head *pub,
		       int has_signed, const struct lr_known_store *known, int runs, int checked, int problems)
{
	json_t *o = json_pack(
		"{s:i, s:i, s:o, s:{s:I, s:o, s:I, s:I, s:o}, s:o, s:o, s:o, s:b}", "runs", runs, "artifacts_rehashed",
		checked, "problems", j->problems, "ledger", "seq", (json_int_t)head->seq, "digest",
		head->seq ? json_string(head->digest) : json_null(), "signed_entries", (json_int_t)head->signed_entries,
		"trusted_entries", (json_int_t)head->trusted_entries, "signed_from",
		known ? json_integer(known->from_seq) : json_null(), "keys", j->keys, "after_head", j->later,
		"extends_published_head", pub || has_signed ? json_boolean(!problems) : json_null(), "ok", !problems);

	j->problems = j->keys = j->later = NULL;
	cmd_json_print(o);
}

/* --head: a file holding a signed head (*env), else SEQ:DIGEST (*pub points at 'published'). */
static int head_arg(const char *text, json_t **env, struct lr_published_head *published, struct lr_published_head **pub)
{
	int rc;

	if (access(text, F_OK) == 0)
		return lr_head_load(text, env);
	if ((rc = lr_head_parse(text, published)))
		return rc;
	*pub = published;
	return 0;
}

/* The runs to audit: --run's, else those of the filter (every run without --issue). */
static int audit_scope(struct lr_store *st, const char *run_ref, const struct lr_run_filter *f, int64_t **ids, int *n)
{
	int rc;

	if (!run_ref)
		return lr_store_run_ids(st, f, ids, n);
	if (!(*ids = malloc(sizeof **ids)))
		return lr_error_set(LR_ENOMEM, "out of memory");
	rc = lr_store_run_resolve(st, run_ref, *ids);
	*n = !rc;
	return rc;
}

/* How far the ledger is signed, and by keys you trust. */
static void print_trust(const struct lr_ledger_head *head, const struct lr_known_store *known)
{
	printf("signatures: %lld of %lld ledger entries signed and verified, %lld by a key you trust\n",
	       (long long)head->signed_entries, (long long)head->seq, (long long)head->trusted_entries);
	if (known)
		printf("trust: your configuration knows this store as signed from ledger entry %lld on\n",
		       (long long)known->from_seq);
	else if (!head->trusted_entries)
		printf("trust: nothing in this store is signed by a key you trust\n");
}

/* The closing lines: signatures and trust, the heads the store extends, the ledger head, the count. */
static void print_summary(const struct lr_ledger_head *head, const struct lr_known_store *known,
			  const struct lr_published_head *pub, const char *signed_file, int64_t signed_seq, int runs,
			  int checked, int problems)
{
	if (head->seq)
		print_trust(head, known);
	if (pub && !problems)
		printf("the store extends the published head %lld:%s\n", (long long)pub->seq, pub->digest);
	if (signed_file && !problems)
		printf("the store extends the signed head of entry %lld (%s)\n", (long long)signed_seq, signed_file);
	printf("ledger head: %lld:%s\naudit: %d run(s), %d artifact(s) re-hashed, %d problem(s)\n",
	       (long long)head->seq, head->seq ? head->digest : "(empty)", runs, checked, problems);
}

int cmd_audit(const struct lr_global *g, int argc, char **argv)
{
	struct lr_run_filter f = { .status = -1 };
	int64_t *ids = NULL;
	int n = 0;
	struct lr_store *st = NULL;
	const char *run_ref = NULL, *head_text = NULL;
	struct lr_published_head published, *pub = NULL;
	struct lr_ledger_head head;
	int64_t none = 0; /* a scope with no runs */
	char issue[CMD_ISSUE_BUF] = "";
	struct audit_json js = { NULL, NULL, NULL }, *j = NULL;
	struct lr_strlist trust_files = { 0 };
	const struct lr_known_store *known = NULL;
	struct lr_ledger_policy policy;
	struct lr_trust trust = { 0 };
	json_t *signed_head = NULL;
	int64_t signed_seq = 0;
	int rc = 0, exit_code, problems = 0, checked = 0, json = 0, progress = 0, first;
	const struct cmd_opt opts[] = {
		CMD_STRING(0, "run", &run_ref, "ID", "only this run (a short id, uuid prefix, 'last' or 'last~N')"),
		CMD_CALLBACK(0, "issue", issue, cmd_opt_issue, "REF", "only the runs that are evidence for REF"),
		CMD_STRING(
			0, "head", &head_text, "SEQ:DIGEST|FILE",
			"prove the store still extends this published head (or the signed head\nof a report's FILE.head.json, a crate or an archive)"),
		CMD_LIST(0, "trust", &trust_files, "FILE", "also trust the keys of FILE, for this audit (repeatable)"),
		CMD_BOOL(0, "json", &json, "one JSON object (docs/labrun.md gives its shape)"),
		CMD_PROGRESS(&progress),
		CMD_END,
	};
	const struct cmd_parse p = { .cmd = "audit", .usage = usage };

	if ((exit_code = cmd_parse_options(&p, opts, argc, argv, &first)))
		goto out;
	f.issue = issue[0] ? issue : NULL;
	if (run_ref && f.issue) {
		exit_code = cmd_usage_error("audit", "give at most one of --run and --issue");
		goto out;
	}
	if (json)
		j = audit_json_init(&js);
	if ((head_text && (rc = head_arg(head_text, &signed_head, &published, &pub))) ||
	    (rc = cmd_trust_load(&trust, &trust_files, NULL)))
		goto fail;
	if ((exit_code = cmd_store(&st, g)))
		goto out;
	if (!(rc = lr_audit_policy(st, &trust, &policy, &known, report_problem, j, &problems)))
		rc = audit_scope(st, run_ref, &f, &ids, &n);
	cmd_progress_begin("labrun audit", progress, 0);
	if (!rc)
		rc = lr_audit_runs(st, ids, n, report_problem, j, &problems, &checked);
	cmd_progress_end();
	if (!rc)
		rc = lr_audit_ledger(st, run_ref || f.issue ? (ids ? ids : &none) : NULL, n, &policy, pub,
				     report_problem, report_later, j, &problems, &head);
	if (!rc && signed_head)
		rc = lr_audit_signed_head(st, signed_head, &trust, report_problem, report_later, j, &problems,
					  &signed_seq);
	if (!rc)
		rc = lr_store_signing_keys(st, report_key, j);
	if (rc)
		goto fail;
	if (j)
		print_json(j, &head, pub, signed_head != NULL, known, n, checked, problems);
	else
		print_summary(&head, known, pub, signed_head ? head_text : NULL, signed_seq, n, checked, problems);
	exit_code = problems ? LR_EXIT_FAIL : LR_EXIT_OK;
	goto out;
fail:
	exit_code = cmd_fail(rc);
out:
	json_decref(signed_head);
	json_decref(js.problems);
	json_decref(js.keys);
	json_decref(js.later);
	free(ids);
	lr_trust_release(&trust);
	lr_strlist_release(&trust_files);
	return exit_code;
}
