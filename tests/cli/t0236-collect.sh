#!/bin/sh
# labrun collects serving evidence itself (issue 26): every case of a cases file streamed from an
# OpenAI-compatible server (a test server here, examples/serving-sim-server.py), the responses stored as
# ingest stores them and compared with what the server sent; each fault a client meets ends its
# request as a named failure, in the store and in the report, while the rest of the pass is
# collected; Ctrl-C keeps what came back and names what did not.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
cat >cases.jsonl <<'CASES'
{"case_id": "c1", "prompt": "hello world"}
{"case_id": "c2", "prompt": "second case", "max_tokens": 8}
{"case_id": "c3", "prompt": "mode:llamacpp x"}
{"case_id": "c4", "prompt": "mode:logprobs y"}
{"case_id": "c5", "prompt": "mode:textonly z"}
{"case_id": "c6", "prompt_token_ids": [5, 6, 7]}
{"case_id": "f1", "prompt": "mode:http500"}
{"case_id": "f2", "prompt": "mode:close"}
{"case_id": "f3", "prompt": "mode:cut"}
{"case_id": "f4", "prompt": "mode:nodone"}
{"case_id": "f5", "prompt": "mode:badjson"}
{"case_id": "f6", "prompt": "mode:utf8"}
{"case_id": "f7", "prompt": "mode:oversize"}
{"case_id": "f8", "prompt": "mode:stall"}
{"case_id": "f9", "prompt": "mode:error"}
CASES
expect_exit 1 "a pass with failures" "$LABRUN" collect --endpoint "$url" --route sim --cases cases.jsonl \
	--concurrency 4 --stall 1 --timeout 20
contains "$T/out" "collected 6 of 15 case(s) of route 'sim' into run 1 as set 1" "six complete, counted"
contains "$T/out" "9 failed, 0 not sent" "nine failed"
contains "$T/out" "server: labrun-test-sse/1" "the server's identity"
equals "$(q "SELECT kind || ' ' || status || ': ' || failure FROM run WHERE id = 1")" "collect failed: 9 of 15 request(s) failed" \
	"a run of its own, failed, saying why"

# each fault, named
while read -r case_id want; do
	got=$(sqlite3 "$LABRUN_STORE/labrun.db" "SELECT failure FROM collect_request WHERE set_id = 1 AND case_id = '$case_id'")
	case "$got" in "$want"*) ok "$case_id: $got" ;; *) fail "$case_id: got '$got', expected '$want...'" ;; esac
done <<'WANT'
f1 HTTP 500 from http:
f2 stream cut from http:
f3 stream cut: it ended inside an event
f4 stream cut: it ended before [DONE]
f5 malformed stream: an event that is not JSON
f6 invalid UTF-8 in an event
f7 an event longer than 1048576 bytes
f8 stalled: no byte for 1 s
f9 server error in the stream: out of KV cache blocks
WANT
case "$(q "SELECT failure FROM collect_request WHERE set_id = 1 AND case_id = 'f1'")" in
*"/v1/completions (application/json): {\"\"error\"\": {\"\"message\"\": \"\"the model is not loaded"*) ok "an HTTP error names the URL, the content type and the body" ;;
*) fail "f1: $(q "SELECT failure FROM collect_request WHERE set_id = 1 AND case_id = 'f1'")" ;;
esac
equals "$(q "SELECT count(*) FROM collect_request WHERE failure IS NULL AND ttft_ms > 0 AND e2el_ms >= ttft_ms
	AND json_array_length(itl_ms) > 0 AND sent_ms >= 0")" "6" "each completed request has its TTFT, E2EL and gaps"
equals "$(q "SELECT group_concat(token_source, ' ') FROM (SELECT token_source FROM collect_request WHERE case_id LIKE 'c%' ORDER BY seq)")" \
	"token_ids token_ids tokens logprobs text token_ids" "token ids from each shape, and 'text' when none came"
equals "$(q "SELECT max(inflight) FROM collect_request")" "4" "never more than --concurrency in flight"

# what was stored is what the server sent, case by case
"$LABRUN" sql --json "SELECT r.case_id, r.tokens, r.text, r.finish_reason, json_extract(x.body, '$.prompt') AS prompt
	FROM response r JOIN collect_request x ON x.set_id = r.set_id AND x.case_id = r.case_id" >stored.json ||
	fail "read the stored responses"
python3 - stored.json sent.log <<'PY' || fail "the stored responses are not what the server sent"
import json, sys
stored = json.load(open(sys.argv[1]))
sent = {}
for line in open(sys.argv[2]):
    s = json.loads(line)
    sent[s["prompt"]] = s
assert len(stored) == 6, stored
for r in stored:
    p = r["prompt"]
    if p.startswith("["):  # prompt_token_ids, as json_extract gives an array
        p = " ".join(map(str, json.loads(p)))
    s = sent[p]
    assert json.loads(r["tokens"]) == s["tokens"], (r, s)
    assert r["text"] == s["text"] and r["finish_reason"] == s["finish_reason"], (r, s)
PY
ok "token ids, text and finish reason equal what the server sent"

# the pass's figures, recomputed here from the rows as vLLM defines them
for f in md json csv; do "$LABRUN" report --run 1 --format $f >"r.$f" || fail "report --format $f"; done
n=$(python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" r.md r.json r.csv) || fail "the JSON or the CSV lacks a number"
ok "all $n numbers of the report's tables, the passes' included, are in its JSON and its CSV"
# output tokens: the usage the server reported, else the token ids it sent (llama.cpp sends no usage)
"$LABRUN" sql --json "SELECT sent_ms, end_ms, ttft_ms, e2el_ms, itl_ms, failure IS NULL AS ok, coalesce(completion_tokens,
	(SELECT ntokens FROM response r WHERE r.set_id = x.set_id AND r.case_id = x.case_id)) AS completion_tokens
	FROM collect_request x WHERE set_id = 1" >rows.json || fail "read the rows"
python3 - rows.json r.json <<'PY' || fail "the pass's figures do not recompute"
import json, sys
rows, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p = next(x for x in rep["serving"]["passes"] if x["set"] == 1)
def pct(v, q):  # NumPy's default percentile: linear between ranks
    v = sorted(v); r = q / 100 * (len(v) - 1); i = int(r)
    return v[i] + (v[i + 1] - v[i]) * (r - i) if i + 1 < len(v) else v[-1]
good = [r for r in rows if r["ok"]]
span = (max(r["end_ms"] for r in rows) - min(r["sent_ms"] for r in rows)) / 1e3
assert abs(p["duration_s"] - span) < 1e-9, (p["duration_s"], span)
assert abs(p["request_rate"] - len(good) / span) < 1e-9
assert abs(p["output_rate"] - sum(r["completion_tokens"] for r in good if r["completion_tokens"] is not None) / span) < 1e-6
for key, vals in (("ttft_ms", [r["ttft_ms"] for r in good]), ("e2el_ms", [r["e2el_ms"] for r in good]),
                  ("itl_ms", [g for r in good for g in json.loads(r["itl_ms"])])):
    d = p[key]
    assert d["n"] == len(vals) and abs(d["median"] - pct(vals, 50)) < 1e-9 and abs(d["p99"] - pct(vals, 99)) < 1e-9, key
    assert abs(d["mean"] - sum(vals) / len(vals)) < 1e-9, key
assert p["peak"] == 4 and p["reached"] and abs(sum(p["occupancy_pct"]) - 100) < 1e-6, p
PY
ok "throughput, TTFT, E2EL, ITL and the occupancy recompute from the rows"

# the report names each failure, and compare works unchanged on a second pass
expect_exit 0 "report" "$LABRUN" report --run 1
contains "$T/out" "run 1 / sim (collect, set 1): case f6: not collected: invalid UTF-8 in an event" "the report names a failure"
equals "$(grep -c '(collect, set 1): case f[1-9]: not collected:' "$T/out")" "9" "and all nine"
contains "$T/out" "6 responses, not compared, 9 not collected" "the matrix cell counts them"
contains "$T/out" "| run 1, set 1 | sim | 15 | 6 | 9 | 0 |" "the pass's table counts them too"
grep -v stall cases.jsonl >cases2.jsonl
expect_exit 1 "a second pass into the same run" "$LABRUN" collect --endpoint "$url" --route sim2 --cases cases2.jsonl \
	--concurrency 2 --stall 1 --timeout 20 --run 1
expect_exit 0 "compare the two passes" "$LABRUN" compare --run 1 --reference sim --candidate sim2
contains "$T/out" "6 exact, 0 token mismatch, 0 text mismatch, 0 finish mismatch, 0 missing (of 6)" \
	"the same server gives the same tokens"

# the server's own gauges sampled during a pass: the lane occupancy as the server said it
printf '{"case_id": "g1", "prompt": "gauge one"}\n{"case_id": "g2", "prompt": "gauge two"}\n{"case_id": "g3", "prompt": "gauge three"}\n{"case_id": "g4", "prompt": "gauge four"}\n' >gauge.jsonl
# the server still counts the first pass's stalled request: what it says before the pass is the floor
before=$(python3 -c 'import sys, urllib.request; t = urllib.request.urlopen(sys.argv[1]).read().decode()
print(sum(int(float(l.split()[-1])) for l in t.splitlines() if l.startswith("vllm:num_requests_running")))' "${url%/v1}/metrics")
expect_exit 0 "a pass with the server's gauges" "$LABRUN" collect --endpoint "$url" --route gauged --cases gauge.jsonl \
	--concurrency 4 --max-tokens 150 --metrics-url "${url%/v1}/metrics" --sample 0.005s --run 1
set=$(q "SELECT max(id) FROM response_set")
n=$(q "SELECT count(*) FROM collect_gauge WHERE set_id = $set AND running IS NOT NULL AND waiting = 0")
[ "$n" -ge 2 ] || fail "too few gauge samples stored: $n"
ok "$n gauge samples stored"
equals "$(q "SELECT max(running) - $before BETWEEN 1 AND 4 FROM collect_gauge WHERE set_id = $set")" "1" \
	"the running gauge rose with the pass (300 ms, sampled every 5 ms), by no more than its concurrency"
expect_exit 0 "the report with the gauge" "$LABRUN" report --run 1 --format json
equals "$(jq --argjson s "$set" '.serving.passes[] | select(.set == $s) | (.gauge_samples > 1) and ((.gauge_occupancy_pct | add) - 100 | fabs < 1e-6)' "$T/out")" \
	"true" "the lane occupancy from the server's gauge, adding up to the sampled span"
"$LABRUN" report --run 1 >r2.md && grep -q "| run 1, set $set | server gauge | " r2.md || fail "the Markdown lacks the gauge's occupancy"
ok "and the Markdown shows it, named as the server's"

# progress off a terminal: asked for, a line as the requests end and one when they have; else none
expect_exit 0 "a pass with --progress" "$LABRUN" collect --endpoint "$url" --route progress --cases gauge.jsonl --run 1 --progress
contains "$T/err" "labrun collect: ended 4 of 4 requests" "the requests counted on stderr"
expect_exit 0 "a pass without" "$LABRUN" collect --endpoint "$url" --route quiet --cases gauge.jsonl --run 1
lacks "$T/err" "labrun collect: ended" "silent off a terminal by default"

# goodput against SLOs, as vLLM's bench serve counts it: requests meeting every SLO given, per second
expect_exit 0 "a pass with SLOs every request meets" "$LABRUN" collect --endpoint "$url" --route slo-met --cases gauge.jsonl \
	--concurrency 2 --goodput 'ttft:100000 e2el:100000' --run 1
expect_exit 0 "and one with an SLO none meets" "$LABRUN" collect --endpoint "$url" --route slo-missed --cases gauge.jsonl \
	--concurrency 2 --goodput 'e2el:0.001' --run 1
expect_exit 0 "report" "$LABRUN" report --run 1 --format json
equals "$(jq '[.serving.passes[] | select(.route == "slo-met" or .route == "slo-missed") | [.route, .good, (.goodput == .request_rate)]] | sort' -c "$T/out")" \
	'[["slo-met",4,true],["slo-missed",0,false]]' "goodput counts the requests that met every SLO"
equals "$(q "SELECT slo_ttft_ms || ' ' || slo_e2el_ms || ' ' || coalesce(slo_tpot_ms, 'none') FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.route = 'slo-met'")" \
	"100000.0 100000.0 none" "the SLOs are stored with the pass"
expect_exit 2 "a malformed SLO" "$LABRUN" collect --endpoint "$url" --route x --cases gauge.jsonl --goodput 'ttfb:100'
contains "$T/err" "goodput SLO 'ttfb:100' is not ttft:MS, tpot:MS or e2el:MS" "is named"

# nothing listening: every request refused, by name
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >closed
expect_exit 1 "a refused endpoint" "$LABRUN" collect --endpoint "http://127.0.0.1:$(cat closed)/v1" --route gone \
	--cases cases.jsonl --timeout 5
equals "$(q "SELECT count(*) FROM collect_request x JOIN response_set s ON s.id = x.set_id
	WHERE s.route = 'gone' AND x.failure LIKE 'connection refused by http://127.0.0.1:%'")" "15" "each request: connection refused"

# --chat: POST /chat/completions with each case's messages, the deltas' content as the text
printf '{"case_id": "m1", "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 6}\n{"case_id": "m2", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "why"}], "max_tokens": 3}\n' >chat.jsonl
expect_exit 0 "collect --chat" "$LABRUN" collect --endpoint "$url" --route chat --cases chat.jsonl --chat
contains "$T/out" "collected 2 of 2 case(s) of route 'chat'" "every case"
equals "$(q "SELECT group_concat(json_extract(x.body, '$.messages[0].content') || '|' || coalesce(json_extract(x.body, '$.prompt'), '-'), ';')
	FROM collect_request x JOIN response_set s ON s.id = x.set_id WHERE s.route = 'chat' ORDER BY x.seq")" \
	"hello there|-;be brief|-" "each request sent its messages, and no prompt"
equals "$(q "SELECT count(*) FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE s.route = 'chat' AND p.api = 'chat'")" \
	"1" "the pass says it used the chat API"
"$LABRUN" sql --json "SELECT r.case_id, r.text, r.finish_reason FROM response r JOIN response_set s ON s.id = r.set_id
	WHERE s.route = 'chat' ORDER BY r.case_id" >chat-stored.json || fail "read the chat responses"
python3 - chat-stored.json sent.log <<'PY' || fail "the chat responses are not what the server sent"
import json, sys
stored = json.load(open(sys.argv[1]))
sent = {}
for line in open(sys.argv[2]):
    s = json.loads(line)
    sent[s["prompt"]] = s
want = {"m1": "hello there", "m2": "be brief why"}
assert [r["case_id"] for r in stored] == ["m1", "m2"], stored
for r in stored:
    s = sent[want[r["case_id"]]]
    assert r["text"] == s["text"] and r["text"] and r["finish_reason"] == s["finish_reason"], (r, s)
PY
ok "the text is the deltas' content, as the server sent it"
printf '{"case_id": "p", "prompt": "no messages"}\n' >nomsg.jsonl
expect_exit 2 "--chat with a case that has no messages" "$LABRUN" collect --endpoint "$url" --route x --cases nomsg.jsonl --chat
contains "$T/err" "nomsg.jsonl:1: 'messages' must be a non-empty array (--chat)" "named at its line"

# a bad cases file: named at its line, nothing sent, nothing stored
snapshot() { (cd "$T/store" && find . -type f ! -name '*-shm' | sort | xargs sha256sum); }
snapshot >before
: >sent.log
printf '{"case_id": "a", "prompt": "x"}\n{"case_id": "a", "prompt": "y"}\n' >dup.jsonl
expect_exit 2 "duplicate case ids" "$LABRUN" collect --endpoint "$url" --route x --cases dup.jsonl
contains "$T/err" "dup.jsonl:2: duplicate case_id" "at its line"
printf '{"case_id": "a"}\n' >noprompt.jsonl
expect_exit 2 "a case without a prompt" "$LABRUN" collect --endpoint "$url" --route x --cases noprompt.jsonl
contains "$T/err" "noprompt.jsonl:1: a case needs 'prompt'" "named"
snapshot >after
cmp -s before after || fail "a refused cases file changed the store"
[ ! -s sent.log ] || fail "a refused cases file sent requests"
ok "and the store is byte for byte as before, with nothing sent"

# Ctrl-C: what came back is kept, the rest is named
printf '{"case_id": "k1", "prompt": "quick"}\n{"case_id": "k2", "prompt": "mode:slow"}\n{"case_id": "k3", "prompt": "never sent"}\n' >slow.jsonl
"$LABRUN" collect --endpoint "$url" --route slow --cases slow.jsonl >"$T/out" 2>"$T/err" &
pid=$!
i=0
# k1 complete and k2 in flight: the server logs a slow request when it arrives (k1's line comes first)
while ! grep -q '"waiting"' sent.log 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
grep -q quick sent.log && grep -q '"waiting"' sent.log || fail "the first case never completed, or the second never came"
kill -INT $pid
set +e; wait $pid; code=$?; set -e
equals "$code" "1" "a cancelled pass exits 1"
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT status FROM run WHERE id = $run")" "cancelled" "the run is cancelled"
equals "$(q "SELECT group_concat(case_id || '=' || coalesce(failure, 'ok'), '; ') FROM (SELECT * FROM collect_request x
	JOIN response_set s ON s.id = x.set_id WHERE s.run_id = $run ORDER BY seq)")" \
	"k1=ok; k2=not collected: cancelled while streaming; k3=not sent: cancelled" "collected, cut and unsent, each named"
expect_exit 0 "report of the cancelled pass" "$LABRUN" report --run "$run"
contains "$T/out" "case k3: not collected: not sent: cancelled" "the report lists what was not collected"
expect_exit 0 "the store audits" "$LABRUN" audit

# --timeout is a request's whole time, ended before a longer --stall would end it
printf '{"case_id": "t1", "prompt": "mode:stall"}\n' >late.jsonl
expect_exit 1 "a request over --timeout" "$LABRUN" collect --endpoint "$url" --route late --cases late.jsonl \
	--stall 20 --timeout 1
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT failure FROM collect_request x JOIN response_set s ON s.id = x.set_id WHERE s.run_id = $run")" \
	"timed out after 1 s" "ended and named at --timeout"
