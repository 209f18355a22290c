-- labrun store, migration 18: an experiment run's design as a row, beside its verbatim definition.

-- What report, diff and replay read of a stored experiment run: its design as it was run, so that
-- a stored run is never read again through a later version of the definition parser. Runs stored
-- before this migration have no row (their seals cover what they had); they are read from their
-- stored definition, as before.
CREATE TABLE run_design (
	run_id      INTEGER PRIMARY KEY REFERENCES run(id), -- the run (kind 'experiment')
	name        TEXT NOT NULL, -- [experiment] name
	title       TEXT NOT NULL, -- [experiment] title, '' when none
	target      TEXT NOT NULL CHECK (target IN ('encode', 'import', 'command')), -- what the arms run
	backend     TEXT NOT NULL, -- sim or atom
	block_order TEXT NOT NULL CHECK (block_order IN ('abba', 'random')), -- [design] order
	blocks      INTEGER NOT NULL, -- timed blocks
	warmup      INTEGER NOT NULL, -- warm-up blocks, run first
	margin      REAL NOT NULL, -- practical margin, 0.02 for 2%
	seed        INTEGER NOT NULL, -- [experiment] seed (random order, synthetic inputs)
	metric      TEXT NOT NULL -- command experiments: the primary metric; '' for wall time
);
