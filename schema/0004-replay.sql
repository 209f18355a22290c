-- labrun store, migration 4: what a replay found against the run it re-executed.

-- Per condition and arm of an experiment replay (or per artifact of a record replay): the output
-- hash of the original run against the replay's.
CREATE TABLE replay_check (
	run_id          INTEGER NOT NULL REFERENCES run(id), -- the replay (run.replay_of names the original)
	item            TEXT NOT NULL, -- 'condition 3 arm 1' for experiments; 'exit code' or 'artifact NAME' for records
	original_value  TEXT, -- the original's output sha256 (or exit code), NULL when it had none
	replay_value    TEXT, -- the replay's, NULL when it had none
	matches         INTEGER NOT NULL CHECK (matches IN (0, 1)), -- 1 when equal
	PRIMARY KEY (run_id, item)
);
