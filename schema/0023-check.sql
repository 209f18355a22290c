-- labrun store, migration 23: the checks a recorded command reported ('labrun record', $LABRUN_CHECKS).

-- A check a run's command reported about itself, one row a line of the file $LABRUN_CHECKS named:
-- how many of how many cases held ('exactness' 65536 of 65536). A check passes when passed = total;
-- one that fails does not by itself fail the run, whose status is how its command ended. Names and
-- details are scrubbed of secret values like every text of a run.
CREATE TABLE check_result (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	seq    INTEGER NOT NULL CHECK (seq >= 0), -- 0, 1, ...: the line of $LABRUN_CHECKS it came from, in order
	name   TEXT NOT NULL CHECK (name <> ''), -- what was checked: 'exactness', 'sensitive scan'
	passed INTEGER NOT NULL CHECK (passed >= 0), -- the cases that held
	total  INTEGER NOT NULL CHECK (total >= passed), -- the cases checked
	detail TEXT, -- the command's own words on it ('7 findings in 6 files, all in the baseline'); NULL: none
	PRIMARY KEY (run_id, seq)
);
