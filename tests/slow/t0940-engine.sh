#!/bin/sh
# labrun collect against a real inference engine (issue 26, item 6): llama.cpp through node-llama-cpp
# (tests/engine), loading a tiny LLaMA model written here with seeded random weights. Two routes: one
# context per lane, and one shared context of four sequences. The collected token ids are checked
# against the engine's own output for single requests (computed here, on this CPU: llama.cpp picks
# its kernels at run time, so no ids are stored in the test); then a serving experiment pairs the two
# routes and reports parity, latency and the concurrency each pass reached.
. "$(dirname "$0")/../cli/lib.sh"
engine=$TOP_SRCDIR/tests/engine
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
# on a developer's machine a missing engine is a skip; in CI (CI=true) the real-engine test never
# skips for a missing package: it fails, naming what to install
missing() {
	[ "${CI:-}" = true ] && fail "CI: $1 (the real-engine test is never skipped in CI)"
	echo "1..0 # SKIP $1"
	exit 0
}
[ "$major" -ge 20 ] ||
	missing "node-llama-cpp 3.21.1 needs Node.js 20 or later; this machine has ${major:-none} (Debian 12's nodejs is 18)"
[ -d "$engine/node_modules/node-llama-cpp" ] ||
	missing "the test engine is not installed: build-aux/install-deps --test installs it"
python3 "$engine/gguf-tiny.py" tiny.gguf 7 || fail "write the tiny model"
ok "a tiny LLaMA model, $(wc -c <tiny.gguf | tr -d ' ') bytes"
# each context gets one CPU thread; sequences sharing a context need one libuv thread
node "$engine/server.mjs" tiny.gguf lane.port 4 per-lane 2>lane.err &
lane=$!
UV_THREADPOOL_SIZE=1 node "$engine/server.mjs" tiny.gguf shared.port 4 shared 2>shared.err &
shared=$!
trap 'kill $lane $shared 2>/dev/null; cleanup' EXIT
i=0
while { [ ! -s lane.port ] || [ ! -s shared.port ]; } && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -s lane.port ] && [ -s shared.port ] || fail "the engine did not start: $(cat lane.err shared.err)"
ok "two engines serving: one context per lane, and one shared context"
lane_url="http://127.0.0.1:$(cat lane.port)/v1"
shared_url="http://127.0.0.1:$(cat shared.port)/v1"
for i in 1 2 3 4 5 6 7 8; do
	printf '{"case_id": "q%d", "prompt": "question %d: what is %d plus %d?"}\n' "$i" "$i" "$i" "$i"
done >cases.jsonl

expect_exit 0 "collect from the per-lane engine" "$LABRUN" collect --endpoint "$lane_url" --route lane --cases cases.jsonl \
	--concurrency 4 --max-tokens 12
contains "$T/out" "collected 8 of 8 case(s) of route 'lane'" "every case"
contains "$T/out" "server: labrun-test-engine/llama.cpp" "the engine's Server header"
# identified from what it says (GET /props, llama-server's shape with node-llama-cpp's llama.cpp
# release), never from that header alone
release=$(cd "$engine" && node -e 'import("node-llama-cpp").then(async ({ getLlama }) => {
	const l = await getLlama({ gpu: false, build: "never", logLevel: "error" });
	console.log(`${l.llamaCppRelease.repo} ${l.llamaCppRelease.release} (node-llama-cpp, ${l.buildType})`); process.exit(0); })') ||
	fail "ask node-llama-cpp which llama.cpp it loaded"
contains "$T/out" "engine: llama.cpp $release" "the engine identified: llama.cpp, at the release node-llama-cpp loaded"
equals "$(q "SELECT value FROM binding WHERE run_id = (SELECT max(id) FROM run) AND key = 'backend'")" "llama.cpp" \
	"the run's backend is that engine, not sim"
run=$(q "SELECT max(id) FROM run")
# a validity verdict per pass (issue 42): a TTFT p99 limit no engine meets, and rules this one meets
expect_exit 0 "a pass with a TTFT p99 limit it cannot meet" "$LABRUN" collect --endpoint "$lane_url" --route strict \
	--cases cases.jsonl --concurrency 4 --max-tokens 12 --validity 'ttft:0.000001'
contains "$T/out" "result: INVALID: TTFT p99 (nearest-rank)" "INVALID, naming the rule"
expect_exit 0 "a pass that meets every rule" "$LABRUN" collect --endpoint "$lane_url" --route loose --cases cases.jsonl \
	--concurrency 4 --max-tokens 12 --validity 'duration:0.000001 requests:8 ttft:600000 tpot:600000'
contains "$T/out" "result: VALID" "VALID"
expect_exit 0 "collect from the shared-context engine, sampling its gauges" "$LABRUN" collect --endpoint "$shared_url" \
	--route shared --cases cases.jsonl --concurrency 4 --max-tokens 12 --run "$run" \
	--metrics-url "http://127.0.0.1:$(cat shared.port)/metrics" --sample 0.002s

# the engine's own output, one request alone, for each case: what labrun stored for the lane route
"$LABRUN" sql --json "SELECT r.case_id, r.tokens, r.text, r.finish_reason FROM response r JOIN response_set s ON s.id = r.set_id
	WHERE s.run_id = $run AND s.route = 'lane'" >stored.json || fail "read the stored responses"
python3 - stored.json cases.jsonl "http://127.0.0.1:$(cat lane.port)/solo" <<'PY' || fail "the collected token ids differ from the engine's own"
import json, sys, urllib.request
stored = {r["case_id"]: r for r in json.load(open(sys.argv[1]))}
cases = [json.loads(l) for l in open(sys.argv[2])]
assert len(stored) == len(cases) == 8
for c in cases:
    req = urllib.request.Request(sys.argv[3], json.dumps({"prompt": c["prompt"], "max_tokens": 12}).encode())
    solo = json.load(urllib.request.urlopen(req))
    got = stored[c["case_id"]]
    assert json.loads(got["tokens"]) == solo["tokens"], (c["case_id"], got["tokens"], solo["tokens"])
    assert got["finish_reason"] == solo["finish_reason"], (got, solo)
    assert len(solo["tokens"]) > 0
PY
ok "each case's token ids and finish reason equal the engine's own for the request alone"
expect_exit_any() { "$@" >"$T/out" 2>"$T/err"; }
expect_exit_any "$LABRUN" compare --run "$run" --reference lane --candidate shared
contains "$T/out" "(of 8)" "the routes compared case by case (batched decoding may change a near-tied token)"
expect_exit 0 "report" "$LABRUN" report --run "$run" --format json
equals "$(jq '[.serving.passes[] | select(.completed == 8 and .peak == 4 and .ttft_ms.n == 8 and .itl_ms.n > 0)] | length' "$T/out")" \
	"2" "each pass: every case, four in flight at its peak, TTFT and ITL"
equals "$(jq '.serving.passes[] | select(.route == "shared") | (.gauge_samples > 0) and (.gauge_peak >= 1) and (.gauge_peak <= 4)' "$T/out")" \
	"true" "the lane occupancy from the engine's own running gauge, never above its four sequences"

# right cells (issue 41): two runs of one issue, each collecting one route, make two collected cells
# and no uncollected one (each run never declared the other's route)
expect_exit 0 "a run of its own for the lane route" "$LABRUN" collect --endpoint "$lane_url" --route solo-lane \
	--cases cases.jsonl --concurrency 4 --max-tokens 12 --issue 41
expect_exit 0 "and one for the shared route" "$LABRUN" collect --endpoint "$shared_url" --route solo-shared \
	--cases cases.jsonl --concurrency 4 --max-tokens 12 --issue 41
expect_exit 0 "the issue's report" "$LABRUN" report --issue 41 --format json
equals "$(jq -r '.serving.cells | "\(.total) \(.collected) \(.uncollected) \(.undeclared)"' "$T/out")" "2 2 0 2" \
	"single-route runs: collected cells only where a route was declared"

# the two routes in the paired design
printf '[experiment]\nname = engine-lanes\ntarget = serving\ncases = cases.jsonl\nreference_route = lane\n[design]\nblocks = 6\nwarmup = 1\n[arm lane]\nendpoint = %s\nconcurrency = 4\nmax_tokens = 12\nmetrics_url = %s\nsample = 0.002s\n[arm shared]\nendpoint = %s\nconcurrency = 4\nmax_tokens = 12\nmetrics_url = %s\nsample = 0.002s\n' \
	"$lane_url" "${lane_url%/v1}/metrics" "$shared_url" "${shared_url%/v1}/metrics" >engine.ini
expect_exit 0 "a serving experiment on the real engine" "$LABRUN" run -q engine.ini
contains "$T/out" "target serving, backend llama.cpp," "its header names the engine it reached"
contains "$T/out" "median output_throughput" "output throughput compared"
contains "$T/out" "| all | " "a row with its verdict (the engines may or may not differ beyond the margin)"
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT count(*) FROM comparison_summary WHERE run_id = $run AND kind = 'within-route' AND candidate_route = 'lane'")" \
	"14" "every later pass of the lane route (2 warm-up, 12 timed) compared with its first"
equals "$(q "SELECT count(*) FROM comparison_summary WHERE run_id = $run AND kind = 'within-route' AND candidate_route = 'lane'
	AND exact = total")" "14" "and one context per lane is deterministic"
expect_exit 0 "the experiment's report" "$LABRUN" report --run "$run" --format json
equals "$(jq '[.serving.passes[] | select(.completed == 8 and .ttft_ms.n == 8 and .itl_ms.n > 0 and .peak >= 1 and .peak <= 4)] | length' "$T/out")" \
	"$(q "SELECT count(*) FROM execution WHERE run_id = $run")" "every pass of the experiment: latency figures and the achieved concurrency"
equals "$(jq '[.serving.passes[] | select(.gauge_samples > 0 and .gauge_peak >= 1 and .gauge_peak <= 4)] | length' "$T/out")" \
	"$(q "SELECT count(*) FROM execution WHERE run_id = $run")" "and the lane occupancy from the engine's own gauge, in every pass"
# a fault drill (issue 42): the engine killed mid-pass. Each cut stream keeps the tokens it received,
# and the report holds them, the pass's survivors and the replacement engine's answers against the
# reference pass. The engine waits 20 ms a token (LABRUN_ENGINE_DELAY_MS) so that it dies mid-stream.
printf '{"case_id": "k1", "prompt": "drill one", "max_tokens": 4}\n{"case_id": "k2", "prompt": "drill two, a long one", "max_tokens": 80}\n{"case_id": "k3", "prompt": "drill three, a long one", "max_tokens": 80}\n{"case_id": "k4", "prompt": "drill four", "max_tokens": 80}\n' >drill.jsonl
start_engine() { # PORTFILE [DELAY_MS]
	LABRUN_ENGINE_DELAY_MS=${2:-0} node "$engine/server.mjs" tiny.gguf "$1" 2 per-lane 2>"$1.err" &
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ] || fail "the drill's engine did not start: $(cat "$1.err")"
}
start_engine drill.port 20
drill=$!
trap 'kill $lane $shared $drill 2>/dev/null; cleanup' EXIT
drill_url="http://127.0.0.1:$(cat drill.port)"
streamed() { python3 -c 'import sys, urllib.request
t = urllib.request.urlopen(sys.argv[1]).read().decode()
print(next(int(l.split()[-1]) for l in t.splitlines() if l.startswith("labrun_engine_tokens_streamed")))' "$drill_url/metrics"; }
expect_exit 0 "the reference pass" "$LABRUN" collect --endpoint "$drill_url/v1" --route reference --cases drill.jsonl --concurrency 2
drun=$(q "SELECT max(id) FROM run")
base=$(streamed)
"$LABRUN" collect --endpoint "$drill_url/v1" --route drill --cases drill.jsonl --concurrency 2 --run "$drun" \
	--timeout 120 >drill.out 2>&1 &
cpid=$!
i=0
while [ "$(streamed)" -lt $((base + 30)) ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $drill
set +e; wait $drill; wait $cpid; code=$?; set -e
equals "$code" "1" "the pass whose engine was killed ends with failures"
n=$(q "SELECT count(*) FROM collect_check c JOIN response_set s ON s.id = c.set_id WHERE s.run_id = $drun AND s.route = 'drill'
	AND c.cut_tokens IS NOT NULL AND json_array_length(c.cut_tokens) > 0")
[ "$n" -ge 1 ] || fail "no cut stream kept its tokens: $(cat drill.out)"
ok "$n cut stream(s) kept the tokens they received"
python3 - "$LABRUN_STORE/labrun.db" "$drun" <<'PY' || fail "a cut stream's tokens are not the start of the reference's"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ref = dict(db.execute("SELECT r.case_id, r.tokens FROM response r JOIN response_set s ON s.id = r.set_id"
                      " WHERE s.run_id = ? AND s.route = 'reference'", (sys.argv[2],)))
for case, cut in db.execute("SELECT x.case_id, c.cut_tokens FROM collect_check c JOIN collect_request x USING (set_id, seq)"
                            " JOIN response_set s ON s.id = x.set_id WHERE s.run_id = ? AND s.route = 'drill'"
                            " AND c.cut_tokens IS NOT NULL", (sys.argv[2],)):
    cut, want = json.loads(cut), json.loads(ref[case])
    assert cut == want[:len(cut)] and len(cut) < len(want), (case, cut, want)
PY
ok "each cut stream's tokens are the start of the reference's (one context per lane is deterministic)"
start_engine replacement.port
drill=$!
expect_exit 0 "the replacement engine answers the same cases" "$LABRUN" collect \
	--endpoint "http://127.0.0.1:$(cat replacement.port)/v1" --route replacement --cases drill.jsonl --concurrency 2 --run "$drun"
expect_exit 0 "the drill's report" "$LABRUN" report --run "$drun"
contains "$T/out" "Cut streams: the tokens each kept, and the survivors, against the reference" "the drill's evidence"
contains "$T/out" "token(s): the first " "a cut stream against the reference"
contains "$T/out" "its replacement (set " "the replacement against it"
lacks "$T/out" "differing from the reference" "no cut stream or replacement differs from the reference"
expect_exit 0 "the drill's report as JSON" "$LABRUN" report --run "$drun" --format json
equals "$(jq '[.serving.cuts[] | select(test("cut \\(.*\\) after [0-9]+ token\\(s\\): the first [0-9]+ of the reference.s [0-9]+ \\(set [0-9]+\\); its replacement \\(set [0-9]+\\): equal to the reference"))] | length' "$T/out")" \
	"$n" "every cut stream with tokens: the start of the reference's, and its replacement equal to it"
expect_exit 0 "the store audits" "$LABRUN" audit
