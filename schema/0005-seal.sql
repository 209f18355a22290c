-- labrun store, migration 5: seals that make a run's stored rows tamper-evident.

-- Written in the same transaction that makes a run final (and again when a replay adds its checks):
-- the sha256 of each table's rows for the run, and of all of them together. 'labrun audit'
-- recomputes them and names any table whose rows changed afterwards.
CREATE TABLE run_seal (
	run_id    INTEGER PRIMARY KEY REFERENCES run(id), -- the run
	digest    TEXT NOT NULL, -- sha256 of 'tables'
	tables    TEXT NOT NULL, -- JSON object: table name -> sha256 of the run's rows in it
	sealed_at TEXT NOT NULL -- when the seal was written
);
