-- labrun store, migration 24: a collected pass checked against itself and against its rules
-- (MLPerf LoadGen's validity verdict, TEST06's stream checks; docs/serving.md).

-- What the client checked of each request of a pass: when it was due beside when it was sent, and
-- the stream held against itself. One row a request of collect_request.
CREATE TABLE collect_check (
	set_id          INTEGER NOT NULL, -- the pass
	seq             INTEGER NOT NULL CHECK (seq >= 0), -- the request (collect_request.seq)
	scheduled_ms    REAL NOT NULL CHECK (scheduled_ms >= 0), -- when it was due (its arrival time), after the pass start
	send_lag_ms     REAL, -- sent_ms - scheduled_ms: how late the client sent it; NULL: never sent
	sched_ttft_ms   REAL, -- from the scheduled time to the first token (ttft_ms + send_lag_ms); NULL: none
	sched_e2el_ms   REAL, -- from the scheduled time to the stream's end (e2el_ms + send_lag_ms); NULL: none
	received_tokens INTEGER CHECK (received_tokens IS NULL OR received_tokens >= 0), -- token ids received; NULL: the server sent text only
	finishes        INTEGER NOT NULL CHECK (finishes >= 0), -- events that carried a finish reason (a complete stream has one)
	first_ok        INTEGER CHECK (first_ok IN (0, 1)), -- 1: the event TTFT was timed on carried the output's first token; NULL: no token came
	cut_tokens      TEXT, -- JSON array: the token ids a request that did not complete received before it ended; NULL: completed, or none came
	cut_text        TEXT, -- the text it received; NULL as cut_tokens
	PRIMARY KEY (set_id, seq),
	FOREIGN KEY (set_id, seq) REFERENCES collect_request(set_id, seq)
);

-- A pass's validity rules, as its definition or 'collect --validity' declared them, and its verdict:
-- VALID when every rule held, else INVALID with every failed rule named. Rules always checked: every
-- request sent completed, the concurrency asked was reached (passes without a rate), Little's law
-- holds, and every stream agrees with itself (TEST06).
CREATE TABLE collect_validity (
	set_id         INTEGER PRIMARY KEY REFERENCES collect_pass(set_id), -- the pass
	min_duration_s REAL CHECK (min_duration_s IS NULL OR min_duration_s > 0), -- the pass lasts this long at least; NULL: no rule
	min_requests   INTEGER CHECK (min_requests IS NULL OR min_requests > 0), -- requests sent at least; NULL: no rule
	ttft_limit_ms  REAL CHECK (ttft_limit_ms IS NULL OR ttft_limit_ms > 0), -- TTFT at the percentile at most; NULL: no rule
	tpot_limit_ms  REAL CHECK (tpot_limit_ms IS NULL OR tpot_limit_ms > 0), -- TPOT at the percentile at most; NULL: no rule
	percentile     REAL NOT NULL CHECK (percentile > 0 AND percentile < 100), -- the limits' percentile (99 unless declared)
	convention     TEXT NOT NULL CHECK (convention IN ('nearest-rank', 'linear')), -- nearest-rank: LoadGen's sorted[floor(n p)]; linear: NumPy's
	early_stopping INTEGER NOT NULL CHECK (early_stopping IN (0, 1)), -- 1: LoadGen's early stopping on the TTFT and TPOT limits (confidence 0.99)
	little_n       REAL, -- Little's law: the client's time-weighted requests in flight over the pass
	little_xr      REAL, -- and completion rate x mean latency of the completed requests
	verdict        TEXT NOT NULL CHECK (verdict IN ('VALID', 'INVALID')), -- every rule held, or not
	failed         TEXT -- every failed rule, '; ' between them; NULL: VALID
);

-- A scrape of the server's gauges that failed (--metrics-url): its collect_gauge row holds no value,
-- and the time until the next answer is a gap, never the previous value held.
CREATE TABLE collect_gauge_failure (
	set_id INTEGER NOT NULL, -- the pass
	seq    INTEGER NOT NULL CHECK (seq >= 0), -- the sample (collect_gauge.seq)
	why    TEXT NOT NULL, -- what failed: 'connection refused', 'HTTP 503', ...
	PRIMARY KEY (set_id, seq),
	FOREIGN KEY (set_id, seq) REFERENCES collect_gauge(set_id, seq)
);
