-- labrun store, migration 1: runs and everything recorded about them.
-- This schema is a public interface: users query it directly (labrun sql, sqlite3).
-- Times are ISO 8601 UTC text with milliseconds ("2026-11-29T14:25:45.123Z").
-- Hashes are lower-case hexadecimal sha256 (64 characters).

-- A named series of runs (an experiment definition arrives with a later migration).
CREATE TABLE experiment (
	id         INTEGER PRIMARY KEY, -- short id
	name       TEXT NOT NULL UNIQUE, -- name given with --experiment
	created_at TEXT NOT NULL -- when the first run named it
);

-- A machine a run was executed on; rows are shared by runs with identical facts.
CREATE TABLE host (
	id           INTEGER PRIMARY KEY, -- short id
	fingerprint  TEXT NOT NULL UNIQUE, -- sha256 over all the columns below: identical facts, one row
	hostname     TEXT NOT NULL, -- uname nodename
	os           TEXT, -- PRETTY_NAME from /etc/os-release
	kernel       TEXT NOT NULL, -- uname release and version
	arch         TEXT NOT NULL, -- uname machine, e.g. x86_64
	cpu_model    TEXT, -- "model name" from /proc/cpuinfo
	cpu_flags    TEXT, -- "flags" from /proc/cpuinfo, space-separated
	cores        INTEGER NOT NULL, -- online logical CPUs
	memory_bytes INTEGER -- MemTotal from /proc/meminfo, in bytes
);

-- One execution: a recorded command (kind 'record'); later kinds reuse this table.
CREATE TABLE run (
	id             INTEGER PRIMARY KEY, -- short id for people ("labrun show 7")
	uuid           TEXT NOT NULL UNIQUE, -- random UUID, stable when stores are merged
	kind           TEXT NOT NULL, -- what produced the run: 'record'
	experiment_id  INTEGER REFERENCES experiment(id), -- experiment it belongs to, or NULL
	host_id        INTEGER NOT NULL REFERENCES host(id), -- machine it ran on
	status         TEXT NOT NULL CHECK (status IN ('running', 'passed', 'failed', 'cancelled', 'abandoned')), -- 'running' until finalised; 'abandoned' when the recorder died
	started_at     TEXT NOT NULL, -- when the command was started
	ended_at       TEXT, -- when the run was finalised; NULL while running
	exit_code      INTEGER, -- the command's exit status, NULL if it was killed by a signal or never ran
	signal         INTEGER, -- signal number that ended the command, or NULL
	timed_out      INTEGER NOT NULL DEFAULT 0, -- 1 when --timeout expired and labrun stopped the command
	failure        TEXT, -- why labrun counts the run failed or cancelled, in words (NULL when passed)
	wall_s         REAL, -- elapsed wall-clock seconds (CLOCK_MONOTONIC)
	user_s         REAL, -- user CPU seconds of the command and its waited-for children
	sys_s          REAL, -- system CPU seconds of the command and its waited-for children
	peak_rss_kib   INTEGER, -- peak resident set size of the command tree, KiB (getrusage ru_maxrss)
	cwd            TEXT NOT NULL, -- working directory the command ran in
	argv_json      TEXT NOT NULL, -- the command as a JSON array of strings, secrets scrubbed
	labrun_version TEXT NOT NULL, -- version of the labrun that recorded it
	replay_of      INTEGER REFERENCES run(id), -- the run this one re-executes, or NULL
	note           TEXT -- free text given with --note
);
CREATE INDEX run_status ON run(status);
CREATE INDEX run_experiment ON run(experiment_id);

-- State of the git repository enclosing the working directory, captured before the run.
CREATE TABLE source_state (
	run_id      INTEGER PRIMARY KEY REFERENCES run(id), -- the run
	repo_path   TEXT NOT NULL, -- absolute path of the repository's work tree
	head        TEXT, -- HEAD commit id (hex), NULL on an unborn branch
	branch      TEXT, -- branch name, NULL when HEAD is detached
	dirty       INTEGER NOT NULL, -- 1 when any tracked file differs from HEAD or untracked files exist
	diff_sha256 TEXT NOT NULL -- sha256 of the patch "HEAD -> work tree" including untracked files (of the empty string when clean)
);

-- Files whose content identifies the sources beyond the HEAD commit.
CREATE TABLE source_file (
	run_id     INTEGER NOT NULL REFERENCES run(id), -- the run
	path       TEXT NOT NULL, -- repository-relative path, or absolute path for --source files outside git
	sha256     TEXT, -- sha256 of the file's content at record time, NULL when deleted
	size       INTEGER, -- size in bytes, NULL when deleted
	git_status TEXT NOT NULL, -- 'modified', 'added', 'deleted', 'renamed', 'typechange', 'untracked', 'conflicted', or 'external' (--source)
	PRIMARY KEY (run_id, path)
);

-- Environment variables from the allowlist, plus any variable whose name looks secret.
CREATE TABLE env_var (
	run_id   INTEGER NOT NULL REFERENCES run(id), -- the run
	name     TEXT NOT NULL, -- variable name
	value    TEXT NOT NULL, -- value, or '<redacted>' for secrets
	redacted INTEGER NOT NULL DEFAULT 0, -- 1 when the value was withheld
	PRIMARY KEY (run_id, name)
);

-- Where the run was bound: backend, device id, CPU affinity, NUMA node, thread settings.
CREATE TABLE binding (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	key    TEXT NOT NULL, -- e.g. 'device', 'cpu_affinity', 'numa_nodes', 'omp_num_threads'
	value  TEXT NOT NULL, -- value as text
	origin TEXT NOT NULL CHECK (origin IN ('auto', 'user')), -- 'auto' when labrun observed it, 'user' when given with --binding
	PRIMARY KEY (run_id, key)
);

-- Compiled geometry the run used: model, layers, kv_heads, head_dim, tokens, batch, tp, width...
CREATE TABLE geometry (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	key    TEXT NOT NULL, -- geometry field
	value  TEXT NOT NULL, -- value as text (integers for the numeric fields)
	PRIMARY KEY (run_id, key)
);

-- Versions of the tools a run depended on, e.g. rebel-compiler = 0.11.0.
CREATE TABLE tool_version (
	run_id  INTEGER NOT NULL REFERENCES run(id), -- the run
	name    TEXT NOT NULL, -- tool name
	version TEXT NOT NULL, -- version string as given
	PRIMARY KEY (run_id, name)
);

-- Content-addressed files under objects/ (path objects/<first 2 hex>/<remaining 62 hex>).
CREATE TABLE object (
	sha256     TEXT PRIMARY KEY, -- sha256 of the content, which is also its file name
	size       INTEGER NOT NULL, -- size in bytes
	created_at TEXT NOT NULL -- when it was first stored
);

-- Files linked to a run: its logs and declared artifacts.
CREATE TABLE artifact (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	role   TEXT NOT NULL CHECK (role IN ('stdout', 'stderr', 'log', 'input', 'output', 'reference')), -- what the file is to the run
	name   TEXT NOT NULL, -- 'stdout'/'stderr' for logs, else the path as declared (relative to cwd)
	sha256 TEXT REFERENCES object(sha256), -- content, NULL when a declared artifact was missing
	size   INTEGER, -- size in bytes, NULL when missing
	PRIMARY KEY (run_id, role, name)
);

-- Issues a run is evidence for: '270' or 'owner/repo#827'.
CREATE TABLE run_issue (
	run_id    INTEGER NOT NULL REFERENCES run(id), -- the run
	issue_ref TEXT NOT NULL, -- normalised reference: digits for this project, owner/repo#N elsewhere
	PRIMARY KEY (run_id, issue_ref)
);
CREATE INDEX run_issue_ref ON run_issue(issue_ref);

-- One row per run with what people ask first.
CREATE VIEW run_overview AS
SELECT r.id, r.uuid, r.kind, e.name AS experiment, r.status, r.exit_code, r.signal,
       r.started_at, r.ended_at, r.wall_s, r.argv_json, r.cwd, h.hostname,
       s.head, s.branch, s.dirty,
       (SELECT group_concat(issue_ref, ' ') FROM
          (SELECT issue_ref FROM run_issue i WHERE i.run_id = r.id ORDER BY issue_ref)) AS issues
FROM run r
JOIN host h ON h.id = r.host_id
LEFT JOIN experiment e ON e.id = r.experiment_id
LEFT JOIN source_state s ON s.run_id = r.id;

-- Runs per issue and status, failed and abandoned ones included.
CREATE VIEW issue_summary AS
SELECT i.issue_ref,
       count(*) AS runs,
       sum(r.status = 'passed') AS passed,
       sum(r.status = 'failed') AS failed,
       sum(r.status = 'cancelled') AS cancelled,
       sum(r.status = 'abandoned') AS abandoned,
       sum(r.status = 'running') AS running,
       min(r.started_at) AS first_started, max(r.started_at) AS last_started
FROM run_issue i JOIN run r ON r.id = i.run_id
GROUP BY i.issue_ref;

-- Every file of every run with where its content lives in the store.
CREATE VIEW run_artifacts AS
SELECT a.run_id, a.role, a.name, a.sha256, a.size,
       CASE WHEN a.sha256 IS NULL THEN NULL
            ELSE 'objects/' || substr(a.sha256, 1, 2) || '/' || substr(a.sha256, 3) END AS object_path
FROM artifact a;

-- Geometry, binding and tool versions of every run as one (run, kind, key, value) list.
CREATE VIEW run_facts AS
SELECT run_id, 'geometry' AS fact, key, value FROM geometry
UNION ALL SELECT run_id, 'binding', key, value FROM binding
UNION ALL SELECT run_id, 'tool', name, version FROM tool_version;
