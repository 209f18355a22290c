-- labrun remote (PostgreSQL), migration 1: runs pushed from many hosts, and their objects.
-- A remote holds each run as the bundle its host pushed: every row of the run in the form its own
-- store keeps it (docs/schema.md, "Run bundles"), byte for byte, with the run's seal and ledger
-- entries. Nothing here is ever updated or deleted by labrun: a writer role needs SELECT and
-- INSERT only (docs/remote.md gives the roles).

-- Which migrations of schema/pg/ this database has; labrun refuses a remote newer than itself.
CREATE TABLE labrun_migration (
	version    integer PRIMARY KEY, -- NNNN of schema/pg/NNNN-*.sql
	name       text NOT NULL, -- the file name without .sql
	applied_at timestamptz NOT NULL DEFAULT now() -- when 'labrun remote init' applied it
);

-- Content-addressed files; a row exists only once all its chunks are in (one transaction).
CREATE TABLE object (
	sha256    text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'), -- sha256 of the content
	size      bigint NOT NULL CHECK (size >= 0), -- bytes
	pushed_at timestamptz NOT NULL DEFAULT now() -- when the first push brought it
);

-- An object's bytes in order, at most 1 MiB a chunk, so no side ever holds a whole object.
CREATE TABLE object_chunk (
	sha256 text NOT NULL REFERENCES object(sha256), -- the object
	seq    integer NOT NULL CHECK (seq >= 0), -- 0, 1, 2, ...
	data   bytea NOT NULL, -- the bytes
	PRIMARY KEY (sha256, seq)
);

-- One row per run, written with all of the run's other rows in one transaction.
CREATE TABLE run (
	uuid          text PRIMARY KEY, -- the run's uuid, the same in every store
	bundle_sha256 text NOT NULL, -- sha256 of 'bundle': the same uuid with other content is refused
	bundle        text NOT NULL, -- the run's rows, seal and ledger entries (compact JSON; query it as bundle::jsonb)
	kind          text NOT NULL, -- run.kind
	status        text NOT NULL, -- run.status (never 'running': only final runs are pushed)
	hostname      text NOT NULL, -- the host the run was recorded on
	started_at    text NOT NULL, -- run.started_at
	seal_digest   text NOT NULL, -- the run's seal (run_seal.digest) when it was pushed
	pushed_by     text NOT NULL DEFAULT current_user, -- the database role that pushed it
	pushed_from   text NOT NULL, -- the host labrun pushed from
	pushed_at     timestamptz NOT NULL DEFAULT now() -- when
);
CREATE INDEX run_hostname ON run(hostname);

-- The issues a run is evidence for, as in the local store (normalised references).
CREATE TABLE run_issue (
	uuid      text NOT NULL REFERENCES run(uuid), -- the run
	issue_ref text NOT NULL, -- '270' or 'owner/repo#827'
	PRIMARY KEY (uuid, issue_ref)
);
CREATE INDEX run_issue_ref ON run_issue(issue_ref);

-- The objects a run's rows name: all on the remote before the run row is written.
CREATE TABLE run_object (
	uuid   text NOT NULL REFERENCES run(uuid), -- the run
	sha256 text NOT NULL REFERENCES object(sha256), -- an object it names
	PRIMARY KEY (uuid, sha256)
);
