-- labrun store, migration 26: pre-registered designs. A ledger entry of kind 'design', written
-- before an experiment's first timed block, and the design heads 'labrun run --design-head' wrote.

-- The ledger as migration 10 made it (with migration 11's signature columns), rebuilt because a
-- CHECK constraint cannot be altered in place: its rows, index and triggers are kept exactly; only
-- the kinds it allows grow by 'design'. SQLite has no other way to change a CHECK.
ALTER TABLE ledger RENAME TO ledger_before_design;
-- Written in the transaction that makes a run final ('final'), again whenever rows are added to a
-- final run afterwards ('amend'), and, for an experiment run, once before its first timed block
-- ('design': its content is the digest of the run's design, docs/schema.md). Each entry's digest
-- covers its fields and the previous entry's digest (docs/schema.md gives the canonical form).
CREATE TABLE ledger (
	seq             INTEGER PRIMARY KEY, -- 1, 2, 3, ... without a gap
	run_uuid        TEXT NOT NULL, -- the run (its uuid: ids are not evidence)
	kind            TEXT NOT NULL CHECK (kind IN ('design', 'final', 'amend')), -- design: before the first timed block; final, amend: a seal
	content         TEXT NOT NULL, -- final and amend: the run's seal digest when written; design: the design digest
	prev            TEXT NOT NULL, -- digest of entry seq - 1; 64 zeros for entry 1
	digest          TEXT NOT NULL UNIQUE, -- sha256 of the canonical entry
	appended_at     TEXT NOT NULL, -- when (ISO 8601, UTC)
	key_fingerprint TEXT REFERENCES signing_key(fingerprint), -- the key that signed it; NULL: unsigned
	signature       TEXT -- Ed25519 signature of its digest's 64 hex characters; NULL: unsigned
);
INSERT INTO ledger(seq, run_uuid, kind, content, prev, digest, appended_at, key_fingerprint, signature)
SELECT seq, run_uuid, kind, content, prev, digest, appended_at, key_fingerprint, signature
FROM ledger_before_design ORDER BY seq;
DROP TABLE ledger_before_design;
CREATE INDEX ledger_run ON ledger(run_uuid);
CREATE TRIGGER ledger_append_only_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_append_only_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;

-- A signed design head an experiment run wrote before its first timed block ('labrun run
-- --design-head FILE'): the ledger head statement up to the run's design entry, written to a file
-- and fsynced, so that someone else may hold it before the data exists. A run that wrote none has
-- no row.
CREATE TABLE design_head (
	run_id     INTEGER PRIMARY KEY REFERENCES run(id), -- the run (kind 'experiment')
	path       TEXT NOT NULL, -- the file given to --design-head, as an absolute path
	sha256     TEXT NOT NULL, -- sha256 of the envelope written there
	ledger_seq INTEGER NOT NULL, -- the head's entry: the run's design entry
	written_at TEXT NOT NULL -- when it was written and fsynced (ISO 8601, UTC), before the first timed block
);
