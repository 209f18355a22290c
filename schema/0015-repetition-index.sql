-- labrun store, migration 15: reading an arm's times without visiting the table.

-- A report reads, per condition and arm, the timed repetitions in block order; with a million
-- repetitions the primary key (run, condition, block, slot) made it visit every row of the
-- condition, once per arm, and look each one up in the table. This index holds what the report
-- and the flagged count read, in the order they read it.
CREATE INDEX repetition_by_arm ON repetition(run_id, condition_idx, arm_idx, warmup, block, slot, wall_s,
	interfered);
