-- labrun store, migration 8: command experiments (the team's own harnesses in the paired design)
-- and serving evidence: response sets per route, their comparisons, and frozen quality gates.

-- The command an arm of a command experiment runs (target = command); arm.kernel is 'command'.
CREATE TABLE arm_command (
	run_id    INTEGER NOT NULL REFERENCES run(id), -- the run
	arm_idx   INTEGER NOT NULL, -- arm.idx
	command   TEXT NOT NULL, -- the argv template as written, placeholders unexpanded
	cwd       TEXT, -- working directory template, NULL: the directory labrun ran in
	timeout_s REAL, -- seconds before an execution is stopped, NULL: none
	env_json  TEXT NOT NULL, -- {"NAME": "value template", ...} set for every execution
	outputs   TEXT, -- declared output paths relative to {outdir}, space-separated, NULL: none
	responses TEXT, -- path of the responses file relative to {outdir}, NULL: none
	route     TEXT NOT NULL, -- the route its responses are ingested under (default: the arm's name)
	PRIMARY KEY (run_id, arm_idx)
);

-- The grid values of a condition of a command experiment (condition.model is '' there).
CREATE TABLE condition_param (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL, -- condition.idx
	key           TEXT NOT NULL, -- the [grid] key
	value         TEXT NOT NULL, -- its value in this condition
	position      INTEGER NOT NULL, -- the key's place in the [grid] section, from 0
	PRIMARY KEY (run_id, condition_idx, key)
);

-- Every execution of a command experiment: the untimed parity execution of each arm (seq < narms,
-- block and slot NULL), then the timed and warm-up repetitions in order.
CREATE TABLE execution (
	run_id         INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx  INTEGER NOT NULL, -- condition.idx
	seq            INTEGER NOT NULL, -- order of execution within the condition, from 0
	arm_idx        INTEGER NOT NULL, -- arm.idx
	block          INTEGER, -- repetition.block, NULL for a parity execution
	slot           INTEGER, -- repetition.slot, NULL for a parity execution
	argv_json      TEXT NOT NULL, -- the command as executed, placeholders expanded (JSON array)
	exit_code      INTEGER, -- exit status, NULL when killed by a signal or never started
	signal         INTEGER, -- the signal that ended it, or NULL
	timed_out      INTEGER NOT NULL CHECK (timed_out IN (0, 1)), -- 1 when the arm's timeout stopped it
	wall_s         REAL NOT NULL, -- wall-clock seconds from start to exit (CLOCK_MONOTONIC)
	user_s         REAL NOT NULL, -- user CPU seconds of the command (wait4)
	sys_s          REAL NOT NULL, -- system CPU seconds of the command (wait4)
	peak_rss_kib   INTEGER NOT NULL, -- peak resident set size of the command, KiB
	stdout_sha256  TEXT, -- its standard output, an object in objects/
	stderr_sha256  TEXT, -- its standard error, an object in objects/
	outputs_sha256 TEXT, -- digest of its declared outputs (parity), NULL when one is missing or none are declared
	failure        TEXT, -- why it failed (exit status, timeout, missing output), NULL when it passed
	PRIMARY KEY (run_id, condition_idx, seq)
);

-- Each declared output of an execution, stored as an object.
CREATE TABLE execution_output (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL, -- execution.condition_idx
	seq           INTEGER NOT NULL, -- execution.seq
	path          TEXT NOT NULL, -- the declared path, relative to {outdir}
	sha256        TEXT, -- the file's content, an object in objects/; NULL when it was missing
	size          INTEGER, -- bytes, NULL when missing
	PRIMARY KEY (run_id, condition_idx, seq, path)
);

-- Metrics an execution reported through $LABRUN_METRICS (one JSON object a line).
CREATE TABLE metric (
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run
	condition_idx INTEGER NOT NULL, -- execution.condition_idx
	seq           INTEGER NOT NULL, -- execution.seq
	name          TEXT NOT NULL, -- e.g. 'throughput'
	value         REAL NOT NULL, -- the value, in 'unit'
	unit          TEXT NOT NULL, -- e.g. 'tok/s' ('' when not given)
	better        TEXT NOT NULL CHECK (better IN ('lower', 'higher')), -- which direction is an improvement
	PRIMARY KEY (run_id, condition_idx, seq, name)
);

-- A set of responses of one route: a file given to 'labrun ingest responses', or the responses
-- file of one execution of a command experiment.
CREATE TABLE response_set (
	id            INTEGER PRIMARY KEY, -- set id
	run_id        INTEGER NOT NULL REFERENCES run(id), -- the run it is evidence of
	route         TEXT NOT NULL, -- e.g. 'native-gpu', 'rngd-atom'
	condition_idx INTEGER, -- condition of a command experiment, NULL when ingested by hand
	seq           INTEGER, -- execution.seq that wrote it, NULL when ingested by hand
	source        TEXT NOT NULL, -- the file as named when ingested
	raw_sha256    TEXT NOT NULL, -- the file byte for byte (unknown fields kept), an object in objects/
	cases         INTEGER NOT NULL, -- responses in it
	ingested_at   TEXT NOT NULL -- when
);
CREATE INDEX response_set_run ON response_set(run_id, route);

-- One response: a line of a responses file.
CREATE TABLE response (
	set_id        INTEGER NOT NULL REFERENCES response_set(id), -- the set
	case_id       TEXT NOT NULL, -- the case it answers
	line          INTEGER NOT NULL, -- line in the file, from 1
	tokens        TEXT NOT NULL, -- token ids as a compact JSON array, e.g. '[151644,872]'
	ntokens       INTEGER NOT NULL, -- length of 'tokens'
	text          TEXT NOT NULL, -- the decoded text
	finish_reason TEXT NOT NULL, -- 'stop' is EOS; 'length' or others are not
	latency_ms    REAL, -- end-to-end latency, NULL when not given
	ttft_ms       REAL, -- time to first token, NULL when not given
	input_tokens  INTEGER, -- prompt tokens, NULL when not given
	output_tokens INTEGER, -- generated tokens, NULL when not given
	lane          INTEGER, -- device lane that served it, NULL when not given
	model         TEXT, -- model name, NULL when not given
	PRIMARY KEY (set_id, case_id)
);

-- A comparison of two response sets case by case: 'within-route' (a command experiment's repeated
-- execution against the route's first) or 'cross-route' ('labrun compare').
CREATE TABLE comparison (
	id               INTEGER PRIMARY KEY, -- comparison id
	run_id           INTEGER NOT NULL REFERENCES run(id), -- the run of the candidate set
	kind             TEXT NOT NULL CHECK (kind IN ('within-route', 'cross-route')), -- see above
	reference_set_id INTEGER NOT NULL REFERENCES response_set(id), -- the reference (may be another run's)
	candidate_set_id INTEGER NOT NULL REFERENCES response_set(id), -- the candidate
	compared_at      TEXT NOT NULL -- when
);

-- One case of a comparison. Exact means tokens_equal and text_equal.
CREATE TABLE comparison_case (
	comparison_id    INTEGER NOT NULL REFERENCES comparison(id), -- the comparison
	case_id          TEXT NOT NULL, -- the case
	missing          TEXT CHECK (missing IN ('reference', 'candidate')), -- the side without this case, NULL when both have it
	tokens_equal     INTEGER CHECK (tokens_equal IN (0, 1)), -- token arrays equal; NULL when missing
	first_token_diff INTEGER, -- first differing position (the shorter length when one is a prefix), NULL when equal or missing
	text_equal       INTEGER CHECK (text_equal IN (0, 1)), -- texts equal; NULL when missing
	finish_equal     INTEGER CHECK (finish_equal IN (0, 1)), -- finish reasons equal; NULL when missing
	PRIMARY KEY (comparison_id, case_id)
);

-- A frozen quality gate applied to a response set ('labrun gate').
CREATE TABLE gate (
	id         INTEGER PRIMARY KEY, -- gate id
	run_id     INTEGER NOT NULL REFERENCES run(id), -- the run of the set
	set_id     INTEGER NOT NULL REFERENCES response_set(id), -- the responses scored
	key_path   TEXT NOT NULL, -- the answer key as named
	key_sha256 TEXT NOT NULL, -- the answer key byte for byte, an object in objects/: a changed key is visible
	scored_at  TEXT NOT NULL -- when
);

-- One case of a gate. No normalisation: format and answer are judged on the text as returned.
CREATE TABLE gate_case (
	gate_id   INTEGER NOT NULL REFERENCES gate(id), -- the gate
	case_id   TEXT NOT NULL, -- a case of the key
	missing   INTEGER NOT NULL CHECK (missing IN (0, 1)), -- 1 when the set has no response for it
	format_ok INTEGER NOT NULL CHECK (format_ok IN (0, 1)), -- the trimmed text is one JSON object with exactly the key's keys
	answer_ok INTEGER NOT NULL CHECK (answer_ok IN (0, 1)), -- strict: format_ok and its 'answer' member equals the key's (JSON equality)
	eos       INTEGER NOT NULL CHECK (eos IN (0, 1)), -- finish_reason is 'stop'
	PRIMARY KEY (gate_id, case_id)
);

-- Counts of each comparison, as 'labrun compare' prints them.
CREATE VIEW comparison_summary AS
SELECT c.id AS comparison_id, c.run_id, c.kind, r.route AS reference_route, r.run_id AS reference_run,
       k.route AS candidate_route, k.condition_idx,
       sum(x.missing IS NULL AND x.tokens_equal AND x.text_equal) AS exact,
       sum(x.tokens_equal = 0) AS token_mismatch,
       sum(x.text_equal = 0) AS text_mismatch,
       sum(x.finish_equal = 0) AS finish_mismatch,
       sum(x.missing IS NOT NULL) AS missing,
       count(x.case_id) AS total
FROM comparison c
JOIN response_set r ON r.id = c.reference_set_id
JOIN response_set k ON k.id = c.candidate_set_id
LEFT JOIN comparison_case x ON x.comparison_id = c.id
GROUP BY c.id;

-- Scores of each gate, as 'labrun gate' prints them.
CREATE VIEW gate_summary AS
SELECT g.id AS gate_id, g.run_id, s.route, s.condition_idx, g.key_sha256,
       sum(x.answer_ok) AS strict_answers, sum(x.format_ok) AS formats, sum(x.eos) AS eos,
       sum(x.missing) AS missing, count(x.case_id) AS total
FROM gate g
JOIN response_set s ON s.id = g.set_id
LEFT JOIN gate_case x ON x.gate_id = g.id
GROUP BY g.id;
