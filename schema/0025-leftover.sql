-- labrun store, migration 25: what an execution or a recorded command left behind.

-- A process a command left running when it ended: found alive after the command's own process had
-- exited (a command experiment's execution: any descendant, labrun being the subreaper of them all;
-- 'labrun record': a member of the command's process group), then stopped and killed by labrun so the
-- next block starts clean. No row for an execution or a run: it left nothing (the report's cleanup 0).
CREATE TABLE leftover (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL CHECK (condition_idx >= -1), -- the execution's condition; -1: the run's own command (record)
	seq           INTEGER NOT NULL CHECK (seq >= -1), -- the execution within it; -1: the run's own command
	n             INTEGER NOT NULL CHECK (n >= 0), -- 0, 1, ...: the order it was found in
	pid           INTEGER NOT NULL CHECK (pid > 0), -- its process id when found
	argv          TEXT NOT NULL, -- its command line from /proc, arguments joined by spaces, scrubbed of secret values ('' when unreadable)
	PRIMARY KEY (run_id, condition_idx, seq, n)
);
