-- labrun store, migration 27: where a run ran and with what: tool probes, labrun's own identity, what a serving engine said of itself.

-- A tool version found by a probe ([record] probe.NAME = COMMAND in an experiment definition): the
-- command, run once by /bin/sh -c before the run started, and what it printed. The version itself
-- (its first non-blank line) is the tool_version row of the same name.
CREATE TABLE tool_probe (
	run_id  INTEGER NOT NULL REFERENCES run(id), -- the run
	name    TEXT NOT NULL, -- the tool, as in tool_version
	command TEXT NOT NULL, -- the command that was run
	output  TEXT NOT NULL, -- its stdout and stderr together, scrubbed, at most 4096 bytes
	PRIMARY KEY (run_id, name)
);

-- The labrun that recorded a run, as LoadGen fingerprints itself: its binary's sha256 and size
-- (hashed through file_hash_cache, so once per binary) and the build options compiled in.
CREATE TABLE recorder (
	run_id INTEGER NOT NULL REFERENCES run(id), -- the run
	key    TEXT NOT NULL, -- 'binary_sha256', 'binary_size', 'configure' (its options), 'cc', 'cflags'
	value  TEXT NOT NULL, -- as text ('' for no configure options)
	PRIMARY KEY (run_id, key)
);

-- What a serving engine said of itself when a pass asked, beside collect_pass.models: vLLM's
-- GET /version, llama-server's GET /props. A path it did not answer with JSON has no row.
CREATE TABLE collect_identity (
	set_id INTEGER NOT NULL REFERENCES response_set(id), -- the pass (its response set)
	path   TEXT NOT NULL, -- what was asked: '/version', '/props' (from the endpoint's host)
	body   TEXT NOT NULL, -- the JSON answer as served (at most 1 MiB)
	PRIMARY KEY (set_id, path)
);
