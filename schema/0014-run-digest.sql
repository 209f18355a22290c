-- labrun store, migration 14: digests a run produced that are not files.

-- An import's device state (the sha256 of every tensor of the lane read back, in layout order)
-- is what two imports must agree on; 'labrun diff' compares these rows.
CREATE TABLE run_digest (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	name   TEXT NOT NULL, -- 'device_state' for an import
	sha256 TEXT NOT NULL, -- the digest
	PRIMARY KEY (run_id, name)
);
