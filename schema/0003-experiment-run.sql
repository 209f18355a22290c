-- labrun store, migration 3: experiment runs (labrun run): their definition, arms, conditions,
-- parity checks and every timed repetition. Summaries are always recomputed from these rows.

-- The definition an experiment run executed, verbatim (replay uses this text, not today's file).
CREATE TABLE run_definition (
	run_id INTEGER PRIMARY KEY REFERENCES run(id), -- the run (kind 'experiment')
	path   TEXT NOT NULL, -- the file as given on the command line
	sha256 TEXT NOT NULL, -- sha256 of 'text'
	text   TEXT NOT NULL -- the definition as read
);

-- The arms of an experiment run; arm 0 is the baseline.
CREATE TABLE arm (
	run_id   INTEGER NOT NULL REFERENCES run(id), -- the run
	idx      INTEGER NOT NULL, -- position in the definition, 0 = baseline
	name     TEXT NOT NULL, -- [arm NAME]
	kernel   TEXT NOT NULL, -- encoder kernel actually used (auto resolved)
	contract TEXT NOT NULL, -- saturate or ninf
	layout   TEXT NOT NULL, -- import: strided or copy
	mode     TEXT NOT NULL, -- import: whole or stream
	threads  INTEGER NOT NULL, -- encoder threads
	PRIMARY KEY (run_id, idx)
);

-- The conditions (grid points) of an experiment run, with their outcome.
CREATE TABLE condition (
	run_id   INTEGER NOT NULL REFERENCES run(id), -- the run
	idx      INTEGER NOT NULL, -- position in grid order
	model    TEXT NOT NULL, -- preset
	layers   INTEGER NOT NULL, -- layers used (the model's first N)
	kv_heads INTEGER NOT NULL, -- KV heads of the model
	head_dim INTEGER NOT NULL, -- head_dim of the model
	tokens   INTEGER NOT NULL, -- tokens
	elements INTEGER NOT NULL, -- BF16 elements of the input, layers x 2 x kv_heads x tokens x head_dim
	inner    INTEGER NOT NULL, -- executions per timed repetition (so each lasts >= 1 ms)
	status   TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'missing')), -- failed: parity or an error; missing: never measured (cancelled before it)
	failure  TEXT, -- why failed or missing
	PRIMARY KEY (run_id, idx)
);

-- One parity check per condition and arm: the arm's output hash against the baseline's.
CREATE TABLE parity (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL, -- condition.idx
	arm_idx       INTEGER NOT NULL, -- arm.idx
	output_sha256 TEXT NOT NULL, -- sha256 of the arm's output (encoded array, or device state)
	matches       INTEGER NOT NULL CHECK (matches IN (0, 1)), -- 1 when equal to the baseline's output
	PRIMARY KEY (run_id, condition_idx, arm_idx)
);

-- Every timed repetition, warm-up ones included.
CREATE TABLE repetition (
	run_id         INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx  INTEGER NOT NULL, -- condition.idx
	block          INTEGER NOT NULL, -- block number from 0, warm-up blocks first
	slot           INTEGER NOT NULL, -- position inside the block (ABBA: 0..3)
	arm_idx        INTEGER NOT NULL, -- arm.idx that ran in this slot
	warmup         INTEGER NOT NULL CHECK (warmup IN (0, 1)), -- 1 for warm-up blocks: stored, never summarised
	wall_s         REAL NOT NULL, -- wall time of the repetition (CLOCK_MONOTONIC), 'inner' executions
	cpu_s          REAL NOT NULL, -- CPU time: the timing thread's (encode), the process's (import runs on threads)
	invol_switches INTEGER NOT NULL, -- involuntary context switches of the timing thread (getrusage)
	steal_ticks    INTEGER NOT NULL, -- steal ticks of the machine during the repetition (/proc/stat)
	interfered     INTEGER NOT NULL CHECK (interfered IN (0, 1)), -- encode: wall/cpu > 1.05 or a switch; import: steal ticks
	PRIMARY KEY (run_id, condition_idx, block, slot)
);
