-- labrun store, migration 2: measured (and modelled) values of a run.

-- Figures a run produced itself, e.g. the stages of 'labrun import'. Modelled values (a simulated
-- link's DMA time) are marked as such and never mixed with measurements.
CREATE TABLE measurement (
	run_id   INTEGER NOT NULL REFERENCES run(id), -- the run
	name     TEXT NOT NULL, -- what: 'source_s', 'encode_s', 'write_s', 'import_s', 'readback_s', 'copy_ceiling_s', 'dma_modelled_s', 'bytes', 'writes'...
	value    REAL NOT NULL, -- the value, in 'unit'
	unit     TEXT NOT NULL, -- 's', 'bytes' or 'count'
	modelled INTEGER NOT NULL DEFAULT 0 CHECK (modelled IN (0, 1)), -- 1 when computed from a model, not measured
	PRIMARY KEY (run_id, name)
);
