#!/bin/sh
# target = serving (issue 26, item 2): each arm a route that 'labrun collect' sends the cases to once
# per repetition, in the paired design; within-route parity, the reference route and the metric
# (output throughput by default) work as for command experiments. Against the simulated server.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
printf '{"case_id": "a", "prompt": "one"}\n{"case_id": "b", "prompt": "two"}\n{"case_id": "c", "prompt": "three"}\n' >cases.jsonl
printf '[experiment]\nname = serving-two\ntarget = serving\ncases = cases.jsonl\nreference_route = r1\n[design]\nblocks = 6\nwarmup = 0\n[arm r1]\nendpoint = %s\nmax_tokens = 6\n[arm r2]\nendpoint = %s\nmax_tokens = 6\nconcurrency = 2\n' \
	"$url" "$url" >serving.ini
expect_exit 0 "a serving experiment" "$LABRUN" run -q serving.ini
contains "$T/out" "target serving" "named as such"
contains "$T/out" "| all | " "one condition, compared"
contains "$T/out" "median output_throughput" "output throughput compared by default"
contains "$T/out" "within-route parity 2 exact, 0 failing, 0 never compared; cross-route parity 1 exact" \
	"parity within each route and against the reference"
equals "$(q "SELECT count(*) FROM execution WHERE run_id = 1")" "26" "a parity pass and 12 timed passes per route"
equals "$(q "SELECT count(*) FROM metric WHERE run_id = 1 AND name = 'output_throughput' AND unit = 'tok/s'")" "26" \
	"each pass reported its figures"
argv=$(sqlite3 "$LABRUN_STORE/labrun.db" "SELECT argv_json FROM execution WHERE run_id = 1 AND arm_idx = 0 LIMIT 1")
case "$argv" in
*'"collect","--route","r1","--cases","cases.jsonl","--endpoint","http://127.0.0.1:'*'"--out",'*) ok "each pass is a labrun collect, recorded as run" ;;
*) fail "the execution's argv: $argv" ;;
esac
sha=$(q "SELECT stdout_sha256 FROM execution WHERE run_id = 1 AND block = 0 LIMIT 1")
obj="$LABRUN_STORE/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)"
[ -f "$obj" ] || fail "no stored stdout at $obj"
equals "$(jq -s 'map(select(.failure == null and .ttft_ms > 0)) | length' "$obj")" "3" \
	"an execution's stored stdout holds its requests with their timings"
expect_exit 0 "the report" "$LABRUN" report --run 1
# a verdict on the routes, in the metric's words: which one, six blocks decide, and on a busy machine
# they can leave it inconclusive, so the Markdown's verdict is held to the one its row's kind names
cp "$T/out" report.md
"$LABRUN" report --run 1 --format json >report.json || fail "the report as JSON"
kind=$(jq -r '.runs[0].tables[0].rows[0].verdict_kind' report.json)
case $kind in
lower | higher) contains report.md "| r2 has $(jq -r '.runs[0].tables[0].rows[0].verdict | sub("^r2 has "; "")' report.json) |" \
	"a verdict on the routes: r2 has ${kind} output throughput" ;;
lower-direction | higher-direction) contains report.md "| r2 has ${kind%-direction} output_throughput [" \
	"a verdict on the routes: r2 has ${kind%-direction} output throughput, not beyond the margin" ;;
*) contains report.md "| $(jq -r '.runs[0].tables[0].rows[0].verdict' report.json) |" "a verdict on the routes: $kind" ;;
esac
equals "$(q "SELECT count(*) FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.run_id = 1")" "26" \
	"every pass's own row, stored with its set"
equals "$(q "SELECT count(*) FROM collect_request r JOIN response_set s ON s.id = r.set_id WHERE s.run_id = 1
	AND r.failure IS NULL AND r.ttft_ms > 0 AND r.itl_ms LIKE '[%'")" "78" "and every request with its timings"
expect_exit 0 "the report as JSON" "$LABRUN" report --run 1 --format json
equals "$(jq '[.serving.passes[] | select(.completed == 3)] | length' "$T/out")" "26" \
	"the report's passes: latency, achieved concurrency and occupancy for every pass of the experiment"
equals "$(jq '[.serving.passes[] | select(.route == "r2" and .peak == 2)] | length' "$T/out")" "13" \
	"route r2 reached its concurrency of 2 in every pass"

# the server's gauges, sampled in every pass of a route that names them
printf '[experiment]\nname = serving-gauges\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 2\nwarmup = 0\nexploratory = yes\n[arm g1]\nendpoint = %s\nmax_tokens = 6\nmetrics_url = %s\nsample = 0.01s\n[arm g2]\nendpoint = %s\nmax_tokens = 6\n' \
	"$url" "${url%/v1}/metrics" "$url" >gauges.ini
expect_exit 0 "a serving experiment sampling the server's gauges" "$LABRUN" run -q gauges.ini
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT count(DISTINCT p.set_id) FROM collect_pass p JOIN response_set s ON s.id = p.set_id
	WHERE s.run_id = $run AND s.route = 'g1' AND p.metrics_url IS NOT NULL")" \
	"$(q "SELECT count(*) FROM response_set WHERE run_id = $run AND route = 'g1'")" "each g1 pass names its metrics URL"
equals "$(q "SELECT count(*) > 0 FROM collect_gauge g JOIN response_set s ON s.id = g.set_id WHERE s.run_id = $run AND s.route = 'g1'")" \
	"1" "and keeps the samples it took"

# LABRUN_PROGRESS=1 in the user's environment is labrun's own: the 'labrun collect' of each pass
# must not print its progress lines into the stderr log the execution stores
printf '[experiment]\nname = serving-quiet\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 2\nwarmup = 0\nexploratory = yes\n[arm p1]\nendpoint = %s\nmax_tokens = 6\n[arm p2]\nendpoint = %s\nmax_tokens = 6\n' \
	"$url" "$url" >quiet.ini
expect_exit 0 "a serving experiment with LABRUN_PROGRESS=1" env LABRUN_PROGRESS=1 "$LABRUN" run -q quiet.ini
run=$(q "SELECT max(id) FROM run")
"$LABRUN" sql --csv "SELECT DISTINCT stderr_sha256 FROM execution WHERE run_id = $run" | sed 1d | tr -d '\r' >errs
[ -s errs ] || fail "the executions' stderr logs are not stored"
leaked=0
while read -r sha; do
	grep -q "labrun collect:" "$LABRUN_STORE/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)" && leaked=$((leaked + 1))
done <errs
equals "$leaked" "0" "no execution's stored stderr holds a progress line of its labrun collect"

# definitions: a serving arm is a route, named at its line
printf '[experiment]\nname = s\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 6\n[arm a]\nendpoint = %s\n[arm b]\nmodel = m\n' \
	"$url" >noendpoint.ini
expect_exit 2 "an arm without an endpoint" "$LABRUN" run -q noendpoint.ini
contains "$T/err" "noendpoint.ini:9: [arm b] has no 'endpoint' (target = serving)" "named"
printf '[experiment]\nname = s\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 6\n[arm a]\nendpoint = %s\n[arm b]\nendpoint = %s\ncommand = true\n' \
	"$url" "$url" >cmd.ini
expect_exit 2 "a serving arm with a command" "$LABRUN" run -q cmd.ini
contains "$T/err" "cmd.ini:11: [arm b] a serving arm is a route" "refused at its line"
sed 's/^cases = .*//' noendpoint.ini >nocases.ini
expect_exit 2 "no cases" "$LABRUN" run -q nocases.ini
contains "$T/err" "target = serving needs [experiment] 'cases = FILE'" "named"
printf '[experiment]\nname = s\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 6\n[arm a]\nendpoint = %s\nconcurrency = many\n[arm b]\nendpoint = %s\n' \
	"$url" "$url" >badconc.ini
expect_exit 2 "a bad concurrency" "$LABRUN" run -q badconc.ini
contains "$T/err" "badconc.ini:9: [arm a] 'concurrency' is 'many'; expected a whole number >= 1" "at its line"
printf '[experiment]\nname = s\ntarget = command\n[design]\nblocks = 6\n[arm a]\ncommand = true\nendpoint = %s\n[arm b]\ncommand = true\n' \
	"$url" >wrongtarget.ini
expect_exit 2 "serving keys in a command experiment" "$LABRUN" run -q wrongtarget.ini
contains "$T/err" "wrongtarget.ini:8: [arm a] 'endpoint' is for 'target = serving' only" "refused"
