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
