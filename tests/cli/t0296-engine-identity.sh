#!/bin/sh
# A serving target's backend is the engine it reached, from what the engine says of itself (issue 42,
# part 1): vLLM's GET /version and llama-server's GET /props answers (tests/fixtures/serving/identity,
# served by tests/cli/engine-stub.py) are identified, and stored with the pass; a Server header alone
# identifies nothing.
. "$(dirname "$0")/lib.sh"
q() { sqlite3 "$LABRUN_STORE/labrun.db" "$1"; } # whole values: commas and quotes as they are
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is needed for the stub engine"; exit 0; }
printf '{"case_id": "a", "prompt": "one"}\n' >cases.jsonl
stub=
trap 'kill $stub 2>/dev/null || true; cleanup' EXIT
n=0
for engine in vllm:"vLLM 0.6.4.post1" llama-server:"llama.cpp b4273-c2082d93" header-only:"unidentified"; do
	dir=${engine%%:*} said=${engine#*:}
	rm -f port
	python3 "$TOP_SRCDIR/tests/cli/engine-stub.py" "$TOP_SRCDIR/tests/fixtures/serving/identity/$dir" port &
	stub=$!
	i=0
	while [ ! -s port ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s port ] || fail "the stub engine did not start"
	expect_exit 0 "collect from a server answering as $dir" "$LABRUN" collect --endpoint "http://127.0.0.1:$(cat port)/v1" \
		--route "$dir" --cases cases.jsonl
	contains "$T/out" "engine: $said" "$dir: identified as $said"
	n=$((n + 1))
	equals "$(q "SELECT value FROM binding WHERE run_id = $n AND key = 'backend'")" "${said%% *}" "$dir: the run's backend"
	kill $stub
	wait $stub 2>/dev/null || true
done
equals "$(q "SELECT group_concat(s.route || path, ' ') FROM collect_identity x JOIN response_set s ON s.id = x.set_id")" \
	"vllm/version llama-server/props" "what each said is stored with its pass"
equals "$(q "SELECT body FROM collect_identity WHERE path = '/version'")" "$(cat "$TOP_SRCDIR/tests/fixtures/serving/identity/vllm/version.json")" \
	"as it was served"
equals "$(q "SELECT count(*) FROM binding WHERE run_id = 3 AND key = 'backend_version'")" "0" "a header names no version"
