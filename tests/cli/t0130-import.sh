#!/bin/sh
# labrun import: every combination gives the same device state, the run is
# recorded with geometry, binding and measurements, faults leave a failed or
# cancelled run, bad geometry is refused before anything is written, and the
# atom backend runs against the shim or fails cleanly without a library.
. "$(dirname "$0")/lib.sh"

for m in whole stream; do
	for l in strided copy; do
		expect_exit 0 "import $m/$l" "$LABRUN" import --model gemma3-1b --tokens 600 --block-size 256 --mode $m --layout $l --specials
		contains "$T/out" "device state matches the expectation" "$m/$l: readback verified"
		sed -n 's/.*device state tree hash (sha256, 1 MiB leaves) \([0-9a-f]*\).*/\1/p' "$T/out" >>"$T/hashes"
	done
done
equals "$(sort -u "$T/hashes" | wc -l)" "1" "all four give one device state"
equals "$(q "SELECT count(*) FROM run WHERE kind = 'import' AND status = 'passed'")" "4" "four passed import runs"
equals "$(q "SELECT count(*) FROM run r JOIN measurement m ON m.run_id = r.id AND m.name = 'import_s'
	WHERE r.kind = 'import' AND r.wall_s > m.value AND r.user_s > 0 AND r.peak_rss_kib > 1000")" "4" \
	"import runs store their real wall (the whole run, beyond the import), user time and peak RSS"
equals "$(q "SELECT value FROM geometry WHERE run_id = 1 AND key = 'window'")" "512" "geometry recorded"
equals "$(q "SELECT value FROM binding WHERE run_id = 4 AND key = 'layout'")" "copy" "binding recorded"
equals "$(q "SELECT count(*) FROM measurement WHERE run_id = 1 AND name IN ('encode_s', 'write_s', 'import_s', 'readback_s') AND modelled = 0")" \
	"4" "stage timings recorded as measured"

expect_exit 0 "an .npy export (NumPy-written fixture, head-major)" "$LABRUN" import --model custom --layers 2 \
	--kv-heads 4 --head-dim 64 --source "$TOP_SRCDIR/tests/fixtures/npy/all-patterns.npy" --export head --block-size 16
contains "$T/out" "device state matches the expectation" ".npy import verified"

# the device-state digest recomputed apart from labrun (examples/treehash.py, Python's hashlib only):
# one block, no padding, head-major, so the lane holds what 'labrun encode' writes of the export;
# 4.5 MiB is four whole leaves and a short one, an odd count
python3 "$TOP_SRCDIR/tests/cli/make-bf16-npy.py" tree.npy 7 6,2,4,760,64
expect_exit 0 "encode the export" "$LABRUN" encode tree.npy tree.raw
expect_exit 0 "import the export" "$LABRUN" import --model custom --layers 6 --kv-heads 4 --head-dim 64 --source tree.npy \
	--export head
equals "$(q "SELECT sha256 FROM run_digest WHERE run_id = (SELECT max(id) FROM run) AND name = 'device_state_tree'")" \
	"$(python3 "$TOP_SRCDIR/examples/treehash.py" tree.raw | cut -d' ' -f1)" \
	"the stored device_state_tree is the tree hash an independent script computes of the encoded bytes"
for n in 0 1 1048575 1048576 1048577 3145728; do # the edges of the definition, against hashlib by hand
	head -c $n tree.raw >edge.bin
	equals "$(python3 "$TOP_SRCDIR/examples/treehash.py" edge.bin | cut -d' ' -f1)" "$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
L = [hashlib.sha256(d[i:i + 1048576]).digest() for i in range(0, len(d), 1048576)] or [hashlib.sha256(b"").digest()]
while len(L) > 1:
    L = [hashlib.sha256(L[i] + L[i + 1]).digest() if i + 1 < len(L) else L[i] for i in range(0, len(L), 2)]
print(L[0].hex())' edge.bin)" "the script at $n bytes"
done

# the same export imported again by a device that keeps its memory: the same state each time, the
# first import (first touch) and the steady state measured apart
one=$(q "SELECT sha256 FROM run_digest WHERE run_id = (SELECT max(id) FROM run) AND name = 'device_state_tree'")
expect_exit 0 "import the export 4 times in one process" "$LABRUN" import --model custom --layers 6 --kv-heads 4 \
	--head-dim 64 --source tree.npy --export head --repeat 4
contains "$T/out" "4 imports of the same export in this process, the device keeping its memory, simulated device" \
	"says what was repeated, and that the device is simulated"
contains "$T/out" "steady cycle" "prints the steady state"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT sha256 FROM run_digest WHERE run_id = $id AND name = 'device_state_tree'")" "$one" \
	"every import left the state a single import leaves (each is checked against the first)"
equals "$(q "SELECT value FROM measurement WHERE run_id = $id AND name = 'imports'")" "4" "4 imports, all verified"
equals "$(q "SELECT count(*) FROM measurement WHERE run_id = $id AND modelled = 0 AND value > 0 AND name IN
	('cycle_s', 'steady_cycle_s', 'steady_lease_s', 'steady_import_s', 'steady_readback_s')")" "5" \
	"the first cycle and the steady medians, measured"
equals "$(q "SELECT count(*) FROM measurement m JOIN measurement i ON i.run_id = m.run_id AND i.name = 'steady_import_s'
	WHERE m.run_id = $id AND m.name = 'steady_cycle_s' AND m.value > i.value")" "1" \
	"a steady cycle holds its import and more (the readback)"
expect_exit 0 "two imports have no steady state" "$LABRUN" import --model qwen3-0.6b --tokens 64 --repeat 2
equals "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM measurement WHERE run_id = (SELECT max(id) FROM run) AND
	(name LIKE 'steady%' OR name IN ('imports', 'cycle_s')) ORDER BY name)")" "cycle_s imports" "only the first cycle"
expect_exit 1 "a failing write in the second import fails the run" "$LABRUN" import --model qwen3-0.6b --tokens 64 \
	--repeat 3 --fail-write 60
contains "$T/err" "device write 60 failed" "names the write"
equals "$(q "SELECT status || ' ' || (SELECT value FROM measurement WHERE run_id = run.id AND name = 'imports')
	FROM run ORDER BY id DESC LIMIT 1")" "failed 1.0" "run kept as failed, one import done"

expect_exit 0 "a link model is reported as modelled" "$LABRUN" import --model qwen3-0.6b --tokens 64 --link-gbps 16 --link-latency-us 10
contains "$T/out" "MODELLED, not measured" "printed apart"
equals "$(q "SELECT modelled FROM measurement WHERE name = 'dma_modelled_s'")" "1" "stored as modelled"

expect_exit 1 "a failing device write fails the run" "$LABRUN" import --model qwen3-0.6b --tokens 64 --fail-write 5
contains "$T/err" "device write 5 failed" "names the write"
equals "$(q "SELECT status FROM run ORDER BY id DESC LIMIT 1")" "failed" "run kept as failed"
expect_exit 1 "a cancel at layer 3" "$LABRUN" import --model qwen3-0.6b --tokens 64 --mode stream --cancel-at 3
equals "$(q "SELECT status FROM run ORDER BY id DESC LIMIT 1")" "cancelled" "run kept as cancelled"
expect_exit 1 "the producer dies at layer 2" "$LABRUN" import --model qwen3-0.6b --tokens 64 --die-at 2
contains "$T/err" "the producer died at layer 2" "says so"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "tokens beyond the compiled capacity" "$LABRUN" import --model qwen3-4b --tokens 100 --capacity 64
contains "$T/err" "the export has 100 tokens, beyond the capacity 64" "names both values"
expect_exit 2 "an export of another model" "$LABRUN" import --model qwen3-4b --compiled-model koni-8b --tokens 16
contains "$T/err" "the export has layers 36, the compiled model 'koni-8b' has 32" "names field and values"
expect_exit 2 "unknown model" "$LABRUN" import --model llama-9 --tokens 16
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused imports record nothing"

expect_exit 0 "the atom backend through the shim" "$LABRUN" import --backend atom --rbln-lib "$RBLN_SHIM" \
	--model qwen3-0.6b --tokens 64 --mode stream
contains "$T/out" "device state matches the expectation" "atom readback verified"
equals "$(q "SELECT version FROM tool_version WHERE name = 'rbln-runtime'")" "0.11.0-shim" "runtime version recorded"
expect_exit 1 "atom without a runtime library" "$LABRUN" import --backend atom --rbln-lib /nonexistent/librbln.so \
	--model qwen3-0.6b --tokens 64
contains "$T/err" "cannot load the RBLN runtime '/nonexistent/librbln.so'" "names the path tried"
contains "$T/err" "hint:" "and how to point elsewhere"
equals "$(q "SELECT count(*) FROM run WHERE status = 'running'")" "0" "no run left running"
