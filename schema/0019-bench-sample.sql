-- labrun store, migration 19: a benchmark's samples as typed rows.

-- What 'labrun bench' measured, one row a sample: what it measured (a shape, a store scale, an
-- import mode), by which variant, which repetition. Before this migration a bench run stored each
-- sample as a measurement whose name carried all three ('[28,2,8,8192,128] encode: avx512 rep 3');
-- those runs keep their rows (their seals cover them) and are read from the names, as before.
CREATE TABLE bench_sample (
	run_id  INTEGER NOT NULL REFERENCES run(id), -- the run (kind 'bench')
	seq     INTEGER NOT NULL CHECK (seq >= 0), -- 0, 1, ...: the order the benchmark took them
	subject TEXT NOT NULL, -- what was measured: a shape '28,2,8,8192,128', a scale '100000', a mode 'whole, strided'
	variant TEXT NOT NULL, -- by what: 'encode: avx512', 'report', 'import', 'push'
	rep     INTEGER NOT NULL CHECK (rep >= 0), -- the repetition; 0 is the warm-up where the benchmark has one
	value   REAL NOT NULL, -- the value, in 'unit'
	unit    TEXT NOT NULL, -- 's', 'runs', 'KiB' or 'bytes'
	PRIMARY KEY (run_id, seq),
	UNIQUE (run_id, subject, variant, unit, rep)
);
