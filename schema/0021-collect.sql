-- labrun store, migration 21: serving evidence labrun collected itself ('labrun collect').

-- One pass of a cases file against one route: the response set it stored (every completed case;
-- possibly none), where it was sent, how, and the server's identity. Keyed by its set.
CREATE TABLE collect_pass (
	set_id      INTEGER PRIMARY KEY REFERENCES response_set(id), -- the pass's responses
	endpoint    TEXT NOT NULL, -- the URL each request was POSTed to
	api         TEXT NOT NULL CHECK (api IN ('completions', 'chat')), -- /v1/completions or /v1/chat/completions
	model       TEXT, -- the model asked for; NULL: none named
	concurrency INTEGER NOT NULL CHECK (concurrency >= 1), -- requests in flight at most
	rate        REAL CHECK (rate IS NULL OR rate > 0), -- requests per second; NULL: all at once
	burstiness  REAL CHECK (burstiness IS NULL OR burstiness > 0), -- the gamma shape of the gaps (1: Poisson)
	seed        INTEGER, -- of the arrival times and of the server's sampling
	server      TEXT, -- the Server header of GET <endpoint base>/models; NULL: none
	models      TEXT, -- that response's body as served (JSON); NULL: it failed
	duration_s  REAL NOT NULL CHECK (duration_s >= 0), -- from the first request to the last end
	metrics_url TEXT, -- the server's Prometheus gauges sampled during the pass (collect_gauge); NULL: none
	slo_ttft_ms REAL CHECK (slo_ttft_ms IS NULL OR slo_ttft_ms > 0), -- goodput's SLOs, as vLLM's bench serve takes them;
	slo_tpot_ms REAL CHECK (slo_tpot_ms IS NULL OR slo_tpot_ms > 0), -- NULL: not part of it
	slo_e2el_ms REAL CHECK (slo_e2el_ms IS NULL OR slo_e2el_ms > 0),
	cancelled   INTEGER NOT NULL CHECK (cancelled IN (0, 1)) -- 1: Ctrl-C ended it; unsent and unfinished requests say so
);

-- Every request of a pass, completed or not: a failure is a row, never a crash.
CREATE TABLE collect_request (
	set_id            INTEGER NOT NULL REFERENCES collect_pass(set_id), -- the pass
	seq               INTEGER NOT NULL CHECK (seq >= 0), -- its case's position in the cases file
	case_id           TEXT NOT NULL, -- the case
	body              TEXT NOT NULL, -- the request's JSON body, as sent
	sent_ms           REAL, -- when it was sent, after the pass start; NULL: never sent
	end_ms            REAL, -- when it ended
	status            INTEGER, -- HTTP status; NULL when none came
	failure           TEXT, -- NULL: a complete stream, stored as a response; else why not
	ttft_ms           REAL, -- sent to first content event
	e2el_ms           REAL, -- sent to the stream's end
	itl_ms            TEXT, -- JSON array: the gaps between successive content events
	token_source      TEXT CHECK (token_source IN ('token_ids', 'logprobs', 'tokens', 'text')), -- where the ids came from; 'text': none sent
	prompt_tokens     INTEGER, -- usage, as the server reported it
	completion_tokens INTEGER,
	inflight          INTEGER, -- requests in flight when it was sent, itself included
	PRIMARY KEY (set_id, seq)
);

-- The server's own gauges during a pass (--metrics-url): requests running and waiting, as its
-- Prometheus text said (each the sum over its label sets), at the time of each answer.
CREATE TABLE collect_gauge (
	set_id  INTEGER NOT NULL REFERENCES collect_pass(set_id), -- the pass
	seq     INTEGER NOT NULL CHECK (seq >= 0), -- the sample's number, in time order
	t_ms    REAL NOT NULL, -- after the pass start
	running REAL, -- the running gauge; NULL: not in the answer
	waiting REAL, -- the waiting gauge; NULL: not in the answer
	PRIMARY KEY (set_id, seq)
);
