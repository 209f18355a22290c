-- labrun store, migration 20: output past the capture cap.

-- A log a command wrote more of than its cap ('record --max-output', a command experiment's
-- '[design] output_cap'): its first cap_bytes are the stored log, dropped_bytes more were written and
-- not kept. No row: the log is whole.
CREATE TABLE output_dropped (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL CHECK (condition_idx >= -1), -- the execution's condition; -1: the run's own command (record)
	seq           INTEGER NOT NULL CHECK (seq >= -1), -- the execution within it; -1: the run's own command
	stream        TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr')), -- which log
	cap_bytes     INTEGER NOT NULL CHECK (cap_bytes > 0), -- the cap: bytes kept
	dropped_bytes INTEGER NOT NULL CHECK (dropped_bytes > 0), -- bytes written past it
	PRIMARY KEY (run_id, condition_idx, seq, stream)
);
