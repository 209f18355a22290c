#!/bin/sh
# The example that runs anywhere (issue 10, done-when 5): the simulated serving harness in the
# paired design, then the issue report with its route matrix, from a copy of examples/.
. "$(dirname "$0")/lib.sh"
cp -r "$TOP_SRCDIR/examples" .
expect_exit 0 "labrun run examples/serving-sim.ini" "$LABRUN" run -q examples/serving-sim.ini
contains "$T/out" "SIMULATED serving harness (serves no model)" "labelled simulated"
contains "$T/out" "rngd-gpu has" "routes compared in the paired design"
# the run's own printout names what the evidence holds (issue 25): every failing gate case, the
# planted divergence and the uncollected route, each as the store has it, and counts them at the end
cp "$T/out" run.out
gated=$(q "SELECT count(*) FROM gate_case WHERE NOT (answer_ok AND format_ok AND eos)")
[ "$gated" -ge 10 ] || fail "the example's gates should fail about a dozen cases, the store has $gated"
"$LABRUN" sql --csv "SELECT c.value, s.route, gc.case_id FROM gate_case gc JOIN gate g ON g.id = gc.gate_id
	JOIN response_set s ON s.id = g.set_id JOIN condition_param c ON c.run_id = s.run_id AND c.condition_idx = s.condition_idx
	WHERE NOT (gc.answer_ok AND gc.format_ok AND gc.eos)" >gated.csv || fail "the failing gate cases from the store"
sed -i -e 1d -e 's/\r$//' gated.csv
equals "$(wc -l <gated.csv | tr -d ' ')" "$gated" "each failing gate case read back with its model and route"
while IFS=, read -r model route case_id; do
	grep -q "model=$model / $route (gate, key [0-9a-f]*): case $case_id:" run.out || fail "run does not name gate case $model $route $case_id"
done <gated.csv
ok "run names each of the $gated failing gate cases"
contains run.out "model=qwen3-4b / rngd-atom (comparison" "run names the divergence"
contains run.out "model=gemma3-1b / rngd-gpu: uncollected" "run names the uncollected route"
contains run.out "; serving: 2 failing comparison case(s), $gated failing gate case(s), 1 uncollected cell(s)" \
	"and its closing line counts them"
expect_exit 0 "labrun report --issue 270" "$LABRUN" report --issue 270 --routes native-gpu,rngd-gpu,native-atom,rngd-atom
contains "$T/out" "| Run / condition | native-gpu | rngd-gpu | native-atom | rngd-atom |" "the matrix, routes in the order given"
contains "$T/out" "| run 1: model=gemma3-1b | " "a row per model"
contains "$T/out" "| uncollected |" "the uncollected route"
contains "$T/out" "16 cells: 15 collected, 1 uncollected; of the collected, within-route parity 14 exact, 1 failing, 0 never compared; cross-route parity 11 exact, 0 failing, 4 never compared; gates 4 passing, 11 failing, 0 never scored" \
	"the sentence accounts for every cell, each check apart"
expect_exit 0 "the report as JSON" "$LABRUN" report --issue 270 --format json
equals "$(jq '.serving.cells | [.total, .collected + .uncollected, .within_route.exact + .within_route.failing + .within_route.unchecked + .uncollected,
	.cross_route.exact + .cross_route.failing + .cross_route.unchecked + .uncollected, .gates.passing + .gates.failing + .gates.unchecked + .uncollected]
	| unique | length' "$T/out")" "1" "each count adds up to the number of cells"
equals "$(jq '[.serving.rows[].cells[]] | length' "$T/out")" "16" "which is the matrix's"
expect_exit 0 "labrun report --issue 270 as html" "$LABRUN" report --issue 270 --format html
contains "$T/out" "16 cells: 15 collected, 1 uncollected" "the html has the same sentence"
contains "$T/out" "model=gemma3-1b / rngd-gpu: uncollected" "and names the uncollected route"
# every number of every Markdown table (experiment tables, matrix, route timing) is in the JSON and the CSV
for f in md json csv; do
	"$LABRUN" report --issue 270 --format $f >"r.$f" || fail "report --format $f"
done
n=$(python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" r.md r.json r.csv) || fail "the JSON or the CSV lacks a number"
ok "all $n numbers of the report's tables are in its JSON and its CSV"
"$LABRUN" report --issue 270 --routes native-gpu,rngd-gpu,native-atom,rngd-atom >"$T/out"
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
