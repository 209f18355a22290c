-- labrun store, migration 10: the run ledger, an append-only hash chain.

-- Written in the transaction that makes a run final ('final'), and again whenever rows are added
-- to a final run afterwards (a replay's checks, ingested responses, comparisons, gates: 'amend').
-- Each entry's digest covers its fields and the previous entry's digest (docs/schema.md gives the
-- canonical form), so editing, deleting or reordering any run before a published head
-- (SEQ:DIGEST, printed by 'labrun audit') is found by 'labrun audit --head SEQ:DIGEST'.
CREATE TABLE ledger (
	seq         INTEGER PRIMARY KEY, -- 1, 2, 3, ... without a gap
	run_uuid    TEXT NOT NULL, -- the run (its uuid: ids are not evidence)
	kind        TEXT NOT NULL CHECK (kind IN ('final', 'amend')),
	content     TEXT NOT NULL, -- the run's seal digest when the entry was written
	prev        TEXT NOT NULL, -- digest of entry seq - 1; 64 zeros for entry 1
	digest      TEXT NOT NULL UNIQUE, -- sha256 of the canonical entry
	appended_at TEXT NOT NULL -- when (ISO 8601, UTC)
);
CREATE INDEX ledger_run ON ledger(run_uuid);
CREATE TRIGGER ledger_append_only_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_append_only_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
