#!/bin/sh
# The example that runs anywhere (issue 10, done-when 5): the simulated serving harness in the
# paired design, then the issue report with its route matrix, from a copy of examples/.
. "$(dirname "$0")/lib.sh"
cp -r "$TOP_SRCDIR/examples" .
expect_exit 0 "labrun run examples/serving-sim.ini" "$LABRUN" run -q examples/serving-sim.ini
contains "$T/out" "SIMULATED serving harness (serves no model)" "labelled simulated"
contains "$T/out" "rngd-gpu has" "routes compared in the paired design"
expect_exit 0 "labrun report --issue 270" "$LABRUN" report --issue 270 --routes native-gpu,rngd-gpu,native-atom,rngd-atom
contains "$T/out" "| Run / condition | native-gpu | rngd-gpu | native-atom | rngd-atom |" "the matrix, routes in the order given"
contains "$T/out" "| run 1: model=gemma3-1b | " "a row per model"
contains "$T/out" "| uncollected |" "the uncollected route"
contains "$T/out" "Within-route parity: 14 passes, 1 failures, 1 uncollected of 16 combinations" "the combination count"
contains "$T/out" "model=qwen3-4b / rngd-atom (comparison" "the planted divergence is found"
contains "$T/out" "case c03: tokens differ at position 2;" "at its case and position"
contains "$T/out" "model=gemma3-1b / native-gpu (gate, key" "the gate"
contains "$T/out" "case c06: no EOS;" "the non-EOS finish"
contains "$T/out" "| native-gpu | " "per-route latency and throughput"
expect_exit 0 "the evidence audits" "$LABRUN" audit

# the crate (and so the archive) carries what the serving evidence rests on: every execution's
# logs and outputs, every responses file and every answer key, each checked by its sha256
expect_exit 0 "a crate of the serving run" "$LABRUN" manifest --run 1 -o crate --license CC-BY-4.0
logs=$(q "SELECT (SELECT count(stdout_sha256) + count(stderr_sha256) FROM execution WHERE run_id = 1) + (SELECT count(sha256) FROM execution_output WHERE run_id = 1) AS n")
equals "$(find crate/run-1/executions -type f | wc -l | tr -d ' ')" "$logs" "every execution log and output, $logs files"
equals "$(find crate/run-1/responses -type f | wc -l | tr -d ' ')" "$(q "SELECT count(*) FROM response_set WHERE run_id = 1")" \
	"every responses file"
equals "$(find crate/run-1/answers -type f | wc -l | tr -d ' ')" "$(q "SELECT count(*) FROM gate WHERE run_id = 1")" \
	"every answer key a gate used"
set_id=$(q "SELECT min(id) FROM response_set WHERE run_id = 1")
equals "$(sha256sum crate/run-1/responses/"$set_id"-*.jsonl | cut -d' ' -f1)" \
	"$(q "SELECT raw_sha256 FROM response_set WHERE id = $set_id")" "a responses file is the ingested bytes"
(cd crate && sha256sum -c --quiet manifest-sha256.txt) || fail "the crate's manifest does not check out"
ok "the crate's manifest-sha256.txt checks them all"
