-- labrun store, migration 16: remotes (shared PostgreSQL stores) and the runs pulled from them.

-- A remote as added with 'labrun remote add': a libpq connection string or URI, never a password
-- (libpq finds those in ~/.pgpass, PGPASSWORD or a service file).
CREATE TABLE remote (
	name     TEXT PRIMARY KEY, -- the name commands take, e.g. 'lab'
	uri      TEXT NOT NULL, -- 'postgresql://db.lab/evidence' or 'host=... dbname=...'
	added_at TEXT NOT NULL -- when (ISO 8601, UTC)
);

-- A run that came from a remote: the bundle exactly as its host pushed it. Its rows were inserted
-- with this store's ids, sealed and entered in this store's ledger when it arrived; the bundle
-- keeps the origin's seal and signed ledger entries, which 'labrun audit' checks too, and is what
-- a later push of this run sends on.
CREATE TABLE pulled_run (
	run_id        INTEGER PRIMARY KEY REFERENCES run(id), -- the run here
	remote        TEXT NOT NULL, -- the remote's name when it was pulled
	bundle_sha256 TEXT NOT NULL, -- sha256 of 'bundle'
	bundle        TEXT NOT NULL, -- the run's rows, seal and ledger entries from its origin store
	pushed_by     TEXT, -- who pushed it to the remote (the database role)
	pushed_from   TEXT, -- from which host
	pulled_at     TEXT NOT NULL -- when (ISO 8601, UTC)
);

-- Objects pulled with --objects lazy: known here (an 'object' row), fetched from the remote the
-- first time something reads them.
CREATE TABLE remote_object (
	sha256 TEXT PRIMARY KEY REFERENCES object(sha256), -- the object
	remote TEXT NOT NULL -- the remote to fetch it from
);
