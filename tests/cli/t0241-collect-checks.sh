#!/bin/sh
# labrun collect checks itself (issue 42): streams held against themselves as MLPerf's TEST06 does
# (one finish, the server's token count against the tokens received, the first token timed), a
# streamed "\u0000" read as the valid JSON it is, a completion of no token timed and counted toward
# goodput, failed /metrics scrapes stored as gaps, --rate without --concurrency uncapped, latency from
# the scheduled time beside the send, a validity verdict per pass naming each failed rule, and a cut
# stream keeping its tokens for the report to hold against the reference. The server is the simulated
# one of examples/serving-sim-server.py, asked for each fault by the prompt.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
cat >cases.jsonl <<'CASES'
{"case_id": "ok", "prompt": "hello world"}
{"case_id": "inflate", "prompt": "mode:inflate a b"}
{"case_id": "nul", "prompt": "mode:nul c d"}
{"case_id": "nofinish", "prompt": "mode:nofinish e"}
{"case_id": "empty", "prompt": "mode:empty f"}
{"case_id": "nocontent", "prompt": "mode:nocontent g"}
CASES
expect_exit 1 "a pass of streams that break the client's checks" "$LABRUN" collect --endpoint "$url" --route checks \
	--cases cases.jsonl --concurrency 2 --goodput 'ttft:100000' --metrics-url "${url%/v1}/metrics-flaky" --sample 0.005s
contains "$T/out" "collected 4 of 6 case(s)" "the finish-less and the empty stream are not completions"
contains "$T/out" "result: INVALID: " "the pass's verdict"
contains "$T/out" "TEST06: 1 stream(s) whose usage.completion_tokens differs from the tokens received" "the inflated usage named"
contains "$T/out" "completed 4 of 6 requests" "the failed requests named"
contains "$T/out" "scrape(s) failed, each a gap" "failed scrapes said"
equals "$(q "SELECT failure FROM collect_request WHERE case_id = 'nofinish'")" "no finish: [DONE] came without a finish reason" \
	"a stream without a finish reason is a named failure"
equals "$(q "SELECT failure FROM collect_request WHERE case_id = 'empty'")" \
	"empty stream: [DONE] came with no token and no finish reason" "an empty stream is a named failure"
equals "$(q "SELECT failure IS NULL AND instr(CAST(r.text AS BLOB), x'00') > 0 FROM collect_request x
	JOIN response r ON r.set_id = x.set_id AND r.case_id = x.case_id WHERE x.case_id = 'nul'")" "1" \
	"a streamed \\u0000 is read and kept in the text"
python3 - sent.log "$LABRUN_STORE/labrun.db" <<'PY' || fail "the stored tokens or counts are not what the server sent"
import json, sqlite3, sys
sent = {json.loads(l)["prompt"]: json.loads(l) for l in open(sys.argv[1])}
db = sqlite3.connect(sys.argv[2])
for case, prompt in (("inflate", "mode:inflate a b"), ("nul", "mode:nul c d")):
    tokens, output, usage, received = db.execute(
        "SELECT r.tokens, r.output_tokens, x.completion_tokens, c.received_tokens FROM response r"
        " JOIN collect_request x ON x.set_id = r.set_id AND x.case_id = r.case_id"
        " JOIN collect_check c ON c.set_id = x.set_id AND c.seq = x.seq WHERE r.case_id = ?", (case,)).fetchone()
    assert json.loads(tokens) == sent[prompt]["tokens"], (case, tokens)
    n = len(sent[prompt]["tokens"])
    assert output == received == n, (case, output, received, n)
    assert usage == (99 * n if case == "inflate" else n), (case, usage)
PY
ok "output tokens are those received; the inflated usage is stored beside them"
equals "$(q "SELECT ttft_ms IS NOT NULL AND ttft_ms <= e2el_ms FROM collect_request WHERE case_id = 'nocontent'")" "1" \
	"a completion of no token is timed to its finish"
equals "$(q "SELECT count(*) FROM collect_check c JOIN collect_request x USING (set_id, seq) WHERE x.sent_ms IS NOT NULL
	AND abs(c.send_lag_ms - (x.sent_ms - c.scheduled_ms)) < 1e-6 AND (x.ttft_ms IS NULL OR abs(c.sched_ttft_ms - x.ttft_ms - c.send_lag_ms) < 1e-6)")" \
	"6" "every request: its scheduled time, its send lag, and its latency from the schedule"
n=$(q "SELECT count(*) FROM collect_gauge_failure")
[ "$n" -ge 1 ] || fail "no failed scrape stored"
equals "$(q "SELECT count(*) FROM collect_gauge_failure f JOIN collect_gauge g USING (set_id, seq) WHERE g.running IS NULL")" "$n" \
	"each failed scrape ($n) is a gauge row without a value"
expect_exit 0 "the report" "$LABRUN" report --run 1 --format json
equals "$(jq -c '.serving.passes[0] | [.verdict, .usage_differs, .completed, .good, (.gauge_failed > 0), (.gauge_gap_s > 0), .ttft_sched_ms.n, .lag_ms.n]' "$T/out")" \
	'["INVALID",1,4,4,true,true,4,4]' "the verdict, the disagreement, goodput counting the tokenless completion, the gaps, the scheduled latency"
expect_exit 0 "the Markdown report" "$LABRUN" report --run 1
contains "$T/out" "run 1, set 1 (checks): INVALID: completed 4 of 6 requests; TEST06:" "the report names every failed rule"
contains "$T/out" "failed scrape(s)" "and the gaps"
contains "$T/out" "| TTFT_sched |" "latency from the scheduled time beside the send"
for f in md json csv; do "$LABRUN" report --run 1 --format $f >"r.$f" || fail "report --format $f"; done
n=$(python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" r.md r.json r.csv) || fail "the JSON or the CSV lacks a number"
ok "all $n numbers of the tables are in the JSON and the CSV"

# the rules: one a pass meets, one it cannot; a malformed rule named
grep '"ok"' cases.jsonl >ok.jsonl
expect_exit 0 "a pass that meets every rule" "$LABRUN" collect --endpoint "$url" --route valid --cases ok.jsonl --run 1 \
	--validity 'duration:0.000001 requests:1 ttft:100000 tpot:100000 percentile:99'
contains "$T/out" "result: VALID" "VALID"
expect_exit 0 "a pass that cannot meet its rules" "$LABRUN" collect --endpoint "$url" --route invalid --cases ok.jsonl --run 1 \
	--validity 'requests:100 ttft:0.000001 convention:linear'
contains "$T/out" "result: INVALID: requests 1 < 100; TTFT p99 (linear)" "INVALID, each failed rule named"
equals "$(q "SELECT v.verdict || ' ' || v.convention || ' ' || v.min_requests FROM collect_validity v JOIN response_set s ON s.id = v.set_id WHERE s.route = 'invalid'")" \
	"INVALID linear 100" "the rules and the verdict are stored"
# LoadGen's early stopping: with none of n over the limit, the smallest h with p^h <= 0.01 queries are needed
for pct in 99 90; do
	expect_exit 0 "a pass of one request with early stopping at p$pct" "$LABRUN" collect --endpoint "$url" --route early$pct \
		--cases ok.jsonl --run 1 --validity "ttft:100000 percentile:$pct early-stopping:yes"
	need=$(python3 -c 'import sys; p = int(sys.argv[1]) / 100; h = 1
while p ** h > 0.01: h += 1
print(h - 1)' "$pct")
	contains "$T/out" "result: INVALID: early stopping (TTFT): 0 of 1 over 100000 ms; it needs at least $need more" \
		"p$pct: $need more queries, as LoadGen's rule says"
done
expect_exit 2 "a malformed rule" "$LABRUN" collect --endpoint "$url" --route x --cases ok.jsonl --validity 'p99:5'
contains "$T/err" "validity rule 'p99:5' is not" "is named"
# a rule given twice: the last would win, and a limit the pass fails would pass (issue 42's trial)
n_sets=$(q "SELECT count(*) FROM collect_pass")
expect_exit 2 "a rule given twice" "$LABRUN" collect --endpoint "$url" --route x --cases ok.jsonl --validity 'ttft:1 ttft:5000'
contains "$T/err" "validity rules 'ttft:1 ttft:5000' name 'ttft' twice" "is refused, naming it"
expect_exit 2 "a goodput SLO given twice" "$LABRUN" collect --endpoint "$url" --route x --cases ok.jsonl --goodput 'ttft:1 ttft:2'
expect_exit 2 "rules that name none" "$LABRUN" collect --endpoint "$url" --route x --cases ok.jsonl --validity '   '
expect_exit 2 "a hex number" "$LABRUN" collect --endpoint "$url" --route x --cases ok.jsonl --validity 'ttft:0x10'
equals "$(q "SELECT count(*) FROM collect_pass")" "$n_sets" "none of them stored a pass"

# TEST06's first check: the event TTFT was timed on must carry the first token (here its id comes later)
printf '{"case_id": "late", "prompt": "mode:lateids h"}\n' >late.jsonl
expect_exit 0 "a stream whose first token id comes with the second" "$LABRUN" collect --endpoint "$url" --route late \
	--cases late.jsonl --run 1
contains "$T/out" "result: INVALID: TEST06: 1 stream(s) whose first token came after the event TTFT was timed on" "named"
equals "$(q "SELECT c.first_ok || ' ' || (c.received_tokens = x.completion_tokens) FROM collect_check c JOIN collect_request x USING (set_id, seq)
	WHERE x.case_id = 'late'")" "0 1" "stored as such, every token received"

# Little's law: a request in flight for a second that never completes is time no completion accounts for
printf '{"case_id": "s1", "prompt": "quick one"}\n{"case_id": "s2", "prompt": "mode:stall x"}\n' >lost.jsonl
expect_exit 1 "a pass that loses a request" "$LABRUN" collect --endpoint "$url" --route lost --cases lost.jsonl \
	--concurrency 2 --stall 1 --run 1
contains "$T/out" "against" "Little's law figures"
case "$(grep '^result:' "$T/out")" in
*"Little's law: "*" requests in flight against "*" = completion rate x mean latency (requests lost)"*) ok "Little's law flags the lost request" ;;
*) fail "Little's law did not flag the lost request: $(grep '^result:' "$T/out")" ;;
esac

# --rate without --concurrency: no cap of one in flight
for i in 1 2 3 4 5 6; do printf '{"case_id": "r%d", "prompt": "rate %d", "max_tokens": 300}\n' "$i" "$i"; done >rate.jsonl
expect_exit 0 "a pass at --rate 20" "$LABRUN" collect --endpoint "$url" --route rate --cases rate.jsonl --rate 20 --seed 3 --run 1
equals "$(q "SELECT max(x.inflight) > 1 FROM collect_request x JOIN response_set s ON s.id = x.set_id WHERE s.route = 'rate'")" "1" \
	"more than one request in flight"
"$LABRUN" report --run 1 --format json >rate.json || fail "the report of the rate pass"
equals "$(jq -r '.serving.passes[] | select(.route == "rate") | "\(.reached)"' rate.json)" "null" \
	"a pass at a rate with no cap has no concurrency level to reach (not NEVER)"

# a cut stream keeps its tokens; the report holds them, the survivors and the replacement against the reference
printf '{"case_id": "d1", "prompt": "drill one"}\n{"case_id": "d2", "prompt": "drill two"}\n' >ref.jsonl
printf '{"case_id": "d1", "prompt": "mode:cut drill one"}\n{"case_id": "d2", "prompt": "drill two"}\n' >drill.jsonl
expect_exit 0 "the reference pass" "$LABRUN" collect --endpoint "$url" --route ref --cases ref.jsonl
run=$(q "SELECT max(id) FROM run")
expect_exit 1 "the drill: one stream cut" "$LABRUN" collect --endpoint "$url" --route drill --cases drill.jsonl --run "$run"
expect_exit 0 "the replacement" "$LABRUN" collect --endpoint "$url" --route again --cases ref.jsonl --run "$run"
python3 - "$LABRUN_STORE/labrun.db" <<'PY' || fail "the cut stream's tokens are not the first two the server sent"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cut, = db.execute("SELECT c.cut_tokens FROM collect_check c JOIN collect_request x USING (set_id, seq)"
                  " WHERE x.case_id = 'd1' AND x.failure IS NOT NULL").fetchone()
ref, = db.execute("SELECT r.tokens FROM response r JOIN response_set s ON s.id = r.set_id"
                  " WHERE s.route = 'ref' AND r.case_id = 'd1'").fetchone()
assert json.loads(cut) == json.loads(ref)[:2], (cut, ref)
PY
ok "the cut stream's two tokens are stored"
expect_exit 0 "the drill's report" "$LABRUN" report --run "$run"
contains "$T/out" "case d1 cut (stream cut: it ended inside an event) after 2 token(s): the first 2 of the reference's" \
	"the cut stream against the reference"
contains "$T/out" "its replacement (set" "the replacement against it"
contains "$T/out" "1 survivor(s) of the cut pass, 1 equal to the reference" "the survivors against it"
# a serving experiment's outcome says what parity it checked: no outputs are declared, and its
# responses' within-route parity fails on the route whose server answers each time otherwise
printf '{"case_id": "v", "prompt": "mode:vary x"}\n' >vary.jsonl
printf '[experiment]\nname = vary\ntarget = serving\ncases = vary.jsonl\n[design]\nblocks = 6\nwarmup = 0\n[arm r1]\nendpoint = %s\n[arm r2]\nendpoint = %s\nmax_tokens = 4\n' \
	"$url" "$url" >vary.ini
expect_exit 0 "a serving experiment whose within-route parity fails" "$LABRUN" run vary.ini
lacks "$T/out" "parity: 1 passed" "no parity claimed that was not checked"
contains "$T/out" "conditions: 1 passed, 0 failed, 0 missing (no arm declares outputs: no output parity checked)" \
	"the conditions counted as what they are"
contains "$T/out" "response parity: within-route 0 exact, 2 failing, 0 never compared" "the responses' parity, failing"
contains "$T/out" "1 of 1 condition(s) passed (no output parity checked)" "and the last line claims no parity either"
# an arm whose passes are INVALID is never compared silently: the outcome and the report say so
printf '[experiment]\nname = rules\ntarget = serving\ncases = ok.jsonl\n[design]\nblocks = 6\nwarmup = 0\n[arm strict]\nendpoint = %s\nvalidity = requests:100\n[arm plain]\nendpoint = %s\n' \
	"$url" "$url" >rules.ini
expect_exit 0 "a serving experiment with an arm whose passes are INVALID" "$LABRUN" run rules.ini
contains "$T/out" "passes INVALID (strict); the comparison above includes them" "the outcome says so under the comparison"
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT count(*) FROM collect_validity v JOIN response_set s ON s.id = v.set_id WHERE s.run_id = $run
	AND v.verdict = 'INVALID' AND v.failed = 'requests 1 < 100' AND s.route = 'strict'")" \
	"$(q "SELECT count(*) FROM response_set WHERE run_id = $run AND route = 'strict'")" \
	"every pass of the arm is INVALID, its rule stored through the pass file"
expect_exit 0 "its report" "$LABRUN" report --run "$run"
contains "$T/out" "passes of run $run are INVALID (strict): the paired comparison above includes them" \
	"the report says so where the comparison is made"
expect_exit 0 "the store audits" "$LABRUN" audit
