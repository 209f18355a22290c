#ifndef LR_MODEL_H
#define LR_MODEL_H

/*
 * The recorded facts of a run, as the domain layer builds them and the
 * store layer reads them back. Every string is owned by the struct that
 * holds it and freed by the matching _release(). The containers they are
 * made of are in base/list.h, clocks in base/clock.h.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/enumname.h"
#include "base/error.h"
#include "base/list.h"
#include "base/sha256.h"

struct lr_host {
	char *hostname, *os, *kernel, *arch, *cpu_model, *cpu_flags;
	int64_t cores;
	int64_t memory_bytes; /* 0 when unknown */
};

void lr_host_release(struct lr_host *h);
/* The sha256 that names a host row: over every fact, so identical facts give one row (docs/schema.md). */
LR_MUST_CHECK int lr_host_fingerprint(const struct lr_host *h, char fp[LR_SHA256_HEX]);

struct lr_srcfile {
	char *path;
	char *status;    /* git status word, or "external" */
	int has_content; /* 0 for deleted files */
	char sha256[LR_SHA256_HEX];
	int64_t size;
};

struct lr_source {
	int present; /* 0 when the run was not inside a git work tree */
	char *repo_path, *head, *branch;
	int dirty;
	char diff_sha256[LR_SHA256_HEX];
};

/* What a declared entry was (artifact_entry.kind); a file is the usual case. */
enum lr_entry_kind {
	LR_ENTRY_FILE,
	LR_ENTRY_SYMLINK,   /* stored as a link: the content is the link's target */
	LR_ENTRY_FOLLOWED,  /* --follow-links: the content is the file it led to */
	LR_ENTRY_DIRECTORY, /* an empty directory: no content, no artifact row */
};

/*
 * The names of what a run is and holds, as the store and a run's JSON keep
 * them, each one table read both ways (base/enumname.h): a name and back;
 * a parse of an unknown name is LR_EINVAL naming it, for the caller to say
 * where it came from.
 */
extern const struct lr_enum_names lr_entry_kinds, lr_run_kinds, lr_statuses;

/* "file", "symlink", "followed-symlink" or "directory"; and back. */
LR_ENUM_DECLARE(lr_entry_kind, enum lr_entry_kind);

struct lr_artifact {
	char *role; /* stdout, stderr, log, input, output, reference */
	char *name;
	int present; /* 0: declared but missing */
	char sha256[LR_SHA256_HEX];
	int64_t size;
	enum lr_entry_kind kind;
	char *target; /* a link's target (followed: the resolved path); NULL otherwise */
};

/* A figure a run produced: measured, or modelled (never mixed up). */
struct lr_measure {
	char *name;
	double value;
	char *unit; /* "s", "bytes", "count" */
	int modelled;
};

/*
 * One sample a benchmark took: what it measured (a shape, a store scale, an
 * import mode; "" when the benchmark has one subject), by which variant,
 * which repetition (0 the warm-up where the benchmark has one).
 */
struct lr_sample {
	char *subject;
	char *variant;
	int rep;
	double value;
	char *unit; /* "s", "runs", "KiB", "bytes" */
};

/*
 * A check a recorded command reported about itself ($LABRUN_CHECKS, table
 * check_result): 'passed' of 'total' cases held; it passes when they are
 * equal. 'detail' is the command's own words, NULL when none.
 */
struct lr_check {
	char *name;
	int64_t passed, total;
	char *detail;
};

/*
 * What a command left running when it ended (table leftover): a process found
 * alive after the command's own process had exited, then stopped and killed
 * (base/child.c). 'cond' and 'seq' name an experiment's execution (-1 for a
 * recorded command); 'argv' is its command line from /proc, arguments
 * separated by spaces, "" when it could not be read.
 */
struct lr_leftover {
	int cond, seq;
	int64_t pid;
	char *argv;
};

struct lr_leftovers {
	struct lr_leftover *v;
	size_t n, cap;
};

/* Append one (argv copied); 0 or LR_ENOMEM. */
LR_MUST_CHECK int lr_leftovers_add(struct lr_leftovers *l, int cond, int seq, int64_t pid, const char *argv);
void lr_leftovers_release(struct lr_leftovers *l);

/* What produced a run; stored as its name ("record", "import", "experiment", "bench"). */
enum lr_run_kind {
	LR_KIND_RECORD,
	LR_KIND_IMPORT,
	LR_KIND_EXPERIMENT,
	LR_KIND_BENCH,
	LR_KIND_COLLECT, /* 'labrun collect': serving responses it requested itself */
};

/* "record", ...; and back. */
LR_ENUM_DECLARE(lr_run_kind, enum lr_run_kind);

enum lr_status {
	LR_RUNNING,
	LR_PASSED,
	LR_FAILED,
	LR_CANCELLED,
	LR_ABANDONED,
};

/* "running", "passed", ...; and back. */
LR_ENUM_DECLARE(lr_status, enum lr_status);

struct lr_run {
	int64_t id; /* 0 until stored */
	char uuid[37];
	enum lr_run_kind kind;
	char *experiment; /* NULL when none */
	enum lr_status status;
	char *started_at, *ended_at;
	int has_exit;
	int exit_code;
	int signal; /* 0 when none */
	int timed_out;
	char *failure; /* why failed/cancelled, NULL when passed */
	double wall_s, user_s, sys_s;
	int64_t peak_rss_kib;
	int64_t output_cap; /* bytes of each log kept at most (0: all), when a cap was set */
	int64_t dropped[2]; /* bytes of stdout, stderr the command wrote past the cap, not kept */
	char *cwd;
	char *argv_json;
	char *labrun_version;
	int64_t replay_of; /* 0 when none */
	char *note;
	struct lr_host host;
	struct lr_source source;
	struct lr_srcfile *files;
	size_t nfiles, capfiles;
	struct lr_kvlist env, binding, geometry, tools;
	struct lr_kvlist digests;  /* digests the run produced that are not files: name -> sha256 */
	struct lr_kvlist probes;   /* tool probes: name -> output, tag: the command (record/facts.h) */
	struct lr_kvlist recorder; /* labrun's own identity: binary_sha256, build options (record/facts.h) */
	struct lr_strlist issues;
	struct lr_artifact *artifacts;
	size_t nartifacts, capartifacts;
	struct lr_measure *measures;
	size_t nmeasures, capmeasures;
	struct lr_sample *samples; /* a bench run's samples, in the order taken */
	size_t nsamples, capsamples;
	struct lr_check *checks; /* what its command reported through $LABRUN_CHECKS, in the file's order */
	size_t nchecks, capchecks;
	struct lr_leftovers left;  /* what its command, or its experiment's executions, left running (cleanup) */
	struct lr_strlist secrets; /* values that must never be stored (never stored themselves) */
};

void lr_run_init(struct lr_run *r);
void lr_run_release(struct lr_run *r);

/* Append a source file / artifact; the strings are copied. */
LR_MUST_CHECK int lr_run_add_file(struct lr_run *r, const char *path, const char *status, const char *sha256,
				  int64_t size);
LR_MUST_CHECK int lr_run_add_artifact(struct lr_run *r, const char *role, const char *name, const char *sha256,
				      int64_t size);

/* Say what the last artifact appended was, when not a file ('target' copied, may be NULL). */
LR_MUST_CHECK int lr_run_artifact_kind(struct lr_run *r, enum lr_entry_kind kind, const char *target);

/* The artifact of role 'role' named 'name', or NULL; borrowed from r. */
const struct lr_artifact *lr_run_artifact(const struct lr_run *r, const char *role, const char *name);

/* Append a measurement (copied); 'modelled' marks values from a model. */
LR_MUST_CHECK int lr_run_add_measure(struct lr_run *r, const char *name, double value, const char *unit, int modelled);

/* Append a check (strings copied; detail may be NULL). */
LR_MUST_CHECK int lr_run_add_check(struct lr_run *r, const char *name, int64_t passed, int64_t total,
				   const char *detail);

/* Append a benchmark's sample (strings copied). */
LR_MUST_CHECK int lr_run_add_sample(struct lr_run *r, const char *subject, const char *variant, int rep, double value,
				    const char *unit);

#endif
