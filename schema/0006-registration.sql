-- labrun store, migration 6: registrations of crates with a research hub.

-- A crate (labrun manifest) recorded as registered with a hub. labrun records the registration; it
-- does not upload anything.
CREATE TABLE registration (
	id              INTEGER PRIMARY KEY, -- short id
	hub             TEXT NOT NULL, -- the hub's name as given with --hub
	crate_path      TEXT NOT NULL, -- absolute path of the crate directory when it was registered
	manifest_sha256 TEXT NOT NULL, -- sha256 of the crate's ro-crate-metadata.json
	registered_at   TEXT NOT NULL -- when
);

-- The runs a registered crate describes (its CreateActions, matched by run uuid).
CREATE TABLE registration_run (
	registration_id INTEGER NOT NULL REFERENCES registration(id), -- the registration
	run_id          INTEGER NOT NULL REFERENCES run(id), -- a run described by the crate
	PRIMARY KEY (registration_id, run_id)
);
