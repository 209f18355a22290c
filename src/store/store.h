#ifndef LR_STORE_H
#define LR_STORE_H

/*
 * The store: <dir>/labrun.db (SQLite, WAL) and <dir>/objects/. These are the
 * only functions that know SQL; a shared lab-server store can replace this
 * file without touching the commands. Writes run in BEGIN IMMEDIATE
 * transactions that never span a command's execution.
 */

#include "base/error.h"
#include <stdint.h>
#include <sys/stat.h>

#include "base/model.h"

#define LR_APPLICATION_ID 0x4C616252 /* "LabR" */

struct lr_store;

/* A callback taking a string (a table name, an object hash...). */
typedef int (*lr_str_fn)(void *arg, const char *s);

/*
 * A row of a query: column count, names, values as text (NULL for SQL NULL)
 * and types (1 integer, 2 float, 3 text, 4 blob, 5 null). Borrowed: valid
 * during the callback only. 'is_header' is set on the first call, which
 * carries the names only.
 */
struct lr_sqlrow {
	int ncol;
	const char *const *names;
	const char *const *values;
	const int *types;	/* 1 integer, 2 float, 3 text, 4 blob, 5 null */
};
typedef int (*lr_sqlrow_fn)(void *arg, const struct lr_sqlrow *row, int is_header);

enum {
	LR_STORE_CREATE = 1, /* create the directory and database if missing */
	LR_STORE_WRITE = 2, /* a writer: a store it cannot write is refused up front (LR_ESTORE) */
};

/*
 * Find the store directory: 'override' (from --store or LABRUN_STORE) if
 * given, else the nearest '.labrun' walking up from 'cwd'. When none exists
 * and 'for_write' is set, the place a new one goes: '.labrun' in 'cwd' (a
 * caller that knows the enclosing git work tree puts it at its top instead,
 * as cmd_open_store does). *out is malloc'd; *exists says whether the
 * directory is already there. LR_ENOTFOUND when reading and there is none.
 */
LR_MUST_CHECK int lr_store_find(char **out, int *exists, const char *override, const char *cwd, int for_write);

/*
 * Open (and with LR_STORE_CREATE, create) the store in 'dir', applying any
 * pending migrations. A store whose schema is newer than this binary, or a
 * database that is not a labrun store, is refused with LR_ESCHEMA and left
 * untouched. *out belongs to the caller: lr_store_free().
 */
LR_MUST_CHECK int lr_store_open(struct lr_store **out, const char *dir, unsigned flags);

/*
 * Called once per wait when a store's lock has been held by another process
 * for a second (the wait goes on up to a minute): commands say so on stderr.
 */
void lr_store_set_wait_notice(void (*fn)(const char *path));
void lr_store_free(struct lr_store *st);

/* The store directory (borrowed, lives as long as 'st'). */
const char *lr_store_dir(const struct lr_store *st);

/* The SQLite library's version ("3.40.1"); static. */
const char *lr_store_sqlite_version(void);

/* PRAGMA user_version of the open database. */
LR_MUST_CHECK int lr_store_schema_version(struct lr_store *st);

/*
 * Insert 'run' as 'running' with every fact known before execution (host,
 * experiment, issues, geometry, binding, tools, environment, sources and the
 * artifacts already in run->artifacts) in one transaction; sets run->id.
 * Objects named by artifacts must already be in objects/.
 */
LR_MUST_CHECK int lr_store_run_begin(struct lr_store *st, struct lr_run *run);

/*
 * Finalise a run in one transaction: status, end time, exit, resource use,
 * failure text, the artifacts from index 'first_new_artifact' on, and the
 * run's measurements.
 */
LR_MUST_CHECK int lr_store_run_finish(struct lr_store *st, const struct lr_run *run, size_t first_new_artifact);

/* Runs still marked 'running': ids and uuids (malloc'd arrays, caller frees). */
struct lr_running {
	int64_t id;
	char uuid[37];
};
LR_MUST_CHECK int lr_store_running(struct lr_store *st, struct lr_running **out, size_t *n);

/*
 * Mark run 'id' abandoned if it is still running, linking the given logs.
 * *changed is 1 when this call did it, 0 when another process finished or
 * abandoned it first.
 */
LR_MUST_CHECK int lr_store_run_abandon(struct lr_store *st, int64_t id, const char *ended_at,
			 const struct lr_artifact *logs, size_t nlogs, int *changed);

/*
 * Resolve a run reference: a short id ("7"), a uuid or a unique uuid prefix
 * of at least 4 characters, or "last". LR_ENOTFOUND / LR_EINVAL otherwise.
 */
LR_MUST_CHECK int lr_store_run_resolve(struct lr_store *st, const char *ref, int64_t *id);

/* Load everything recorded about run 'id' into 'run' (lr_run_init'ed). */
LR_MUST_CHECK int lr_store_run_load(struct lr_store *st, int64_t id, struct lr_run *run);

struct lr_run_filter {
	const char *issue;	/* normalised issue ref, or NULL */
	const char *experiment;	/* or NULL */
	int status;		/* enum lr_status, or -1 for any */
	int64_t limit;		/* 0: all */
};

/*
 * Call 'fn' for each matching run, newest first, with the summary fields
 * filled (id, uuid, kind, experiment, status, times, exit, wall, argv, cwd,
 * issues). The run is released after each call; a non-zero return from
 * 'fn' stops the walk and is returned.
 */
typedef int (*lr_run_fn)(void *arg, const struct lr_run *run);
LR_MUST_CHECK int lr_store_run_list(struct lr_store *st, const struct lr_run_filter *f, lr_run_fn fn, void *arg);

/* ---- experiment runs (labrun run) ---- */

/* What an arm of a command experiment runs (arm_command). */
struct lr_store_arm_command {
	const char *command;		/* the argv template as written */
	const char *cwd;		/* or NULL */
	double timeout_s;		/* 0: none */
	const char *env_json;		/* {"NAME": "template"} */
	const char *outputs;		/* space-separated, or NULL */
	const char *responses;		/* or NULL */
	const char *route;
};

struct lr_store_arm {
	const char *name, *kernel, *contract, *layout, *mode;
	int threads;
	const struct lr_store_arm_command *cmd;	/* command experiments, else NULL */
};

/* One execution of a command experiment (execution, execution_output, metric). */
struct lr_store_output {
	char *path;
	char sha256[LR_SHA256_HEX];	/* "" when the file was missing */
	int64_t size;
};

struct lr_store_metric {
	char *name, *unit;
	double value;
	int higher;			/* higher is better */
};

struct lr_store_exec {
	int seq, arm;
	int block, slot;		/* -1 for a parity execution */
	char *argv_json;
	int has_exit, exit_code, signal, timed_out;
	double wall_s, user_s, sys_s;
	int64_t peak_rss_kib;
	char stdout_sha256[LR_SHA256_HEX], stderr_sha256[LR_SHA256_HEX];	/* "" when not stored */
	char outputs_sha256[LR_SHA256_HEX];	/* "" when an output is missing or none are declared */
	char *failure;			/* NULL when it passed */
	struct lr_store_output *outputs;
	int noutputs;
	struct lr_store_metric *metrics;
	int nmetrics;
};

struct lr_store_condition {
	int idx;
	const char *model;
	int64_t layers, kv_heads, head_dim, tokens, elements, inner;
	const char *status;	/* passed, failed, missing */
	const char *failure;	/* or NULL */
	const struct lr_kvlist *params;		/* command experiments: the grid values, else NULL */
	const struct lr_store_exec *execs;	/* command experiments: every execution */
	int nexecs;
};

struct lr_store_rep {
	int block, slot, arm, warmup;
	double wall_s, cpu_s;
	int64_t invol_switches, steal_ticks;
	int interfered;
};

/* Store the definition text and the arms of experiment run 'run' (one transaction). */
LR_MUST_CHECK int lr_store_experiment_plan(struct lr_store *st, int64_t run, const char *path, const char *sha256,
			     const char *text, const struct lr_store_arm *arms, int narms);

/*
 * Store one condition's outcome in one transaction: its row, the parity
 * hash of each arm (NULL when the arm never ran), and its repetitions.
 */
LR_MUST_CHECK int lr_store_condition(struct lr_store *st, int64_t run, const struct lr_store_condition *c,
		       const char *const *arm_sha, const int *matches, int narms,
		       const struct lr_store_rep *reps, int nreps);

/*
 * Values of metric 'name' of the timed (non-warm-up) executions of one
 * condition and arm of a command experiment, in block/slot order: *out is
 * malloc'd. *higher says the metric's direction (from its first row).
 */
LR_MUST_CHECK int lr_store_arm_metric(struct lr_store *st, int64_t run, int cond, int arm, const char *name, double **out, int *n,
			int *higher);

/*
 * The newest passed A/A experiment run (two or more arms, all with the same
 * kernel, contract, layout, mode and threads) recorded on the same host as
 * run 'run', other than 'run' itself: *aa gets its id, 0 when there is none.
 */
LR_MUST_CHECK int lr_store_newest_aa(struct lr_store *st, int64_t run, int64_t *aa);

/* The routes of a command experiment's arms that declare responses, in arm order. */
LR_MUST_CHECK int lr_store_arm_routes(struct lr_store *st, int64_t run, lr_str_fn fn, void *arg);

/* The grid values of a command experiment's condition (key -> value, in [grid] order). */
LR_MUST_CHECK int lr_store_condition_params(struct lr_store *st, int64_t run, int cond, struct lr_kvlist *out);

/* The stored definition of an experiment run: malloc'd path and text; LR_ENOTFOUND if none. */
LR_MUST_CHECK int lr_store_definition(struct lr_store *st, int64_t run, char **path, char **text);

/* Parity hashes of an experiment run: out[cond * narm + arm] of a caller array of ncond x narm ("" if none). */
LR_MUST_CHECK int lr_store_parity_hashes(struct lr_store *st, int64_t run, int ncond, int narm, struct lr_digest *out);

/*
 * Timed (non-warm-up) repetitions of one condition and arm, in block/slot
 * order, per execution (wall_s / inner): *out is malloc'd (NULL when none),
 * as many as there are. *flagged counts the interfered ones.
 */
LR_MUST_CHECK int lr_store_arm_times(struct lr_store *st, int64_t run, int cond, int arm, double **out, int *n, int *flagged);

/* The arms of an experiment run, in order: names and resolved kernels into caller arrays of 32 bytes each. */
LR_MUST_CHECK int lr_store_arm_names(struct lr_store *st, int64_t run, char (*names)[32], char (*kernels)[32], int max, int *n);

/* Conditions of an experiment run in order, read back (strings malloc'd into the caller's array; free with
 * lr_store_conditions_free). */
struct lr_store_condition_row {
	int idx;
	char model[32];
	int64_t layers, tokens, inner;
	char status[16];
	char *failure;
	int flagged;	/* interfered repetitions in timed blocks */
};
LR_MUST_CHECK int lr_store_conditions(struct lr_store *st, int64_t run, struct lr_store_condition_row **out, int *n);
void lr_store_conditions_free(struct lr_store_condition_row *rows, int n);

/*
 * Recompute run 'id's seal and call 'changed' with the name of every table
 * whose rows differ from the sealed digest. *sealed is 0 for a run that was
 * never sealed (still running, or recorded before seals existed).
 */
LR_MUST_CHECK int lr_store_seal_check(struct lr_store *st, int64_t id, lr_str_fn changed, void *arg, int *sealed);

/* The newest ledger entry: what a report or comment publishes as SEQ:DIGEST. */
struct lr_ledger_head {
	int64_t seq;			/* 0: the ledger is empty */
	char digest[LR_SHA256_HEX];
	int64_t signed_entries;		/* lr_store_ledger_check: entries whose signature verified */
	int64_t trusted_entries;	/* ... and whose key is trusted */
	char newest_at[40];		/* when the newest entry was appended (ISO 8601, UTC) */
};

/*
 * What lr_store_ledger_check holds signatures to: with 'trust', a signed
 * entry must be signed by one of its keys (with the public key the trust
 * gives, when it gives one), and from entry 'signed_from' on (0: none)
 * every entry must be signed so.
 */
struct lr_trust;
struct lr_ledger_policy {
	const struct lr_trust *trust;
	int64_t signed_from;
};
typedef int (*lr_ledger_fn)(void *arg, int64_t seq, const char *run_uuid, const char *text);

/*
 * The objects a run holds beyond its artifacts (command experiments and
 * serving evidence): each execution's stdout and stderr, its declared
 * outputs, each ingested responses file and each answer key a gate used.
 * 'fn' gets a relative name for it (not yet a safe member name: it holds
 * routes and declared paths as stored), its sha256 and whether it is an
 * input (an answer key) rather than a result.
 */
typedef int (*lr_run_object_fn)(void *arg, const char *name, const char *sha256, int input);
LR_MUST_CHECK int lr_store_run_evidence_objects(struct lr_store *st, int64_t id, lr_run_object_fn fn, void *arg);

/* Sign every ledger entry appended from now on with 'signer', which the store now owns. */
struct lr_signer;
void lr_store_set_signer(struct lr_store *st, struct lr_signer *signer);

/* The signer set on the store, or NULL (borrowed: lives as long as the store). */
const struct lr_signer *lr_store_signer(const struct lr_store *st);

/*
 * Called inside the write transaction before ledger entry 'seq' is signed:
 * a non-zero return refuses the append (and so the whole transaction).
 */
typedef int (*lr_sign_hook_fn)(void *arg, struct lr_store *st, int64_t seq);
void lr_store_set_sign_hook(struct lr_store *st, lr_sign_hook_fn fn, void *arg);

/*
 * Refuse every unsigned ledger append from now on (no signer set): it fails
 * with LR_EREFUSED, message 'why' and hint 'hint' (copied). For a key that
 * is configured but unusable, and for a store known to be signed.
 */
LR_MUST_CHECK int lr_store_refuse_unsigned(struct lr_store *st, const char *why, const char *hint);

/* The store's id (migration 17: random, given when the store was created). */
#define LR_STORE_ID_LEN 33
LR_MUST_CHECK int lr_store_id(struct lr_store *st, char id[LR_STORE_ID_LEN]);

/* Each key that signed entries: its fingerprint, the entries' numbers and their runs' ids, space-separated. */
typedef int (*lr_signing_key_fn)(void *arg, const char *fingerprint, const char *entries, const char *runs);
LR_MUST_CHECK int lr_store_signing_keys(struct lr_store *st, lr_signing_key_fn fn, void *arg);

/* A ledger entry as stored, with the public key of its signer (NULL fields: unsigned). */
struct lr_ledger_entry {
	int64_t seq;
	const char *run_uuid, *kind, *content, *prev, *digest, *appended_at;
	const char *key_fingerprint, *signature, *public_key;
};
typedef int (*lr_ledger_entry_fn)(void *arg, const struct lr_ledger_entry *e);

/* Every ledger entry of run 'id' (0: of every run), oldest first. */
LR_MUST_CHECK int lr_store_ledger_entries(struct lr_store *st, int64_t id, lr_ledger_entry_fn fn, void *arg);

/*
 * The signed head: an in-toto Statement v1 in a DSSE envelope (compact,
 * key-sorted JSON, malloc'd into *envelope), signed with the store's signer
 * when it has one (else with no signature). Its subject is the ledger's
 * newest digest; its predicate (urn:labrun:ledger-head:v1) the store id,
 * the head's sequence number and digest, when the newest entry was
 * appended, and every entry's seq, run uuid and digest up to it. Built
 * from the ledger alone, so the same ledger gives the same bytes.
 * *envelope is NULL when the ledger is empty.
 */
#define LR_HEAD_PREDICATE "urn:labrun:ledger-head:v1"
LR_MUST_CHECK int lr_store_head_statement(struct lr_store *st, char **envelope);

/* The newest ledger entry, read without checking the chain (seq 0: empty). */
LR_MUST_CHECK int lr_store_ledger_head(struct lr_store *st, struct lr_ledger_head *head);

/*
 * Walk the ledger: every entry links to the one before and matches its
 * fields, numbers run without a gap, names a run still in the store, and
 * each run's newest entry matches its rows now (only runs only[0..nonly)
 * when 'only' is not NULL: the chain itself is always walked whole); every
 * sealed run has an entry; every signature verifies with the public key
 * stored for its fingerprint, and is held to 'policy' (NULL: no key is
 * trusted or distrusted). 'fn' gets each problem (seq 0 for a run with no
 * entry), naming the run and the entry. *head is the newest entry.
 */
LR_MUST_CHECK int lr_store_ledger_check(struct lr_store *st, const int64_t *only, int nonly,
					const struct lr_ledger_policy *policy, lr_ledger_fn fn, void *arg,
					struct lr_ledger_head *head);

/*
 * digest gets entry 'seq''s digest ("" when there is none); 'fn' gets every
 * later entry, with its kind as text.
 */
LR_MUST_CHECK int lr_store_ledger_after(struct lr_store *st, int64_t seq, char digest[LR_SHA256_HEX], lr_ledger_fn fn, void *arg);

/* Every repetition of experiment run 'run', in order, through 'fn' (header first). */
LR_MUST_CHECK int lr_store_repetitions(struct lr_store *st, int64_t run, lr_sqlrow_fn fn, void *arg);

/* Record a crate's registration with 'hub' and the runs (by uuid) it describes; *id gets its short id. */
LR_MUST_CHECK int lr_store_register(struct lr_store *st, const char *hub, const char *crate_path, const char *manifest_sha256,
		      const struct lr_strlist *run_uuids, int64_t *id);

/* Each registration, oldest first: id, hub, crate path, manifest sha256, time, and its runs' ids ("3 5"). */
typedef int (*lr_registration_fn)(void *arg, int64_t id, const char *hub, const char *path, const char *sha,
				  const char *when, const char *runs);
LR_MUST_CHECK int lr_store_registrations(struct lr_store *st, lr_registration_fn fn, void *arg);

/* Where a pruned object lives: malloc'd archive path and member; LR_ENOTFOUND when it was never pruned. */
LR_MUST_CHECK int lr_store_archived(struct lr_store *st, const char *sha256, char **archive, char **member);

/* Every pruned object: its sha256, archive path and member, by sha256. */
typedef int (*lr_archived_fn)(void *arg, const char *sha256, const char *archive, const char *member);
LR_MUST_CHECK int lr_store_archived_each(struct lr_store *st, lr_archived_fn fn, void *arg);

/* How many pruned objects live in archive 'path' (an absolute path). */
LR_MUST_CHECK int lr_store_archive_holds(struct lr_store *st, const char *path, int64_t *objects);

/* Record that objects were archived as members of 'archive' (one transaction). */
LR_MUST_CHECK int lr_store_mark_archived(struct lr_store *st, const char *archive, const struct lr_kvlist *sha_to_member);

/* The store's settings ('labrun config'): *value is malloc'd, NULL when the key is not set. */
LR_MUST_CHECK int lr_store_setting_get(struct lr_store *st, const char *key, char **value);
/* Set KEY to VALUE, or remove it when VALUE is NULL. */
LR_MUST_CHECK int lr_store_setting_set(struct lr_store *st, const char *key, const char *value);
typedef int (*lr_setting_fn)(void *arg, const char *key, const char *value, const char *set_at);
LR_MUST_CHECK int lr_store_settings(struct lr_store *st, lr_setting_fn fn, void *arg);

/*
 * Objects that only logs (stdout, stderr, log) of the runs in 'runs' refer
 * to: candidates for pruning. 'fn' gets each log's object, run, role and
 * name (an object shared by several logs comes once per log).
 */
typedef int (*lr_log_fn)(void *arg, const char *sha256, int64_t run, const char *role, const char *name);
LR_MUST_CHECK int lr_store_prunable_logs(struct lr_store *st, const int64_t *runs, int n, lr_log_fn fn, void *arg);

/* What a replay found for one item ("exit code", "output results.txt", "condition 2"). */
struct lr_replay_check {
	char item[1100];
	const char *original, *replay;	/* the values compared; NULL when absent */
	int matches;
};

/* Record replay run 'run's checks, all in one transaction that also reseals the run. */
LR_MUST_CHECK int lr_store_replay_checks(struct lr_store *st, int64_t run, const struct lr_replay_check *checks, int n);

/* ---- serving evidence: response sets, comparisons, gates (store/serving.c) ---- */

/* One response. Optional numbers are NAN (doubles) or -1 (counts) when absent. */
struct lr_response {
	const char *case_id;
	int64_t line;
	const char *tokens;		/* a compact JSON array of integers */
	int64_t ntokens;
	const char *text;
	size_t text_len;		/* bytes (a JSON string may hold NUL) */
	const char *finish_reason;
	double latency_ms, ttft_ms;
	int64_t input_tokens, output_tokens, lane;
	const char *model;		/* or NULL */
};

struct lr_response_set {
	int64_t id, run;
	char route[128];
	int cond, seq;			/* -1 when ingested by hand */
	int64_t cases;
};

/* Writing one set: begin (a write transaction), add each response, commit (or abort: nothing stays). */
struct lr_set_writer;
LR_MUST_CHECK int lr_store_set_begin(struct lr_store *st, int64_t run, const char *route, int cond, int seq, const char *source,
		       const char *raw_sha256, struct lr_set_writer **out);
LR_MUST_CHECK int lr_store_set_add(struct lr_set_writer *w, const struct lr_response *r);
/* Commit; a final run is resealed in the same transaction. *id gets the set's id. */
LR_MUST_CHECK int lr_store_set_commit(struct lr_set_writer *w, int64_t *id);
void lr_store_set_abort(struct lr_set_writer *w);

/* The sets of run 'run' (route NULL: every route), by id. */
typedef int (*lr_set_fn)(void *arg, const struct lr_response_set *s);
LR_MUST_CHECK int lr_store_sets(struct lr_store *st, int64_t run, const char *route, lr_set_fn fn, void *arg);

/* Each response of set 'set', by case id. */
typedef int (*lr_response_fn)(void *arg, const struct lr_response *r);
LR_MUST_CHECK int lr_store_set_responses(struct lr_store *st, int64_t set, lr_response_fn fn, void *arg);

/* What one case of a comparison found (comparison_case). */
struct lr_case_outcome {
	int missing;			/* 0, 1: the reference lacks it, 2: the candidate lacks it */
	int tokens_equal, text_equal, finish_equal;
	int64_t first_token_diff;	/* -1 when equal or missing */
};

/*
 * Compare set 'cand' against set 'ref' in one transaction: every case of
 * either set, by case id, goes through 'judge' (NULL for the side lacking
 * it) and is stored. 'run' is the candidate's run, resealed when final.
 */
typedef int (*lr_judge_fn)(void *arg, const struct lr_response *ref, const struct lr_response *cand,
			   struct lr_case_outcome *out);
LR_MUST_CHECK int lr_store_comparison(struct lr_store *st, int64_t run, const char *kind, int64_t ref, int64_t cand,
			lr_judge_fn judge, void *arg, int64_t *id);

/* Every case of comparison 'id' that is not exact with equal finish reasons, by case id. */
typedef int (*lr_outcome_fn)(void *arg, const char *case_id, const struct lr_case_outcome *o);
LR_MUST_CHECK int lr_store_comparison_failures(struct lr_store *st, int64_t id, lr_outcome_fn fn, void *arg);

/* One case of a gate (gate_case). */
struct lr_gate_case {
	char *case_id;
	int missing, format_ok, answer_ok, eos;
};

/* A stored comparison with its counts (comparison_summary). */
struct lr_comparison_row {
	int64_t id, run, ref_set, cand_set, ref_run;
	char kind[16], ref_route[128], cand_route[128];
	int cond;			/* the candidate's, -1 when ingested by hand */
	int64_t exact, token_mismatch, text_mismatch, finish_mismatch, missing, total;
};
typedef int (*lr_comparison_fn)(void *arg, const struct lr_comparison_row *c);
/* The comparisons whose candidate belongs to run 'run', by id. */
LR_MUST_CHECK int lr_store_comparisons(struct lr_store *st, int64_t run, lr_comparison_fn fn, void *arg);

/* A stored gate with its scores (gate_summary). */
struct lr_gate_row {
	int64_t id, run, set;
	char route[128], key_sha256[LR_SHA256_HEX];
	int cond;
	int64_t strict, formats, eos, missing, total;
};
typedef int (*lr_gate_fn)(void *arg, const struct lr_gate_row *g);
/* The gates of run 'run', by id. */
LR_MUST_CHECK int lr_store_gates(struct lr_store *st, int64_t run, lr_gate_fn fn, void *arg);

/* Every case of gate 'id' that did not pass all three checks, by case id. */
typedef int (*lr_gate_case_fn)(void *arg, const struct lr_gate_case *c);
LR_MUST_CHECK int lr_store_gate_failures(struct lr_store *st, int64_t id, lr_gate_case_fn fn, void *arg);


/* Store a gate of set 'set' of run 'run' with its cases, in one transaction (resealing a final run). */
LR_MUST_CHECK int lr_store_gate(struct lr_store *st, int64_t run, int64_t set, const char *key_path, const char *key_sha256,
		  const struct lr_gate_case *cases, int n, int64_t *id);

/* Ids of the runs matching 'f', oldest first (malloc'd; 0 runs gives NULL and *n = 0). */
LR_MUST_CHECK int lr_store_run_ids(struct lr_store *st, const struct lr_run_filter *f, int64_t **ids, int *n);


/*
 * Run one read-only SQL statement on a separate read-only connection.
 * Statements that could write are refused with LR_EREFUSED before they run.
 * 'fn' gets the column count, names, values (NULL for SQL NULL) and types
 * (SQLITE_INTEGER... as ints) of each row; 'header' is called once first.
 */
LR_MUST_CHECK int lr_store_sql_readonly(struct lr_store *st, const char *sql, lr_sqlrow_fn fn, void *arg);

/* The checks of lr_store_sql_readonly() alone: 0 when 'sql' would run, without running it. */
LR_MUST_CHECK int lr_store_sql_screen(struct lr_store *st, const char *sql);

/* PRAGMA integrity_check: 0 when "ok", else LR_ESTORE with the first problem. */
LR_MUST_CHECK int lr_store_integrity(struct lr_store *st);

/* Call 'fn' with every object sha256 the database references and expects in objects/ (not pruned
 * ones, nor those pulled lazily and not fetched yet: they are on their remote). */
LR_MUST_CHECK int lr_store_objects(struct lr_store *st, lr_str_fn fn, void *arg);

/*
 * The file hash cache: 1 and the sha256 'path' had when hashed, while its
 * size, times, inode and device (sb, from stat) are unchanged and it was
 * hashed at least a second after it last changed; 0 when it must be read.
 */
LR_MUST_CHECK int lr_store_hash_cached(struct lr_store *st, const char *path, const struct stat *sb,
				       char sha256[LR_SHA256_HEX]);

/* Remember the sha256 of each file as its stat describes it, in one transaction (not on a read-only store). */
struct lr_hash_entry {
	char *path;
	struct stat sb;
	char sha256[LR_SHA256_HEX];
};
LR_MUST_CHECK int lr_store_hash_remember(struct lr_store *st, const struct lr_hash_entry *e, size_t n);

#endif
